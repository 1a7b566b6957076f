"""The ``jitfish`` command: perft output format, variants, help.

A few runs are real processes (the installed ``jitfish`` script, as a user runs it); the rest
call ``jitfish.cli.main`` in-process, which is faster and shows the same output.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from jitfish.cli import main
from jitfish.movegen import Position

LINE = re.compile(r"^([a-p]\d{1,2}[a-p]\d{1,2}[a-z]?): (\d+)$")
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def _cli() -> list[str]:
    exe = shutil.which("jitfish")
    return [exe] if exe else [sys.executable, "-m", "jitfish.cli"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(_cli() + list(args), capture_output=True, text=True, timeout=300,
                          env=dict(os.environ))


def _nodes(stdout: str) -> int:
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    assert lines, "no output"
    m = re.fullmatch(r"Nodes searched: (\d+)", lines[-1])
    assert m, f"last line is {lines[-1]!r}, not 'Nodes searched: N'"
    return int(m.group(1))


def _divide(stdout: str) -> dict[str, int]:
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    out = {}
    for ln in lines[:-1]:
        m = LINE.fullmatch(ln)
        assert m, f"{ln!r} is not a 'MOVE: COUNT' line"
        assert m.group(1) not in out, f"{m.group(1)} twice"
        out[m.group(1)] = int(m.group(2))
    return out


def test_divide_real_process():
    r = _run("perft", "2", "--divide")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    nodes = _nodes(r.stdout)
    div = _divide(r.stdout)
    assert nodes == 400 == sum(div.values())
    assert len(div) == 20 and set(div.values()) == {20}
    assert set(div) == {Position("chess").move_name(m) for m in Position("chess").legal_moves()}


def test_variant_courier_real_process():
    r = _run("perft", "2", "--variant", "courier")
    assert r.returncode == 0, r.stderr
    assert _nodes(r.stdout) == 678  # Fairy-Stockfish (pyffish 0.0.90), built-in courier
    assert r.stdout.strip().splitlines()[-1] == "Nodes searched: 678"


def test_help_real_process():
    r = _run("--help")
    assert r.returncode == 0 and "perft" in r.stdout
    r = _run("perft", "--help")
    assert r.returncode == 0
    for opt in ("--variant", "--fen", "--divide", "DEPTH"):
        assert opt in r.stdout


@pytest.mark.parametrize("args,nodes", [
    (["perft", "1"], 20),
    (["perft", "3"], 8902),
    (["perft", "0"], 1),
    (["perft", "3", "--fen", KIWIPETE], 97862),
    (["perft", "2", "--variant", "normal"], 400),
    (["perft", "1", "--variant", "courier"], 26),
    (["perft", "2", "--variant", "courier-modified"], 731),
    (["perft", "2", "-v", "cowsandbutterflies"], 1837),
    (["perft", "3", "--variant", "cleopatra"], 8868),
])
def test_perft_in_process(args, nodes, capsys):
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert _nodes(out) == nodes
    assert "Traceback" not in err


@pytest.mark.parametrize("variant,fen,depth", [
    pytest.param("chess", KIWIPETE, 2, id="kiwipete"),
    pytest.param("courier", None, 2, id="courier"),
    pytest.param("modcourier3", None, 2, id="modcourier3"),
    pytest.param("cowsandbutterflies-reversed", None, 2, id="cows-reversed"),
    pytest.param("cleopatra", "rnb1kbr1/1p1p1ppP/p3p2n/1Pp5/2PB3p/P2Q1qpb/r2PPp2/1N2K1Nr b q - 0 14", 2,
                 id="cleopatra-promotions"),
])
def test_divide_in_process(variant, fen, depth, capsys):
    args = ["perft", str(depth), "--divide", "--variant", variant] + (["--fen", fen] if fen else [])
    assert main(args) == 0
    out, _ = capsys.readouterr()
    nodes = _nodes(out)
    div = _divide(out)
    assert sum(div.values()) == nodes
    p = Position(variant, fen)
    assert div == p.divide(depth)
    assert nodes == p.perft(depth)


def test_negative_depth_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["perft", "-1"])
    assert info.value.code == 2


def test_variants_command(capsys):
    assert main(["variants"]) == 0
    out = capsys.readouterr().out
    for v in ("chess", "courier", "modcourier", "cleopatra", "cowsandbutterflies-reversed"):
        assert re.search(rf"^{re.escape(v)}\b", out, re.M), v


def test_a_reader_that_goes_away_is_no_error():
    """``jitfish variants | head -1``: the reader closes the pipe before the output is written; the
    command ends with no traceback (the Python documentation's SIGPIPE recipe, cli._closed_pipe_ok)."""
    proc = subprocess.Popen(_cli() + ["variants"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the engine's modules have loaded: every write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_broken_pipe_elsewhere_is_still_an_error(capsys):
    """Only standard output's reader going away is quiet; a broken pipe to anything else (an engine
    a match drives) still raises."""
    from jitfish import cli

    def run():
        raise BrokenPipeError("an engine's stdin")
    with pytest.raises(BrokenPipeError, match="engine"):
        cli._closed_pipe_ok(run)
