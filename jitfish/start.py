"""The ``jitfish`` process entry: a GUI's ``protover`` is answered at once, then the rest loads.

Importing the engine (numba, numpy and every layer of jitfish) takes half a second or more
before a line could be answered, and XBoard wants ``feature done=0`` soon after ``protover 2``
(with it, XBoard waits for ``done=1`` as long as the kernels take). So, with no arguments, this
entry reads standard input itself from the first moment, in a thread: a ``protover`` of 2 or
more arriving while the engine still loads is answered with ``feature done=0`` from here, and
every line read is handed to the engine loop once it runs (``EarlyInput.attach``), in order.

This module imports only the standard library at its top. The one jitfish import it makes is
inside ``main``, after the reader has started: the reason it exists, and the only import inside
a function that tests/test_layers.py allows (it is the top of the package: nothing is above it).
"""
from __future__ import annotations

import sys
import threading
from typing import Callable

__all__ = ["main", "EarlyInput"]


class EarlyInput:
    """Standard input read from process start; ``attach`` hands it to the engine loop."""

    def __init__(self, stream=None, out=None):
        self._stream = stream if stream is not None else sys.stdin.buffer
        self._out = out if out is not None else sys.stdout
        self._lock = threading.Lock()
        self._held: list[str | None] = []  # lines read before attach; None is the end of input
        self._feed: Callable[[str], None] | None = None
        self._eof: Callable[[], None] | None = None
        self.done0_sent = False
        threading.Thread(target=self._read, name="jitfish-reader", daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self._stream:
                self._line(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        self._line(None)

    def _line(self, line: str | None) -> None:
        with self._lock:
            if self._feed is None:
                self._held.append(line)
                if line is not None and self._is_protover_2(line) and not self.done0_sent:
                    try:
                        self._out.write("feature done=0\n")
                        self._out.flush()
                        self.done0_sent = True
                    except (OSError, ValueError):
                        pass
                return
        if line is None:
            self._eof()
        else:
            self._feed(line)

    @staticmethod
    def _is_protover_2(line: str) -> bool:
        words = line.split()
        return len(words) == 2 and words[0] == "protover" and words[1].isdigit() and int(words[1]) >= 2

    def attach(self, feed: Callable[[str], None], eof: Callable[[], None]) -> None:
        """From now on every line goes to ``feed`` (the end of input to ``eof``); the lines held
        so far go first, in order."""
        with self._lock:
            held, self._held = self._held, []
            for line in held:
                if line is None:
                    eof()
                else:
                    feed(line)
            self._feed, self._eof = feed, eof


def main() -> int:
    early = None if sys.argv[1:] else EarlyInput()  # no arguments: the engine, on stdin
    from jitfish.cli import main as cli_main

    return cli_main(early=early)


if __name__ == "__main__":
    sys.exit(main())
