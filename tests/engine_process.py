"""A real ``jitfish`` engine process on pipes, for the process, fuzz and latency tests."""
from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time


def engine_command() -> list[str]:
    """The installed ``jitfish`` command, or the same entry point through this Python."""
    exe = shutil.which("jitfish")
    if exe:
        return [exe]
    return [sys.executable, "-c", "import sys; from jitfish.cli import main; sys.exit(main())"]


def warm_kernels() -> None:
    """Compile (or load) every kernel in this process, so engine processes start warm."""
    from jitfish.protocol.host import EngineHost

    host = EngineHost()
    host.start_warmup()
    assert host.ready.wait(1800), "warm-up did not finish"
    assert host.error is None, host.error


class EngineProcess:
    """``jitfish`` with stdin/stdout pipes; output lines are kept with their arrival times."""

    def __init__(self, log_path: str, extra_env: dict[str, str] | None = None):
        env = dict(os.environ, JITFISH_LOG=str(log_path), **(extra_env or {}))
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, bufsize=0)
        self.lines: queue.Queue = queue.Queue()
        self.all: list[tuple[float, str]] = []
        self.sent_at: dict[str, float] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            item = (time.perf_counter(), raw.decode("utf-8", "replace").rstrip("\r\n"))
            self.all.append(item)
            self.lines.put(item)
        self.lines.put((time.perf_counter(), None))

    def send(self, line: str) -> float:
        t = time.perf_counter()
        self.sent_at[line] = t
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        return t

    def send_raw(self, data: bytes) -> None:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def expect(self, predicate, timeout: float, what: str = "") -> tuple[float, str]:
        """The next line for which ``predicate(line)`` is true (others are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {what or 'matching line'} within {timeout} s; last lines: "
                                     f"{[x for _, x in self.all[-15:]]}")
            try:
                t, line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"engine closed its output before {what}; last lines: "
                                     f"{[x for _, x in self.all[-15:]]}; stderr: {self.stderr()!r}")
            if predicate(line):
                return t, line

    def expect_line(self, text: str, timeout: float) -> float:
        return self.expect(lambda x: x == text, timeout, repr(text))[0]

    def expect_prefix(self, prefix: str, timeout: float) -> tuple[float, str]:
        return self.expect(lambda x: x.startswith(prefix), timeout, repr(prefix + "..."))

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read().decode("utf-8", "replace")

    def close(self, timeout: float = 10.0) -> int:
        if self.proc.poll() is None:
            self.send("quit")
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode

    def xboard_handshake(self, timeout: float = 600.0) -> tuple[float, float]:
        """``xboard``/``protover 2``; returns the delays to ``feature done=0`` and ``done=1``."""
        self.send("xboard")
        t_sent = self.send("protover 2")
        t0 = self.expect_line("feature done=0", timeout)
        t1 = self.expect_line("feature done=1", timeout)
        return t0 - t_sent, t1 - t_sent
