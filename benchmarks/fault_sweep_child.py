"""The child side of ``fault_sweep.py``: the work each fault-injection case does, in a process of its own.

    python fault_sweep_child.py worker          a long-lived worker: JSON requests on stdin, JSON replies
    python fault_sweep_child.py uvtt FILE       one Universal VTT file read through the core's reader
    python fault_sweep_child.py recover ROOT    the encounter a killed window's recovery folder gives back

The worker answers requests one a line on stdin, each with one or two JSON lines on its own copy of
stdout (the product's prints and Qt's words go to stderr):

    {"op": "ping"}                              -> {"stage": "done"}
    {"op": "file", "path": P, "noise": false}   -> {"stage": "loaded", ...} then {"stage": "done", ...}
    {"op": "dice", "text": T}                   -> {"stage": "done", ...}

A file is read through ``storage.load``; an accepted one is shown in a real player view (a
``TableController`` and a ``PlayerView``, offscreen) and its viewport grabbed, then the same
encounter with every hidden token and the lights they carry removed is shown the same way: the two
pictures must be the same. Peak memory is the process's VmHWM, reset before each request.
"""

from __future__ import annotations

import contextlib
import faulthandler
import hashlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ERRORS: list[str] = []  # exceptions that reached sys.excepthook (raised inside Qt's calls into Python)


def peak_mb() -> float:
    """The process's resident set at its most since the last reset_peak(), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
    ERRORS.append("".join(traceback.format_exception(kind, value, tb)))


class Scenes:
    """The Qt side: one application, a players' view built and grabbed per encounter."""

    def __init__(self) -> None:
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance() or QApplication(sys.argv[:1])

    def settle(self) -> None:
        from PySide6.QtCore import QCoreApplication, QEvent

        self.app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        self.app.processEvents()

    def picture(self, encounter: Any) -> tuple[bytes, bool, list[str], str | None]:
        """The players' picture of ``encounter``: its pixels, whether the view is paused (black on an
        error), the exceptions raised inside Qt's calls meanwhile, and an exception its building raised."""
        from PySide6.QtGui import QImage

        from lnl_desktop.ui.plumbing.controller import TableController
        from lnl_desktop.ui.window.player_view import PlayerView

        before = len(ERRORS)
        controller = view = None
        try:
            controller = TableController(encounter)
            view = PlayerView(controller)
            view.show()
            self.app.processEvents()
            view.view.finish_animations()
            self.app.processEvents()
            image = view.view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
            pixels = bytes(image.constBits())
            paused = bool(getattr(view, "paused", False))
            raised = None
        except Exception:
            pixels, paused, raised = b"", False, traceback.format_exc()
        finally:
            if view is not None:
                view.close()
                view.deleteLater()
            if controller is not None:
                controller.deleteLater()
            self.settle()
        return pixels, paused, ERRORS[before:], raised


def without_hidden(encounter: Any) -> Any:
    """The same encounter with every hidden token removed, and the lights they carry: written out and
    read back as a file is (a deep copy of the model may order a set differently, and a picture
    painted from it differ by a shade in a pixel or two; a file read back paints the same)."""
    import json

    from lnl_desktop.core.files import storage

    document = storage.to_document(encounter)
    data = document["encounter"]
    hidden = {cid for cid, token in data["tokens"].items() if token.get("hidden")}
    data["tokens"] = {cid: token for cid, token in data["tokens"].items() if cid not in hidden}
    data["lights"] = [light for light in data.get("lights", []) if light.get("carrier") not in hidden]
    return storage.loads(json.dumps(document), "without hidden tokens")


def differing(a: bytes, b: bytes) -> int:
    """How many 32-bit pixels differ between two pictures of one size."""
    import numpy as np

    if len(a) != len(b):
        return max(len(a), len(b)) // 4
    return int(np.count_nonzero(np.frombuffer(a, np.uint32) != np.frombuffer(b, np.uint32)))


