"""Publishing a running match to a board: ``jitfish match ... --board PORT``.

The match runner calls ``update`` with a game's record after each move and at its end; the
publisher sends the game's snapshot (variant, start FEN, players, all moves, result) as JSON by
HTTP POST to ``http://127.0.0.1:PORT/api/publish`` from its own thread, so a slow or closed board
never slows the match (a failed post is dropped; the next snapshot carries everything).

>>> pub = BoardPublisher(8765)                                   # doctest: +SKIP
>>> pub.game(1, "courier", START_FEN, "jitfish", "fairymax", ["g3f4"])   # doctest: +SKIP
>>> pub.update(game_record)   # doctest: +SKIP
"""
from __future__ import annotations

import json
import queue
import threading
import urllib.request

__all__ = ["BoardPublisher"]


class BoardPublisher:
    """Sends game snapshots to a running ``jitfish board``."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 2.0):
        self.url = f"http://{host}:{int(port)}/api/publish"
        self.timeout = timeout
        self._q: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="board-publisher", daemon=True)
        self._thread.start()

    def game(self, game_id, variant: str, fen: str, white: str, black: str, moves: list[str],
             result: str | None = None, reason: str = "", comments: list[str] | None = None) -> None:
        """Queue one snapshot (moves in coordinates since ``fen``, each move's comment such as
        ``+0.35/12 0.520s``; ``result`` once it is over:
        that last one is sent at once, so a match that ends right after still delivers it)."""
        snap = {"game": str(game_id), "variant": variant, "fen": fen, "white": white, "black": black,
                "moves": list(moves), "result": result, "reason": reason, "comments": list(comments or [])}
        if result:
            self._post(snap)
        else:
            self._q.put(snap)

    def update(self, rec) -> None:
        """A match's GameRecord (bench/games.py): ``index``, ``white``, ``black``, ``variant``,
        ``start_fen``, ``moves`` (each with ``.uci``), ``result``/``reason`` once finished."""
        result = getattr(rec, "result", None)
        self.game(getattr(rec, "index", 0) + 1, rec.variant, rec.start_fen, rec.white, rec.black,
                  [getattr(m, "uci", m) for m in rec.moves],
                  result if result and result != "*" else None, getattr(rec, "reason", "") or "",
                  [getattr(m, "comment", "") for m in rec.moves])

    def close(self, wait: float = 2.0) -> None:
        """Send what is queued (up to ``wait`` seconds), then stop."""
        self._q.put(None)
        self._thread.join(wait)

    def _run(self) -> None:
        while True:
            ev = self._q.get()
            if ev is None:
                return
            # only the newest snapshot of each game matters
            latest = {ev["game"]: ev}
            stop = False
            while True:
                try:
                    nxt = self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                latest[nxt["game"]] = nxt
            for snap in latest.values():
                self._post(snap)
            if stop:
                return

    def _post(self, snap: dict) -> None:
        req = urllib.request.Request(self.url, data=json.dumps(snap).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        try:
            urllib.request.urlopen(req, timeout=self.timeout).read()
        except OSError:
            pass  # no board listening: the match goes on
