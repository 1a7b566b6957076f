"""The real XBoard 4.9.1 under Xvfb: engine-vs-engine matches with legality testing on and
jitfish at its default engine options (no option is given to it).

- jitfish vs jitfish in ``modcourier`` and its mods and in both Cows and Butterflies set-ups
  (variants jitfish defines for XBoard with ``setup`` and ``piece`` lines; the second engine
  gets ``variant`` + ``setboard`` from XBoard, as XBoard's rules say);
- jitfish vs jitfish from positions that reach a Cow's promotion on the 7th rank, a Soldier's
  promotion and a win by the Aces (started as protocol/XBOARD-NOTES.md says: a one-game PGN
  whose Variant tag is the parent of jitfish's ``setup``, with jitfish's piece table);
- Sjaak II vs jitfish in ``courier`` from Fairy-Stockfish's start (advanced pawns, loaded
  with ``-lpf``; XBoard sends it as ``setboard ... w 0 1``), one game;
- Fairy-Max vs jitfish in ``normal`` (Debian's Fairy-Max 5.0b crashes at random after an
  unknown command, and XBoard sends it ``computer``: XBoard is told to send ``easy`` instead).

Each match plays short games (fast clock, XBoard adjudicating long games and clear wins) and
checks the PGN: every game has a result and none ends by a forfeit, a false claim, an illegal
move or an engine error; XBoard's debug file has no ``Error``/``Illegal move`` line from jitfish;
and ``jitfish match --replay`` (jitfish's rules) agrees with every game XBoard saved. A
screenshot of the board, the PGN and the debug file are kept under ``artifacts/xboard/``
(git-ignored). XBoard and Xvfb come from Debian (``.ci/run`` installs them); without them these
tests fail and say so.
"""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine_process import warm_kernels
from jitfish.bench.games import replay_pgn
from jitfish.movegen import Position, load_spec
from jitfish.protocol.xboard import xboard_view

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts" / "xboard"
GAMES = int(os.environ.get("JITFISH_XBOARD_GAMES", "2"))
TIMEOUT = 420  # seconds for one match
TOOLS = {"xboard": "/usr/games/xboard", "Xvfb": "/usr/bin/Xvfb", "xdotool": "/usr/bin/xdotool",
         "import": "/usr/bin/import", "fairymax": "/usr/games/fairymax"}


def _tool(name: str) -> str:
    path = shutil.which(name) or (TOOLS[name] if os.path.exists(TOOLS[name]) else None)
    if path is None:
        pytest.fail(f"{name} is missing: install Debian's xboard xvfb fairymax xdotool imagemagick "
                    "(.ci/run does)", pytrace=False)
    return path