class Worker:
    def __init__(self, out: Any) -> None:
        self.out = out
        self.scenes: Scenes | None = None
        self.engine: Any = None
        self.rolls = 0

    def say(self, **fields: Any) -> None:
        self.out.write(json.dumps(fields) + "\n")
        self.out.flush()

    def file(self, path: str, noise: bool) -> None:
        from lnl_desktop.core.files import storage

        t0 = time.perf_counter()
        try:
            encounter = storage.load(path)
        except storage.EncounterFileError as error:
            text = str(error)
            self.say(
                stage="done",
                result="refused",
                load_s=time.perf_counter() - t0,
                lines=text.count("\n") + 1,
                chars=len(text),
                message=text[:3000],
                peak_mb=peak_mb(),
            )
            return
        except Exception:
            self.say(
                stage="done",
                result="crashed",
                where="load",
                load_s=time.perf_counter() - t0,
                error=traceback.format_exc()[-4000:],
                peak_mb=peak_mb(),
            )
            return
        self.say(stage="loaded", load_s=time.perf_counter() - t0, peak_mb=peak_mb())
        if self.scenes is None:
            self.scenes = Scenes()
        t0 = time.perf_counter()
        hidden = sorted(cid for cid, token in encounter.tokens.items() if token.hidden)
        try:
            other = without_hidden(encounter)
        except Exception:
            other, copy_error = None, traceback.format_exc()
        else:
            copy_error = None
        pixels, paused, errors, raised = self.scenes.picture(encounter)
        reply: dict[str, Any] = {
            "stage": "done",
            "result": "accepted",
            "hidden": hidden,
            "fog": encounter.fog.enabled,
            "paused": paused,
            "errors": [e[-3000:] for e in errors[:3]],
            "error_count": len(errors),
            "raised": raised[-4000:] if raised else None,
            "picture": hashlib.sha256(pixels).hexdigest()[:16],
        }
        if noise:  # the same encounter twice: the pictures must be the same for the comparison to mean anything
            again, _, _, _ = self.scenes.picture(encounter)
            reply["noise"] = differing(pixels, again)
        if other is None:
            reply["roundtrip_error"] = copy_error[-3000:] if copy_error else None
        elif hidden and raised is None:
            b_pixels, b_paused, b_errors, b_raised = self.scenes.picture(other)
            reply.update(
                other_paused=b_paused,
                other_errors=len(b_errors),
                other_raised=b_raised[-2000:] if b_raised else None,
                leak_pixels=differing(pixels, b_pixels) if b_raised is None else None,
                pixels=len(pixels) // 4,
            )
        reply.update(scene_s=time.perf_counter() - t0, peak_mb=peak_mb())
        self.say(**reply)

    def dice(self, text: str) -> None:
        from lnl_desktop.core.dice.notation import NotationError, parse
        from lnl_desktop.core.encounter.actions import RollDice
        from lnl_desktop.core.encounter.events import DiceRolled
        from lnl_desktop.core.engine.engine import Engine
        from lnl_desktop.core.errors import RulesError
        from lnl_desktop.core.files import storage
        from lnl_desktop.paths import demo_encounter_path

        if self.engine is None or self.rolls >= 300:  # a fresh log now and then
            self.engine = Engine(storage.load(demo_encounter_path()))
            self.rolls = 0
        self.rolls += 1
        t0 = time.perf_counter()
        try:
            parse(text)
            parse_s = time.perf_counter() - t0
            events = self.engine.apply(RollDice(text))
        except NotationError as error:
            self.say(
                stage="done",
                result="refused",
                kind="NotationError",
                words=str(error)[:300],
                s=time.perf_counter() - t0,
                peak_mb=peak_mb(),
            )
            return
        except RulesError as error:
            self.say(
                stage="done",
                result="refused",
                kind=type(error).__name__,
                words=str(error)[:300],
                s=time.perf_counter() - t0,
                peak_mb=peak_mb(),
            )
            return
        except Exception:
            self.say(
                stage="done",
                result="crashed",
                error=traceback.format_exc()[-3000:],
                s=time.perf_counter() - t0,
                peak_mb=peak_mb(),
            )
            return
        spent = time.perf_counter() - t0
        rolled = [e for e in events if isinstance(e, DiceRolled)]
        size = max((len(e.model_dump_json().encode()) for e in rolled), default=0)
        self.say(
            stage="done",
            result="accepted",
            s=spent,
            parse_s=parse_s,
            log_bytes=size,
            total=rolled[0].total if rolled else None,
            peak_mb=peak_mb(),
        )

    def serve(self) -> None:
        for line in sys.stdin:
            request = json.loads(line)
            reset_peak()
            ERRORS.clear()
            op = request["op"]
            if op == "ping":
                if request.get("qt"):
                    self.scenes = self.scenes or Scenes()
                    import lnl_desktop.ui.plumbing.controller  # imported before the first file is timed
                    import lnl_desktop.ui.window.player_view  # noqa: F401
                self.say(stage="done", result="ready", peak_mb=peak_mb())
            elif op == "file":
                self.file(request["path"], request.get("noise", False))
            elif op == "dice":
                self.dice(request["text"])


def uvtt(path: str) -> dict[str, Any]:
    from lnl_desktop.core.files import uvtt as uvtt_module

    data = Path(path).read_bytes()
    reset_peak()
    t0 = time.perf_counter()
    try:
        imported = uvtt_module.read_uvtt(data, Path(path).name)
    except uvtt_module.MapFileError as error:
        return {"result": "refused", "s": time.perf_counter() - t0, "message": str(error)[:500], "peak_mb": peak_mb()}
    except Exception:
        return {
            "result": "crashed",
            "s": time.perf_counter() - t0,
            "error": traceback.format_exc()[-3000:],
            "peak_mb": peak_mb(),
        }
    spent = time.perf_counter() - t0
    walls = len(getattr(imported, "segments", ()) or ()) + len(getattr(imported, "doors", ()) or ())
    return {"result": "accepted", "s": spent, "walls": walls, "peak_mb": peak_mb()}


def recover(root: str) -> dict[str, Any]:
    from lnl_desktop.core.files import storage
    from lnl_desktop.ui.window.recovery import RecoveryStore

    orphans = RecoveryStore(Path(root) / "recovery").orphans()
    out: dict[str, Any] = {"orphans": len(orphans), "shown": None, "problem": None}
    if orphans:
        found = orphans[0].found
        out["problem"] = getattr(found, "problem", None) or None
        if found.encounter is not None:
            out["shown"] = hashlib.sha256(storage.dumps(found.encounter).encode()).hexdigest()[:16]
    return out


def main() -> None:
    faulthandler.enable()
    sys.excepthook = _hook
    mode = sys.argv[1]
    if mode == "worker":
        out = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # the product's prints never mix with the replies
        sys.stdout = sys.stderr
        Worker(out).serve()
    elif mode == "uvtt":
        print(json.dumps(uvtt(sys.argv[2])), flush=True)
    elif mode == "recover":
        print(json.dumps(recover(sys.argv[2])), flush=True)


if __name__ == "__main__":
    main()
