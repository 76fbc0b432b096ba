"""The players' view served read-only to any browser on the table's network (plain Python, no Qt).

A :class:`ShareServer` runs Python's own ``ThreadingHTTPServer`` on a thread of its own, bound to
the one address the GM picked. It holds plain data only (a :class:`SharedPicture`: the latest
frames as PNG bytes, the banner's words, a version number); the GUI thread renders the frames and
hands them over (:meth:`SharedPicture.publish`) and reads which sizes the browsers ask for
(:meth:`SharedPicture.wanted`). Nothing here ever touches a Qt object.

Every request but the bare page needs the join code (else 403 and nothing else); only GET is
answered (anything else 405); a request's line and headers are bounded, each socket times out,
at most :data:`MAX_CONNECTIONS` are open at once (more are closed at once), and frames come in at
most :data:`MAX_SIZES` sizes at a time (the rest get the nearest). Any error: a black frame or an
empty page (fail closed).
"""

from __future__ import annotations

import contextlib
import hmac
import http.server
import json
import secrets
import socket
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from lnl_desktop.paths import resources_dir

MAX_CONNECTIONS = 64
MAX_SIZES = 4  # distinct frame sizes rendered at a time
WAIT_S = 20.0  # a long poll returns after this long if nothing changed
FRAME_WAIT_S = 2.0  # a frame of a size not rendered yet: how long a request waits for it
SOCKET_TIMEOUT_S = 10.0  # a client that never reads or never sends holds a thread no longer
SEEN_S = 30.0  # a device counts as watching this long after its last request
MIN_SIDE, MAX_SIDE = 16, 4096
MAX_REQUEST_LINE = 2048
WRONG_CODES_PER_MINUTE = 30  # then the address gets nothing for a minute (a six-digit code is no password)
COOKIE = "lnl_device"

Size = tuple[int, int]


