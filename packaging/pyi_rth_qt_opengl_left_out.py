"""PyInstaller runtime hook: stand-ins for PySide6's QtOpenGL and QtOpenGLWidgets, left out of the bundle.

The bundle leaves out those two Python modules (9 MB with their Qt library; see
``bundle_config.QT_MODULES_LEFT_OUT``): the app draws everything with QPainter and never asks for an
OpenGL viewport. pyqtgraph (0.13, 0.14) still imports them when it is imported, outside any ``try``
(``pyqtgraph/Qt/OpenGLHelpers.py``, ``graphicsItems/PlotCurveItem.py``, ``PColorMeshItem.py``,
``widgets/RawImageWidget.py``), to define the classes of its optional OpenGL mode, which stays off
unless ``useOpenGL=True`` is asked for (the app never does).

This hook, run before the app, lets those imports succeed: it puts a finder LAST on
``sys.meta_path`` that answers only for the two module names and only when nothing else found
them, so a real module, were it bundled, always wins. A stand-in module's Qt names are classes
that can be subclassed (pyqtgraph subclasses ``QOpenGLWidget`` at import time) but raise
ImportError, naming what is missing, as soon as one is made. The bundle's self check
(packaging/bundle_self_check.py) draws the forecast chart with them in place.
"""

import importlib.abc
import importlib.machinery
import sys
import types

LEFT_OUT = ("PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets")
_HOOK = "pyi_rth_qt_opengl_left_out.py"


def _placeholder(module: str, name: str) -> type:
    def refuse(self, *args, **kwargs):
        raise ImportError(
            f"{module}.{name} is not in this bundle: Laurels & Loot Desktop leaves Qt's OpenGL modules "
            f"out (it draws with QPainter); see packaging/{_HOOK}"
        )

    return type(name, (), {"__init__": refuse, "__module__": module, "__lnl_left_out__": True})


class _StandIn(types.ModuleType):
    __lnl_left_out__ = True

    def __getattr__(self, name: str):
        if not name.startswith("Q"):  # dunders and the like: behave like a module without them
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = _placeholder(self.__name__, name)
        setattr(self, name, value)
        return value


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in LEFT_OUT:
            return importlib.machinery.ModuleSpec(fullname, self, origin="left out of the bundle")
        return None

    def create_module(self, spec):
        return _StandIn(spec.name, f"Stand-in: {spec.name} is not in this bundle (packaging/{_HOOK}).")

    def exec_module(self, module):
        pass


sys.meta_path.append(_StandInFinder())
