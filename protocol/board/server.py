"""``jitfish board``: the web server (Starlette on uvicorn) behind the page.

Routes: ``/`` the page, ``/static/...`` its own files, ``/piece/<white|black>/<name>.svg`` a piece
picture in a colour, ``/api/info`` the variants, engines and PGN files, ``/api/publish`` a match
game's snapshot (``BoardPublisher``), ``/ws`` the page's websocket (``session.py``).
The web stack is imported when the board starts, so the engine and the other commands do not
pay for it (``pip install 'jitfish[board]'`` brings it).
"""
from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
import tomllib
import webbrowser
from pathlib import Path
from urllib.parse import urlsplit

from jitfish.engine import Engine, Limits
from jitfish.movegen import Position, variant_names

from .game import BoardGame
from .pieces import PICTURES
from .session import JITFISH, EngineSpec, Hub, Session

__all__ = ["build_app", "main", "parse_engine", "start_in_thread", "warm_up", "STATIC"]

STATIC = Path(__file__).resolve().parent / "static"
# the colours of static/pieces/*.svg (drawn White) and what they become for Black
_WHITE_TO_BLACK = {"#fdfdfd": "#2b2b2b", "#0d0d0d": "#000000", "#0e0e0e": "#f2f2f2"}


def piece_svg(colour: str, name: str) -> str | None:
    if name not in set(PICTURES.values()) or colour not in ("white", "black"):
        return None
    text = (STATIC / "pieces" / f"{name}.svg").read_text()
    if colour == "black":
        for a, b in _WHITE_TO_BLACK.items():
            text = text.replace(a, b)
    return text


def parse_engine(text: str) -> EngineSpec:
    """``--engine`` value: ``cmd=COMMAND[,name=N,proto=auto|uci|xboard]`` or a plain command."""
    if text.startswith("cmd=") or ",cmd=" in text or text.startswith("name="):
        fields = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
        cmd = fields.get("cmd", "")
        name = fields.get("name") or Path(cmd.split()[0]).name if cmd else ""
        spec = EngineSpec(name, cmd, fields.get("proto", "auto"))
    else:
        spec = EngineSpec(Path(text.split()[0]).name if text.split() else "", text)
    if not spec.cmd or not spec.name:
        raise ValueError(f"bad --engine {text!r}: give cmd=COMMAND[,name=NAME,proto=auto|uci|xboard]")
    if spec.name == JITFISH:
        spec.name = f"{JITFISH} ({spec.cmd})"
    return spec


def read_config(path: str) -> list[EngineSpec]:
    """A TOML file with ``[[engine]]`` tables: ``name``, ``cmd``, ``proto``."""
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    out = []
    for e in data.get("engine", []):
        out.append(parse_engine(",".join(f"{k}={e[k]}" for k in ("cmd", "name", "proto") if k in e)))
    return out


def warm_up(hash_mb: int = 16) -> float:
    """Load every kernel the page uses (rules of each variant, search) before the server answers."""
    t0 = time.perf_counter()
    for name in variant_names():
        try:
            g = BoardGame(name)
            g.state()
            m = g.pos.legal_moves()
            if m:
                g.play(m[0])
                g.state()
        except Exception:  # a user's broken variant file shows its error when it is chosen
            pass
    Engine(hash_mb).search(Position("chess"), Limits(depth=2))
    return time.perf_counter() - t0


def build_app(hub: Hub):
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def index(request):
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def piece(request):
        text = piece_svg(request.path_params["colour"], request.path_params["name"])
        if text is None:
            return Response("no such piece picture", status_code=404)
        return Response(text, media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})

    async def info(request):
        return JSONResponse({"variants": variant_names(), "engines": hub.engine_names(),
                             "pgn": hub.pgn_summary(), "watch": hub.watch_order})

    async def publish(request):
        # JSON only: a web page elsewhere cannot send that to this port without a CORS preflight,
        # which is never answered
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"ok": False, "error": "send application/json"}, status_code=415)
        try:
            ev = json.loads(await request.body())
            problem = hub.publish(ev)
        except Exception as exc:  # a bad event must not stop the board
            return JSONResponse({"ok": False, "error": str(exc)}, status_code=400)
        return JSONResponse({"ok": not problem, "error": problem})

    async def ws_endpoint(ws: WebSocket):
        origin = ws.headers.get("origin")
        if origin and urlsplit(origin).netloc != ws.headers.get("host"):
            await ws.close(code=1008)  # only the board's own page may drive it
            return
        await ws.accept()
        session = Session(hub, asyncio.get_running_loop())
        hub.sessions.add(session)

        async def sender():
            while True:
                msg = await session.out.get()
                await ws.send_text(json.dumps(msg))

        task = asyncio.create_task(sender())
        try:
            while True:
                text = await ws.receive_text()
                try:
                    msg = json.loads(text)
                except ValueError:
                    session.error("not JSON")
                    continue
                # each message runs on its own so an engine's thinking does not block the page
                asyncio.create_task(session.handle(msg if isinstance(msg, dict) else {}))
        except WebSocketDisconnect:
            pass
        finally:
            hub.sessions.discard(session)
            session.close()
            task.cancel()

    routes = [Route("/", index), Route("/piece/{colour}/{name}.svg", piece), Route("/api/info", info),
              Route("/api/publish", publish, methods=["POST"]), WebSocketRoute("/ws", ws_endpoint),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    return Starlette(routes=routes)


def start_in_thread(engines: list[EngineSpec] = (), pgn_files: list[str] = (), host: str = "127.0.0.1",
                    port: int = 0, hash_mb: int = 16):
    """Serve the board from a daemon thread of this process (tests, scripts): returns
    (server, url); ``server.should_exit = True`` stops it."""
    import uvicorn

    hub = Hub(list(engines), [str(Path(p).resolve()) for p in pgn_files], hash_mb)
    warm_up(hash_mb)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((host, port))
    server = uvicorn.Server(uvicorn.Config(build_app(hub), log_level="warning", ws="auto", lifespan="off"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return server, f"http://{host}:{sock.getsockname()[1]}/"


def main(port: int = 8765, host: str = "127.0.0.1", browser: bool = True, engines: list[str] = (),
         config: str | None = None, pgn_files: list[str] = (), hash_mb: int = 16) -> int:
    """Run the board until Ctrl-C. Prints ``jitfish board: http://HOST:PORT/`` once it answers."""
    try:
        import uvicorn
    except ImportError:
        print("Error: the board needs its web stack: pip install 'jitfish[board]'", file=sys.stderr)
        return 2
    try:
        specs = [parse_engine(e) for e in engines]
        if config:
            specs += read_config(config)
    except (ValueError, OSError, tomllib.TOMLDecodeError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    for path in pgn_files:
        if not Path(path).is_file():
            print(f"Error: no PGN file {path}", file=sys.stderr)
            return 2
    hub = Hub(specs, [str(Path(p).resolve()) for p in pgn_files], hash_mb)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        print(f"Error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    secs = warm_up(hash_mb)
    real_port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{real_port}/"
    config_ = uvicorn.Config(build_app(hub), log_level="warning", ws="auto", lifespan="off")
    server = uvicorn.Server(config_)

    def announce() -> None:
        while not server.started:
            time.sleep(0.02)
        print(f"jitfish board: {url} (kernels ready in {secs:.1f} s; Ctrl-C stops)", flush=True)
        if browser:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[sock])
    return 0