@pytest.fixture(scope="module")
def display():
    """A private Xvfb display for the module."""
    xvfb = _tool("Xvfb")
    for n in range(91, 120):
        if not os.path.exists(f"/tmp/.X{n}-lock"):
            break
    proc = subprocess.Popen([xvfb, f":{n}", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    if proc.poll() is not None:
        pytest.fail(f"Xvfb :{n} did not start", pytrace=False)
    yield f":{n}"
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module", autouse=True)
def _warm():
    warm_kernels()  # the engines XBoard starts then load every kernel from the cache


def _wrapper(folder: Path, name: str) -> str:
    """A one-word engine command for XBoard (it splits -fcp on spaces), logging to the folder."""
    path = folder / name
    path.write_text(f"#!/bin/sh\nJITFISH_LOG='{folder / (name + '.log')}' exec '{sys.executable}' -c "
                    f"'import sys; from jitfish.cli import main; sys.exit(main())'\n")
    path.chmod(0o755)
    return str(path)


def _screenshot(out: Path, display: str) -> None:
    env = dict(os.environ, DISPLAY=display)
    try:
        ids = subprocess.run([_tool("xdotool"), "search", "--onlyvisible", "--class", "xboard"],
                             env=env, capture_output=True, text=True, timeout=10).stdout.split()
        best, area = "root", -1
        for wid in ids:
            geo = subprocess.run([_tool("xdotool"), "getwindowgeometry", "--shell", wid], env=env,
                                 capture_output=True, text=True, timeout=10).stdout
            w = int(re.search(r"WIDTH=(\d+)", geo).group(1))
            h = int(re.search(r"HEIGHT=(\d+)", geo).group(1))
            if w * h > area:
                best, area = wid, w * h
        subprocess.run([_tool("import"), "-window", best, str(out)], env=env, capture_output=True, timeout=30)
    except (subprocess.SubprocessError, AttributeError, OSError):
        pass


def run_match(tmp_path: Path, display: str, name: str, first: str, second: str, variant: str,
              extra: list[str] = (), games: int = GAMES, tc: tuple[str, str] = ("0:10", "0.1"),
              shot: float = 25) -> tuple[str, str]:
    """Run one XBoard match; returns (pgn text, debug text). Artifacts go to artifacts/xboard."""
    out = ARTIFACTS / name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = dict(os.environ, DISPLAY=display, PATH="/usr/games:" + os.environ.get("PATH", ""))
    args = [_tool("xboard"), "-settingsFile", "/dev/null", "-saveSettingsOnExit", "false",
            "-startupMessage", "", "-xexit", "-debug", "-nameOfDebugFile", str(out / "xboard.debug"),
            "-saveGameFile", str(out / "games.pgn"), "-fcp", first, "-scp", second,
            "-variant", variant, "-mg", str(games), "-tc", tc[0], "-inc", tc[1], "-xponder", "-matchPause", "100",
            "-autoCallFlag", "true", "-materialDraws", "false", "-testLegality", "true",
            "-adjudicateDrawMoves", "100", "-adjudicateLossThreshold", "-1000",
            *extra]
    t0 = time.monotonic()
    with open(out / "xboard.stderr", "wb") as err:
        proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=err, stderr=err)
        shot_at = t0 + shot
        while proc.poll() is None and time.monotonic() - t0 < TIMEOUT:
            if shot_at and time.monotonic() > shot_at:
                _screenshot(out / "board.png", display)
                shot_at = 0
            time.sleep(0.5)
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
            pytest.fail(f"xboard did not finish {name} within {TIMEOUT} s (see {out})", pytrace=False)
    for log in tmp_path.glob("*.log"):
        shutil.copy(log, out / log.name)
    if not (out / "xboard.debug").exists():
        stderr = (out / "xboard.stderr").read_text(errors="replace")[:2000]
        pytest.fail(f"xboard did not run {name}: {stderr}", pytrace=False)
    pgn = (out / "games.pgn").read_text(errors="replace") if (out / "games.pgn").exists() else ""
    debug = (out / "xboard.debug").read_text(errors="replace")
    results = re.findall(r"^{([^}]*)} (\S+)$", pgn, re.M)
    print(f"\n{name}: {time.monotonic() - t0:.0f} s, results {results}")
    return pgn, debug


def check(pgn: str, debug: str, jitfish_is: tuple[str, ...], n_games: int = GAMES, name: str = "") -> None:
    games = re.findall(r'^\[Result "([^"]*)"\]', pgn, re.M)
    assert len(games) == n_games, f"{len(games)} games in the PGN, expected {n_games}"
    assert "*" not in games, f"a game without a result: {games}"
    endings = re.findall(r"^{([^}]*)} (?:1-0|0-1|1/2-1/2)\s*$", pgn, re.M)
    assert len(endings) == n_games, f"every game should say how it ended: {endings}"
    for bad in ("forfeit", "false", "illegal", "error", "invalid", "crash", "exit"):
        hits = [e for e in endings if bad in e.lower()]
        assert not hits, f"games ended badly: {hits}"
    for who in jitfish_is:
        lines = [x for x in debug.splitlines() if f"<{who}" in x and
                 re.search(rf"<{who}\s*: (Error|Illegal move|tellusererror)", x)]
        assert not lines, f"jitfish ({who}) complained: {lines[:5]}"
    if name:  # jitfish's rules agree with every game XBoard saved
        report = io.StringIO()
        assert replay_pgn(str(ARTIFACTS / name / "games.pgn"), out=report) == 0, report.getvalue()
        assert f"{n_games} ok, 0 failed" in report.getvalue(), report.getvalue()


def _two_jitfish(tmp_path: Path) -> tuple[str, str]:
    return _wrapper(tmp_path, "jitfish1"), _wrapper(tmp_path, "jitfish2")


@pytest.mark.parametrize("variant", ["modcourier", "modcourier2", "modcourier3"])
def test_jitfish_vs_jitfish_modcourier(tmp_path, display, variant):
    jf, jf2 = _two_jitfish(tmp_path)
    games = GAMES if variant == "modcourier" else 1
    pgn, debug = run_match(tmp_path, display, variant, jf, jf2, variant, games=games)
    check(pgn, debug, ("first", "second"), games, variant)
    assert "setboard" in debug  # the second engine was given the first one's set-up
    assert re.search(r"<first : setup \(PNBR\.FC\.\.VMKpnbr\.fc\.\.vmk\) 12x8\+0_fairy", debug)


@pytest.mark.parametrize("variant", ["cowsandbutterflies", "cowsandbutterflies-reversed"])
def test_jitfish_vs_jitfish_cowsandbutterflies(tmp_path, display, variant):
    # no option given: every legal move shows in XBoard under jitfish's mapping (the Cow in the
    # pawn slot under the Berolina parent, Butterfly and Monarch as promoted Cow and Soldier)
    jf, jf2 = _two_jitfish(tmp_path)
    pgn, debug = run_match(tmp_path, display, variant, jf, jf2, variant)
    check(pgn, debug, ("first", "second"), GAMES, variant)
    assert re.search(r"<first : setup \(C\.{6}S\.+A\.+\^C=B\.{4}\^S=M\.c", debug)


def _start_pgn(tmp_path: Path, variant: str, fen: str) -> list[str]:
    """XBoard options that start every game of a match from ``fen`` in a variant jitfish
    defines (protocol/XBOARD-NOTES.md, "Starting from a position")."""
    view = xboard_view(variant)
    m = re.match(r"setup \((\S+)\) (\d+)x(\d+)\+0_(\w+) ", view.setup_lines[0])
    table, files, ranks, parent = m.groups()
    path = tmp_path / "start.pgn"
    path.write_text(f'[Event "start"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "-"]\n[White "?"]\n'
                    f'[Black "?"]\n[Result "*"]\n[Variant "{parent}"]\n[FEN "{fen}"]\n[SetUp "1"]\n\n *\n')
    return ["-lgf", str(path), "-lgi", "1", "-pieceToCharTable", table, "-boardWidth", files,
            "-boardHeight", ranks]


# (label, variant, start FEN, what the games must show)
POSITIONS = [
    ("cow-promotion", "cowsandbutterflies", "4a3/8/1C6/8/8/6c1/8/A6a w - - 0 1", r"=\+"),
    ("soldier-promotion", "cowsandbutterflies-reversed", "4a3/2S5/8/8/8/8/5s2/A6a w - - 0 1", r"\+S"),
    ("ace-capture", "cowsandbutterflies", "4a3/7c/4A3/8/8/8/8/A7 w - - 0 1", r"resigns"),
    ("mated-in-one", "cowsandbutterflies", "8/M7/8/8/8/a7/2A5/A7 b - - 0 1", r"resigns"),
]


@pytest.mark.parametrize("label, variant, fen, shows", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_jitfish_vs_jitfish_from_a_position(tmp_path, display, label, variant, fen, shows):
    """Promotions XBoard shows only as "+" moves, and the Aces' win, which XBoard cannot see:
    the loser resigns (at once when every move loses, before XBoard could call the position
    after the capture a stalemate)."""
    Position(variant, fen)  # a legal start
    jf, jf2 = _two_jitfish(tmp_path)
    pgn, debug = run_match(tmp_path, display, label, jf, jf2, variant, _start_pgn(tmp_path, variant, fen),
                           shot=12)
    if label == "mated-in-one":
        # Black resigns before its first move, and XBoard saves no game without moves: its
        # debug file has the endings (a stalemate draw would be "Xboard adjudication: Stalemate")
        ends = [e for e in re.findall(r"^GameEnds\(\d+, ([^,]+), \d+\)", debug, re.M) if e != "(null)"]
        assert set(ends) == {"Black resigns"} and len(ends) >= GAMES, ends  # (XBoard logs some twice)
        assert debug.count("setboard 8/+S7/8/8/8/a7/2A5/A7 b") >= 2 * GAMES  # both engines, every game
        return
    check(pgn, debug, ("first", "second"), GAMES, label)
    starts = {Position(variant, f).fen().split()[0] for f in re.findall(r'^\[FEN "([^"]*)"\]', pgn, re.M)}
    assert starts == {Position(variant, fen).fen().split()[0]}, starts  # every game from the position
    assert re.search(shows, pgn), f"{label}: no {shows!r} in the games"
    if label in ("ace-capture", "mated-in-one"):
        results = re.findall(r'^\[Result "([^"]*)"\]', pgn, re.M)
        assert results == ["1-0"] * GAMES, results  # never a stalemate draw or a false claim


def test_fairymax_vs_jitfish_normal(tmp_path, display):
    jf = _wrapper(tmp_path, "jitfish")
    # Debian's Fairy-Max 5.0b crashes at random (SIGSEGV) after answering an unknown command with
    # `Error (unknown command)`, and XBoard sends it `computer`: XBoard sends `easy` instead (the
    # string is sent verbatim, hence the newline); a match in which XBoard lost Fairy-Max's pipe
    # anyway is played again
    for attempt in range(4):
        pgn, debug = run_match(tmp_path, display, "normal", _tool("fairymax"), jf, "normal",
                               ["-firstComputerString", "easy\n"])
        crashed = re.search(r"Error (writing to|reading from) first chess program", debug + pgn)
        restarted = "<first : Error (unknown command): computer" in debug  # a restarted Fairy-Max
        if not crashed and not restarted and len(re.findall(r"^\[Result ", pgn, re.M)) == GAMES:
            break
        print(f"Fairy-Max crashed (attempt {attempt + 1}); playing the match again")
    else:
        pytest.fail("Fairy-Max crashed in four matches in a row", pytrace=False)
    check(pgn, debug, ("second",), GAMES, "normal")
    assert re.search(r'\[(White|Black) "Fairy-Max', pgn)


def test_sjaakii_vs_jitfish_courier_advanced_start(tmp_path, display):
    fen = tmp_path / "start.fen"
    fen.write_text(load_spec("courier").start_fen + "\n")
    jf = _wrapper(tmp_path, "jitfish")
    pgn, debug = run_match(tmp_path, display, "courier", shutil.which("sjaakii") or "/usr/games/sjaakii",
                           jf, "courier", ["-lpf", str(fen), "-lpi", "1"], games=1)
    check(pgn, debug, ("second",), 1, "courier")
    assert "1ppppp1pppp1/6f5/p5p4p" in pgn  # the game started from the advanced-pawn position