def join_code() -> str:
    """Six digits, new each time sharing starts."""
    return f"{secrets.randbelow(1_000_000):06d}"


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def black_png() -> bytes:
    """A 1 x 1 black PNG: what any failure shows (the page stretches it over the map's area)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00"))
        + _png_chunk(b"IEND", b"")
    )


BLACK_PNG = black_png()


def page_html() -> bytes:
    """The one page (a resource file: no external resources, no file path, no form that changes anything)."""
    return (resources_dir() / "share_page.html").read_bytes()


@dataclass
class SharedPicture:
    """What the server thread may read: plain data behind one lock, handed over by the GUI thread."""

    version: int = 0
    banner: str = ""
    frames: dict[Size, bytes] = field(default_factory=dict)  # the sizes rendered for ``version``
    asked: dict[Size, float] = field(default_factory=dict)  # sizes browsers ask for, when last asked
    seen: dict[str, float] = field(default_factory=dict)  # device -> when last seen
    stopped: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)

    # -- the GUI thread's side ---------------------------------------------------------------------

    def publish(self, frames: dict[Size, bytes], banner: str) -> int:
        """New frames of a changed scene (every size asked, rendered at once) and the banner's words;
        wakes every waiting browser. The new version number."""
        with self.changed:
            self.version += 1
            self.frames = dict(frames)
            self.banner = banner
            self.changed.notify_all()
            return self.version

    def add_frames(self, frames: dict[Size, bytes]) -> None:
        """Frames of newly asked sizes for the current version (the scene has not changed)."""
        with self.changed:
            self.frames.update(frames)
            self.changed.notify_all()

    def wanted(self, now: float | None = None) -> list[Size]:
        """The sizes browsers asked for in the last :data:`SEEN_S` seconds, newest first."""
        now = time.monotonic() if now is None else now
        with self.changed:
            for size, when in list(self.asked.items()):
                if now - when > SEEN_S:
                    del self.asked[size]
            return sorted(self.asked, key=lambda s: -self.asked[s])

    def missing(self) -> list[Size]:
        """Sizes asked for that the current version has no frame of yet."""
        with self.changed:
            return [size for size in self.asked if size not in self.frames]

    def devices(self, now: float | None = None) -> int:
        """How many devices asked for something in the last :data:`SEEN_S` seconds."""
        now = time.monotonic() if now is None else now
        with self.changed:
            for device, when in list(self.seen.items()):
                if now - when > SEEN_S:
                    del self.seen[device]
            return len(self.seen)

    def stop(self) -> None:
        with self.changed:
            self.stopped = True
            self.changed.notify_all()

    # -- the server's side -----------------------------------------------------------------------

    def saw(self, device: str) -> None:
        with self.changed:
            if device in self.seen or len(self.seen) < 4 * MAX_CONNECTIONS:
                self.seen[device] = time.monotonic()

    def size_for(self, width: int, height: int) -> Size:
        """The size a frame is rendered at: the one asked, or, with :data:`MAX_SIZES` others watched
        already, the nearest of them."""
        size = (max(MIN_SIDE, min(MAX_SIDE, width)), max(MIN_SIDE, min(MAX_SIDE, height)))
        now = time.monotonic()
        with self.changed:
            for old, when in list(self.asked.items()):
                if now - when > SEEN_S:
                    del self.asked[old]
            if size not in self.asked and len(self.asked) >= MAX_SIZES:
                size = min(self.asked, key=lambda s: abs(s[0] - size[0]) + abs(s[1] - size[1]))
            self.asked[size] = now
            return size

    def frame(self, size: Size, timeout: float) -> bytes | None:
        """The current version's frame of ``size``, waiting up to ``timeout`` for the GUI to render it."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not self.stopped:
                found = self.frames.get(size)
                if found is not None:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(left)
            return None

    def wait_after(self, after: int, timeout: float) -> tuple[int, str]:
        """The version and banner once the version is past ``after``, or after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not self.stopped and self.version <= after:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.changed.wait(left)
            return self.version, self.banner


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S
    server_version = "LaurelsAndLoot"
    sys_version = ""

    def log_message(self, format: str, *args: object) -> None:
        """Nothing logged: a request's path holds the code."""

    def parse_request(self) -> bool:
        if len(self.raw_requestline) > MAX_REQUEST_LINE:
            self._bare(414)
            return False
        if not super().parse_request():
            return False
        if self.command != "GET":
            self._bare(405, extra=(("Allow", "GET"),))
            return False
        return True

    def _bare(self, status: int, extra: tuple[tuple[str, str], ...] = ()) -> None:
        """A status and nothing else; the connection closed after it."""
        self.close_connection = True
        self.send_response_only(status)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()

    def _send(self, body: bytes, kind: str, extra: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response_only(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, max_num_fields=8)
        one = {k: v[0] for k, v in query.items() if v}
        route = parts.path
        address = self.client_address[0]
        server = self.server
        try:
            if route in ("/", "/index.html"):
                device = self._device() or secrets.token_hex(8)
                cookie = f"{COOKIE}={device}; Path=/; SameSite=Strict; HttpOnly; Max-Age=86400"
                csp = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'"
                self._send(
                    page_html(),
                    "text/html; charset=utf-8",
                    (("Set-Cookie", cookie), ("Content-Security-Policy", csp)),
                )
                return
            if route not in ("/frame", "/state", "/wait"):
                self._bare(404)
                return
            if not server.admits(address, one.get("code", "")):
                self._bare(403)
                return
            picture = server.picture
            picture.saw(self._device() or address)
            if route == "/frame":
                size = picture.size_for(_number(one.get("w"), 640), _number(one.get("h"), 480))
                body = picture.frame(size, FRAME_WAIT_S) or BLACK_PNG
                self._send(body, "image/png")
            else:
                after = _number(one.get("after"), -1) if route == "/wait" else None
                if after is None:
                    with picture.changed:
                        version, banner = picture.version, picture.banner
                else:
                    version, banner = picture.wait_after(after, WAIT_S)
                body = json.dumps({"version": version, "banner": banner}).encode()
                self._send(body, "application/json")
        except (OSError, ValueError):
            self.close_connection = True  # the client went, or sent nonsense: nothing more to it
        except Exception:
            self.close_connection = True  # fail closed: nothing of a half-made answer goes out

    def _device(self) -> str | None:
        for part in (self.headers.get("Cookie") or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE and value.isalnum() and len(value) <= 32:
                return value
        return None


def _number(text: str | None, default: int) -> int:
    if text is None or not text.lstrip("-").isdigit() or len(text) > 9:
        return default
    return int(text)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # Room for every device's requests arriving at once after a change: a connection the backlog has no
    # room for is retried by the device's system a second later (a one-second stall on every screen).
    request_queue_size = 2 * MAX_CONNECTIONS

    def __init__(self, address: tuple[str, int], picture: SharedPicture, code: str) -> None:
        self.picture = picture
        self.code = code
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.wrong: dict[str, list[float]] = {}
        super().__init__(address, _Handler)

    def verify_request(self, request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> bool:
        with self.lock:
            if len(self.open) >= MAX_CONNECTIONS or self.picture.stopped:
                return False  # closed at once by the caller
            assert isinstance(request, socket.socket)
            request.settimeout(SOCKET_TIMEOUT_S)
            self.open.add(request)
            return True

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        with self.lock:
            self.open.discard(request)  # type: ignore[arg-type]
        super().shutdown_request(request)

    def admits(self, address: str, code: str) -> bool:
        now = time.monotonic()
        with self.lock:
            misses = [t for t in self.wrong.get(address, []) if now - t < 60]
            if len(misses) >= WRONG_CODES_PER_MINUTE:
                self.wrong[address] = misses
                return False
            if hmac.compare_digest(code.encode()[:16], self.code.encode()):
                return True
            misses.append(now)
            self.wrong[address] = misses
            if len(self.wrong) > 1024:
                self.wrong.clear()  # bounded: a flood of addresses forgets, it never grows
            return False

    def close_all(self) -> None:
        """Every open connection closed (a held long poll ends)."""
        with self.lock:
            sockets = list(self.open)
            self.open.clear()
        for sock in sockets:
            with contextlib.suppress(OSError):  # gone already
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


class ShareServer:
    """The sharing, started on ``host``:``port`` (port 0: any free one), stopped by :meth:`stop`."""

    def __init__(self, host: str, port: int, picture: SharedPicture | None = None) -> None:
        self.picture = picture if picture is not None else SharedPicture()
        self.code = join_code()
        self._server = _Server((host, port), self.picture, self.code)  # OSError: the GM's words say why
        self.host = host
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="lnl-share", daemon=True
        )
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self.picture.stopped

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/?code={self.code}"

    def open_connections(self) -> int:
        with self._server.lock:
            return len(self._server.open)

    def stop(self) -> None:
        """Shut the server and close every open connection; waits for its thread a moment."""
        if self.picture.stopped and not self._thread.is_alive():
            return
        self.picture.stop()
        self._server.shutdown()
        self._server.close_all()
        self._server.server_close()
        self._thread.join(timeout=2)


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses to offer the GM, loopback first. Python's own sockets, not
    Qt's network module (left out of the bundle): the host name's addresses, and the one a UDP
    socket would send from (a UDP connect sends no packet)."""
    found = ["127.0.0.1"]
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # a documentation address: never reached, nothing sent
            found.append(str(probe.getsockname()[0]))
    except OSError:
        pass
    loopback = [a for a in found if a.startswith("127.")][:1]
    others = [a for a in found if not a.startswith("127.") and a != "0.0.0.0"]
    return list(dict.fromkeys(loopback + others))
