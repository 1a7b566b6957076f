"""A user's own variant file plays everywhere, as real processes run it.

The variant files are copied out of the repository first (a user's file lives anywhere), then
used the four ways the README gives: ``jitfish --variants FILE perft``, UCI ``VariantPath`` +
``UCI_Variant`` + ``go perft`` and ``go``, CECP ``option VariantPath=FILE`` + ``variant`` +
``go``, and ``jitfish match --variants FILE``.  Perft counts come from the variant's perft file
(pyffish, see tests/perft/make_variant_oracle.py).  Bad files are refused with the key named,
and the engine goes on.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from engine_process import EngineProcess, engine_command, warm_kernels
from oracles import PERFT_DIR, TEST_VARIANTS, parse_epd

VARIANTS = ["shatranj", "capablanca"]


@pytest.fixture(scope="module", autouse=True)
def _warm():
    warm_kernels()  # engine processes then load the kernels from the cache


def _start_count(name: str, depth: int) -> int:
    ef = parse_epd(PERFT_DIR / f"{name}.epd")
    return next(line for line in ef.lines if line.label == "start").counts[depth]


@pytest.fixture
def user_file(tmp_path: Path, request) -> Path:
    dest = tmp_path / "my variants" / f"{request.param}.toml"
    dest.parent.mkdir()
    shutil.copy(TEST_VARIANTS / f"{request.param}.toml", dest)
    return dest


def _jitfish(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(engine_command() + list(args), capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("user_file", VARIANTS, indirect=True)
def test_perft_on_the_command_line(user_file: Path) -> None:
    name = user_file.stem
    r = _jitfish("--variants", str(user_file), "perft", "3", "--variant", name)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == f"Nodes searched: {_start_count(name, 3)}"
    r = _jitfish("variants", "--variants", str(user_file.parent))
    assert re.search(rf"^{name}: .*\[from .*; weights derived from the pieces\]$", r.stdout, re.M), r.stdout


@pytest.mark.parametrize("user_file", VARIANTS, indirect=True)
def test_uci_variant_path(user_file: Path, tmp_path: Path) -> None:
    name = user_file.stem
    eng = EngineProcess(tmp_path / "uci.log")
    try:
        eng.send("uci")
        eng.expect_line("uciok", 600)
        eng.send(f"setoption name VariantPath value {user_file}")
        _, line = eng.expect_prefix("option name UCI_Variant", 30)
        assert f" var {name} " in line + " ", line
        eng.send(f"setoption name UCI_Variant value {name}")
        eng.send("isready")
        eng.expect_line("readyok", 600)
        eng.send("go perft 3")
        eng.expect_line(f"Nodes searched: {_start_count(name, 3)}", 60)
        eng.send("position startpos")
        eng.send("go depth 3")
        _, best = eng.expect_prefix("bestmove ", 60)
        assert re.fullmatch(r"bestmove [a-p]\d{1,2}[a-p]\d{1,2}[a-z]?( ponder \S+)?", best)
        eng.send("setoption name VariantPath value /no/such/file.toml")
        _, said = eng.expect_prefix("info string VariantPath", 10)
        assert "no such variant file" in said
        eng.send("isready")
        eng.expect_line("readyok", 10)
    finally:
        assert eng.close() == 0


@pytest.mark.parametrize("user_file", VARIANTS, indirect=True)
def test_cecp_variant_path(user_file: Path, tmp_path: Path) -> None:
    name = user_file.stem
    eng = EngineProcess(tmp_path / "cecp.log")
    try:
        eng.xboard_handshake()
        eng.send(f"option VariantPath={user_file}")
        _, feat = eng.expect_prefix("feature variants=", 30)
        assert name in feat.split('"')[1].split(","), feat
        eng.send("new")
        eng.send(f"variant {name}")
        eng.send("ping 1")
        setup = []
        while True:
            _, line = eng.expect(lambda x: True, 30)
            if line == "pong 1":
                break
            if not line.startswith("#"):
                setup.append(line)
        assert setup and setup[0].startswith("setup ("), setup
        assert sum(1 for x in setup if x.startswith("piece ")) >= 5
        eng.send("sd 3")
        eng.send("go")
        _, move = eng.expect_prefix("move ", 60)
        assert re.fullmatch(r"move [a-p]\d{1,2}[a-p]\d{1,2}[a-z+]?", move)
        eng.send("option VariantPath=/no/such/dir")
        _, err = eng.expect_prefix("Error (bad variant file", 10)
        assert "no such variant file" in err
        eng.send("ping 2")
        eng.expect_line("pong 2", 10)
    finally:
        assert eng.close() == 0


@pytest.mark.parametrize("user_file", VARIANTS, indirect=True)
def test_match_hands_the_file_to_the_engines(user_file: Path, tmp_path: Path) -> None:
    name = user_file.stem
    pgn = tmp_path / "m.pgn"
    cmd = shlex.join(engine_command())
    r = _jitfish("match", "--variants", str(user_file), "--variant", name, "--games", "2", "--depth", "2",
                 "--maxmoves", "30", "--engine", f"cmd={cmd},name=a", "--engine", f"cmd={cmd},proto=uci,name=b",
                 "--pgn", str(pgn), "--no-progress", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^Score of a vs b: \d+ - \d+ - \d+ +\[[\d.]+\] 2$", r.stdout, re.M), r.stdout
    text = pgn.read_text()
    assert text.count(f'[Variant "{name}"]') == 2
    assert "rules infraction" not in text and "abandoned" not in text
    r = _jitfish("--variants", str(user_file), "match", "--replay", str(pgn))
    assert r.returncode == 0 and "2 ok, 0 failed" in r.stdout, r.stdout + r.stderr


def test_a_bad_file_is_refused_by_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    text = (TEST_VARIANTS / "shatranj.toml").read_text().replace('betza = "A"', 'betza = "A"\nrange = 3')
    bad.write_text(text)
    r = _jitfish("check", str(bad))
    assert r.returncode == 2
    assert "pieces.B: unknown key 'range'" in r.stderr, r.stderr
    r = _jitfish("--variants", str(bad), "perft", "1")
    assert r.returncode == 2 and "unknown key 'range'" in r.stderr
    bad.write_text(text.replace("range = 3\n", "").replace('stalemate = "loss"', 'stalemate = "lose"'))
    r = _jitfish("check", str(bad))
    assert r.returncode == 2 and "stalemate must be one of draw, loss, not 'lose'" in r.stderr, r.stderr


def test_a_weight_files_search_table_is_shown_and_checked(tmp_path: Path) -> None:
    """A user's ``<name>.weights.toml`` with a ``[search]`` table: ``jitfish variants`` and
    ``jitfish check`` show its numbers; an unknown name in it makes ``check`` fail with the
    file and the name, and ``variants`` note it instead of stopping."""
    shutil.copy(TEST_VARIANTS / "shatranj.toml", tmp_path / "shatranj.toml")
    weights = tmp_path / "shatranj.weights.toml"
    pieces = "".join(f"[pieces.{p}]\nvalue = {v}\n" for p, v in zip("KQBNRP", (0, 150, 100, 300, 500, 100)))
    weights.write_text(pieces + "[search]\nhist_tt = 1\nlmp_depth = 5\n")
    r = _jitfish("--variants", str(tmp_path), "variants")
    assert r.returncode == 0 and re.search(r"^shatranj\b.*own search numbers: hist_tt=1, lmp_depth=5", r.stdout, re.M), \
        r.stdout + r.stderr
    r = _jitfish("check", str(tmp_path / "shatranj.toml"))
    assert r.returncode == 0 and "search numbers (over the engine's defaults): hist_tt=1, lmp_depth=5" in r.stdout, \
        r.stdout + r.stderr
    weights.write_text(pieces + "[search]\nprune_everything = 1\n")
    r = _jitfish("check", str(tmp_path / "shatranj.toml"))
    assert r.returncode == 2 and "shatranj.weights.toml: [search]: unknown search parameters ['prune_everything']" \
        in r.stderr, r.stdout + r.stderr
    weights.write_text(pieces + "[search]\nhist_tt = \"yes\"\n")
    r = _jitfish("--variants", str(tmp_path), "variants")
    assert r.returncode == 0 and re.search(r"^shatranj\b.*bad weights: .*search.hist_tt must be an integer", r.stdout,
                                           re.M), r.stdout + r.stderr


def test_environment_variable_adds_variants(tmp_path: Path) -> None:
    shutil.copy(TEST_VARIANTS / "losalamos.toml", tmp_path / "losalamos.toml")
    env = dict(os.environ, JITFISH_VARIANTS=str(tmp_path))
    r = subprocess.run(engine_command() + ["perft", "2", "--variant", "losalamos"], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0 and r.stdout.strip().endswith(f"Nodes searched: {_start_count('losalamos', 2)}"), \
        r.stdout + r.stderr
