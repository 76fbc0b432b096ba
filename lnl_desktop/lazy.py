"""Modules loaded at their first use rather than at import, to keep the program's start short.

numpy takes about 45 ms to import, and the first window needs none of it: the map asks for
reach, paths and sight only once the GM hovers, drags or starts a turn.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """``name`` as a module object whose first attribute access imports it for real.

    The standard library's recipe (``importlib.util.LazyLoader``): the module is entered in
    ``sys.modules`` at once, so a plain ``import name`` elsewhere gets the same object. Python
    3.11's loader has no lock: a thread that may use the module loads it on the GUI thread first.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


def load_now(name: str) -> None:
    """Load the lazy module ``name`` now (at an idle moment) rather than at its first use."""
    module = sys.modules.get(name)
    if module is not None:
        module.__name__  # noqa: B018 - any attribute loads a lazy module; a loaded one is unchanged


def loaded(name: str) -> bool:
    """Whether ``name`` was imported for real, not just entered in ``sys.modules`` as a lazy module."""
    module = sys.modules.get(name)
    return module is not None and not isinstance(module, importlib.util._LazyModule)  # type: ignore[attr-defined]
