"""``jitfish board`` in a real browser: Debian's headless Chromium driven by Selenium, through
the page contract only (``data-square``, ``data-piece``, ``#fen``, ``#result``, the set-up URL).

The rules oracle here is ``Position``: every FEN the page shows must be one the rules reach.
Screenshots go to artifacts/board/ (git-ignored); ``JITFISH_BOARD_DOCS=1`` also writes the
README's pictures, docs/board/<variant>.png.
"""
from __future__ import annotations

import doctest
import importlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from jitfish.movegen import Position, variant_names
from jitfish.movegen import kernels as K

webdriver = pytest.importorskip("selenium.webdriver")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from selenium.webdriver import ActionChains  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from jitfish.protocol.board import BoardPublisher  # noqa: E402
from jitfish.protocol.board.server import start_in_thread  # noqa: E402
from jitfish.protocol.board.session import EngineSpec  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "artifacts" / "board"
DOCS = ROOT / "docs" / "board"
CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
VARIANTS = ["chess", "courier", "modcourier", "modcourier2", "modcourier3", "cowsandbutterflies",
            "cowsandbutterflies-reversed", "cleopatra"]
MOVETIME = 150  # ms
REPLY_TIMES: list[float] = []  # seconds from the person's move shown to jitfish's reply shown
PAINTS: list[float] = []

pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
                                reason="needs Debian's chromium and chromium-driver (tests/install-peers.sh)")


@pytest.fixture(scope="module")
def pgn_file(tmp_path_factory) -> Path:
    """Two games: one of jitfish's own PGNs (courier) and an XBoard-style one (chess, SAN with checks)."""
    pos = Position("courier")
    for text in ("b2b3", "b7b6", "f2f3", "f7f6"):
        pos.push(text)
    xboard = ('[Event "Computer chess game"]\n[Site "host"]\n[Date "2026.12.01"]\n[Round "-"]\n'
              '[White "fairymax"]\n[Black "jitfish"]\n[Result "0-1"]\n[TimeControl "40/300"]\n\n'
              '1. f3 {+0.10/8} e5 2. g4 Qh4# {Black mates}\n0-1\n')
    path = tmp_path_factory.mktemp("pgn") / "games.pgn"
    path.write_text(pos.pgn(White="a", Black="b") + "\n\n" + xboard)
    return path


@pytest.fixture(scope="module")
def board(pgn_file):
    mover = f"{sys.executable} {ROOT / 'tests' / 'engines' / 'randommover.py'} --proto xboard"
    engines = [EngineSpec("random", mover), EngineSpec("crash", mover + " --crash-at 1"),
               EngineSpec("hang", mover + " --hang-at 1")]
    server, url = start_in_thread(engines, pgn_files=[str(pgn_file)])
    yield url
    server.should_exit = True


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="jitfish-chromium-")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1300,900",
              f"--user-data-dir={profile}"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    ART.mkdir(parents=True, exist_ok=True)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def text(drv, id_: str) -> str:
    return drv.find_element(By.ID, id_).text.strip()


def open_page(drv, base: str, query: str) -> None:
    drv.get(base + "?" + query)
    WebDriverWait(drv, 10).until(lambda d: text(d, "fen") or text(d, "error"))


def click(drv, square: str) -> None:
    drv.find_element(By.CSS_SELECTOR, f'[data-square="{square}"]').click()


def wait_fen(drv, old: str, timeout: float = 10.0) -> str:
    WebDriverWait(drv, timeout, poll_frequency=0.02).until(lambda d: text(d, "fen") != old)
    return text(drv, "fen")


def promotion_choices(drv) -> set[str]:
    """Wait for the page's promotion choice; the piece letters it offers."""
    WebDriverWait(drv, 5).until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-piece]"))
    return {e.get_attribute("data-piece") for e in drv.find_elements(By.CSS_SELECTOR, "[data-piece]")}


def choose(drv, letter: str) -> None:
    drv.find_element(By.CSS_SELECTOR, f'[data-piece="{letter}"]').click()


def play(drv, pos: Position, m: int, check_marks: bool = False) -> None:
    """Click the move's origin and destination (and its promotion choice); with ``check_marks``
    the destinations the page marks after the first click must be exactly the legal ones."""
    name = pos.move_name(m)
    files = pos.spec.files
    fr, to = K.move_from(m), K.move_to(m)
    sq = lambda s: "abcdefghijklmnop"[s % files] + str(s // files + 1)  # noqa: E731
    click(drv, sq(fr))
    if check_marks:
        marked = {e.get_attribute("data-square") for e in drv.find_elements(By.CSS_SELECTOR, ".sq.dest")}
        assert marked == {sq(K.move_to(x)) for x in pos.legal_moves() if K.move_from(x) == fr}
    click(drv, sq(to))
    if K.move_promo(m):
        promotion_choices(drv)
        choose(drv, name[-1])


def children(fen: str, variant: str) -> dict[str, int]:
    pos = Position(variant, fen)
    out = {}
    for m in pos.legal_moves():
        pos.push(m)
        out[pos.fen()] = m
        pos.pop()
    return out


def shot(drv, name: str, docs: bool = False) -> Path:
    path = ART / f"{name}.png"
    drv.save_screenshot(str(path))
    if docs and os.environ.get("JITFISH_BOARD_DOCS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, DOCS / f"{name}.png")
    return path


def test_shipped_variants_are_the_ones_tested():
    assert set(VARIANTS) <= set(variant_names())


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_against_jitfish(board, browser, variant):
    """Four moves of the person (random legal ones), each answered by jitfish within
    movetime + 0.5 s; every FEN the page shows is a legal successor of the one before."""
    drv = browser
    open_page(drv, board, f"variant={variant}&engine=jitfish&color=white&movetime={MOVETIME}")
    paint = drv.execute_script("return window.jitfishFirstPaint")
    assert paint is not None and paint < 1000, f"first paint {paint} ms after navigation"
    PAINTS.append(paint)
    fen = text(drv, "fen")
    assert fen == Position(variant).fen()
    rng = random.Random(variant)
    for _ in range(4):
        pos = Position(variant, fen)
        if pos.outcome():
            break
        m = rng.choice(pos.legal_moves())
        expect = children(fen, variant)
        seen = len(drv.execute_script("return window.jitfishLog"))
        play(drv, pos, m, check_marks=True)
        pos.push(m)
        after = pos.fen()
        assert after in expect
        over = pos.outcome() is not None
        want = 1 if over else 3  # the person's move, the engine thinking, its reply
        WebDriverWait(drv, MOVETIME / 1000 + 5, poll_frequency=0.05).until(
            lambda d: len(d.execute_script("return window.jitfishLog")) >= seen + want)
        log = drv.execute_script("return window.jitfishLog")[seen:]
        assert log[0]["fen"] == after, f"{variant}: the page shows {log[0]['fen']} after {pos.move_name(m)} from {fen}"
        if over:
            break
        reply = log[-1]["fen"]
        took = (log[-1]["t"] - log[0]["t"]) / 1000
        assert reply in children(after, variant), f"{variant}: jitfish's reply {reply} is not legal"
        assert took <= MOVETIME / 1000 + 0.5, f"{variant}: reply shown after {took:.2f} s"
        REPLY_TIMES.append(took)
        WebDriverWait(drv, 2).until(lambda d: text(d, "fen") == reply)
        fen = reply
    WebDriverWait(drv, 5).until(lambda d: "PV" in text(d, "analysis"))
    shot(drv, variant, docs=True)
    print(f"{variant}: first paint {paint:.0f} ms; replies {', '.join(f'{t:.2f}' for t in REPLY_TIMES[-4:])} s")


def test_illegal_moves_are_refused_with_a_reason(board, browser):
    drv = browser
    open_page(drv, board, "variant=chess")
    fen = text(drv, "fen")
    click(drv, "e2")
    click(drv, "e5")
    WebDriverWait(drv, 5).until(lambda d: "illegal" in text(d, "error"))
    assert text(drv, "fen") == fen
    click(drv, "e7")
    click(drv, "e6")
    WebDriverWait(drv, 5).until(lambda d: "side to move" in text(d, "error"))
    assert text(drv, "fen") == fen
    # every legal move of the start is offered: its destinations are marked on click
    pos = Position("chess")
    click(drv, "g1")
    marked = {e.get_attribute("data-square") for e in drv.find_elements(By.CSS_SELECTOR, ".sq.dest")}
    assert marked == {pos.move_name(m)[2:4] for m in pos.legal_moves() if pos.move_name(m).startswith("g1")}
    shot(drv, "illegal-move")


def test_cleopatra_conversion_is_shown(board, browser):
    drv = browser
    fen = "4k3/8/8/3n4/8/8/8/3QK3 w - - 0 1"
    open_page(drv, board, f"variant=cleopatra&fen={quote(fen)}")
    click(drv, "d1")
    click(drv, "d4")
    after = wait_fen(drv, fen)
    assert after == "4k3/8/8/3N4/3Q4/8/8/4K3 b - - 0 1"
    sq = drv.find_element(By.CSS_SELECTOR, '[data-square="d5"]')
    assert "converted" in sq.get_attribute("class")
    assert "/piece/white/knight.svg" in sq.find_element(By.TAG_NAME, "img").get_attribute("src")
    assert "converted" in text(drv, "changes")
    shot(drv, "cleopatra-conversion")


def test_modcourier_promotes_only_to_lost_pieces(board, browser):
    drv = browser
    fen = "5k6/1P10/12/12/12/12/12/RNCBMK1VBC1R w - - 0 1"  # White has lost a knight and the ferz
    pos = Position("modcourier", fen)
    legal = {pos.move_name(m)[-1] for m in pos.legal_moves() if pos.move_name(m).startswith("b7b8")}
    assert legal == {"n", "f"}
    open_page(drv, board, f"variant=modcourier&fen={quote(fen)}")
    click(drv, "b7")
    click(drv, "b8")
    assert promotion_choices(drv) == legal
    shot(drv, "modcourier-promotion")
    choose(drv, "f")
    after = wait_fen(drv, fen)
    assert after.startswith("1F3k6/12/")


def test_cow_promotes_on_the_seventh_rank(board, browser):
    drv = browser
    fen = "a7/8/2C5/8/8/8/8/A6a w - - 0 1"
    open_page(drv, board, f"variant=cowsandbutterflies&fen={quote(fen)}")
    click(drv, "c6")
    click(drv, "d7")
    assert promotion_choices(drv) == {"b"}
    choose(drv, "b")
    after = wait_fen(drv, fen)
    assert after.split()[0] == "a7/3B4/8/8/8/8/8/A6a"
    assert "promoted" in drv.find_element(By.CSS_SELECTOR, '[data-square="d7"]').get_attribute("class")
    shot(drv, "cow-promotion")


def test_capturing_both_aces_wins(board, browser):
    drv = browser
    fen = "8/8/8/8/8/a7/8/A7 w - - 0 1"
    open_page(drv, board, f"variant=cowsandbutterflies&fen={quote(fen)}")
    click(drv, "a1")
    click(drv, "a3")
    WebDriverWait(drv, 5).until(lambda d: text(d, "result"))
    assert text(drv, "result") == "1-0 Black's Aces captured"
    shot(drv, "aces-captured")


def test_a_pgn_replayed_move_by_move(board, browser, pgn_file):
    drv = browser
    open_page(drv, board, "pgn=0&game=0")
    pos = Position("courier")
    assert text(drv, "fen") == pos.fen()
    for mv in ("b2b3", "b7b6", "f2f3", "f7f6"):
        old = text(drv, "fen")
        drv.find_element(By.ID, "next").click()
        pos.push(mv)
        assert wait_fen(drv, old) == pos.fen()
    drv.find_element(By.ID, "first").click()
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen") == Position("courier").fen())
    # the XBoard game: checks and mate in SAN, the result with its reason
    open_page(drv, board, "pgn=0&game=1")
    drv.find_element(By.ID, "last").click()
    WebDriverWait(drv, 5).until(lambda d: text(d, "result"))
    assert text(drv, "result") == "0-1 Black mates"
    shot(drv, "pgn-replay")


def test_bad_url_input_shows_an_error_and_the_server_goes_on(board, browser):
    drv = browser
    open_page(drv, board, "variant=nosuchvariant")
    assert "nosuchvariant" in text(drv, "error")
    open_page(drv, board, "variant=chess&fen=" + quote("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"))
    assert text(drv, "error")
    shot(drv, "bad-fen")
    open_page(drv, board, "variant=chess&engine=" + quote("rm -rf /"))
    assert "unknown engine" in text(drv, "error")
    open_page(drv, board, "variant=courier")
    assert text(drv, "fen") == Position("courier").fen() and not text(drv, "error")


def test_a_match_watched_live(board, browser):
    drv = browser
    pub = BoardPublisher(int(board.rsplit(":", 1)[1].strip("/")))
    start = Position("courier").fen()
    pub.game(1, "courier", start, "engine A", "engine B", ["b2b3"])
    pub.close()
    open_page(drv, board, "watch=latest")
    pos = Position("courier")
    pos.push("b2b3")
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen") == pos.fen())
    pub = BoardPublisher(int(board.rsplit(":", 1)[1].strip("/")))
    pub.game(1, "courier", start, "engine A", "engine B", ["b2b3", "b7b6"], "1/2-1/2", "adjudicated draw")
    pub.close()
    pos.push("b7b6")
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen") == pos.fen())
    WebDriverWait(drv, 5).until(lambda d: text(d, "result") == "1/2-1/2 adjudicated draw")
    shot(drv, "watch")


def test_take_back_flip_and_download(board, browser):
    drv = browser
    open_page(drv, board, f"variant=courier&engine=jitfish&color=white&movetime={MOVETIME}")
    start = text(drv, "fen")
    click(drv, "b2")
    click(drv, "b3")
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen").split()[1] == "w" and text(d, "fen") != start)
    drv.find_element(By.ID, "undo").click()
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen") == start)
    first = lambda d: d.find_element(By.CSS_SELECTOR, "[data-square]").get_attribute("data-square")  # noqa: E731
    assert first(drv) == "a8"
    drv.find_element(By.ID, "flip").click()
    assert first(drv) == "l1"
    click(drv, "b2")
    click(drv, "b3")
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen").split()[1] == "w" and text(d, "fen") != start)
    drv.find_element(By.ID, "download").click()
    pgn = lambda d: d.find_element(By.ID, "pgn").get_attribute("value")  # noqa: E731
    WebDriverWait(drv, 5).until(lambda d: "[Variant" in pgn(d))
    assert '[Variant "courier"]' in pgn(drv) and "1. b3 " in pgn(drv)


def test_another_engine_through_the_client(board, browser):
    drv = browser
    open_page(drv, board, "variant=modcourier&engine=random&color=black&movetime=200")
    fen = text(drv, "fen")
    if fen.split()[1] == "w":
        fen = wait_fen(drv, fen)
    assert fen in children(Position("modcourier").fen(), "modcourier")
    pos = Position("modcourier", fen)
    play(drv, pos, pos.legal_moves()[0])
    pos.push(pos.legal_moves()[0])
    WebDriverWait(drv, 8).until(lambda d: text(d, "fen") not in (fen, pos.fen()))
    assert text(drv, "fen") in children(pos.fen(), "modcourier")


@pytest.mark.parametrize("engine", ["crash", "hang"])
def test_a_failing_engine_leaves_the_game(board, browser, engine):
    drv = browser
    open_page(drv, board, f"variant=chess&engine={engine}&color=white&movetime=200")
    click(drv, "e2")
    click(drv, "e4")
    WebDriverWait(drv, 8).until(lambda d: "failed" in text(d, "error"))
    pos = Position("chess")
    pos.push("e2e4")
    assert text(drv, "fen") == pos.fen()
    shot(drv, f"engine-{engine}")


def test_check_and_a_clock(board, browser):
    drv = browser
    fen = "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1"
    open_page(drv, board, f"variant=chess&fen={quote(fen)}&engine=jitfish&color=white&tc=30%2B1")
    king = drv.find_element(By.CSS_SELECTOR, '[data-square="e1"]')
    assert "check" in king.get_attribute("class")
    assert re.search(r"\u23f1 0:(30|29)\.\d", text(drv, "player-bottom")), text(drv, "player-bottom")
    click(drv, "e1")
    click(drv, "e2")
    WebDriverWait(drv, 5).until(lambda d: text(d, "result"))
    assert "Insufficient material" in text(drv, "result")


@pytest.mark.parametrize("name", ["jitfish.protocol.board.game", "jitfish.protocol.board.pieces"])
def test_docstring_examples(name):
    res = doctest.testmod(importlib.import_module(name))
    assert res.attempted > 0 and res.failed == 0


def test_the_command_and_a_piece_without_a_picture(browser):
    """The real ``jitfish board`` command, with a user's variant file (Capablanca's archbishop and
    chancellor have no picture: their letters in a hexagon)."""
    proc = subprocess.Popen([sys.executable, "-m", "jitfish.cli", "board", "--no-browser", "--port", "0",
                             "--variants", str(ROOT / "tests" / "variants" / "capablanca.toml")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("jitfish board: http://127.0.0.1:"), line + proc.stderr.read()
        url = line.split()[2]
        drv = browser
        t0 = time.monotonic()
        open_page(drv, url, "variant=capablanca")
        assert time.monotonic() - t0 < 5
        assert text(drv, "fen").startswith("rnabqkbcnr/pppppppppp/10/")
        for square, letter in (("c1", "A"), ("h1", "C")):
            fallback = drv.find_element(By.CSS_SELECTOR, f'[data-square="{square}"] .fallback')
            assert fallback.text == letter and "white" in fallback.get_attribute("class")
        assert "archbishop" in drv.find_element(By.CSS_SELECTOR, '[data-square="c8"] .fallback').get_attribute("title")
        shot(drv, "fallback-capablanca")
    finally:
        proc.terminate()
        proc.wait(10)


def test_only_the_boards_own_page_drives_it(board):
    """A page from another origin cannot open the websocket, nor post a game as plain text."""
    ws_url = board.replace("http://", "ws://") + "ws"
    with pytest.raises(Exception):
        with connect(ws_url, origin="http://evil.example") as ws:
            ws.send('{"type": "setup", "variant": "chess"}')
            ws.recv(timeout=5)
    with connect(ws_url, origin=board.rstrip("/")) as ws:
        ws.send('{"type": "setup", "variant": "chess"}')
        assert '"fen"' in ws.recv(timeout=5)
    req = urllib.request.Request(board + "api/publish", data=b'{"game": "x"}', method="POST",
                                 headers={"Content-Type": "text/plain"})
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(req, timeout=5)


def test_new_game_from_a_fen_and_a_pasted_pgn(board, browser):
    drv = browser
    open_page(drv, board, "variant=chess")
    drv.find_element(By.CSS_SELECTOR, "#setup-box summary").click()
    drv.find_element(By.ID, "s-variant").send_keys("courier")
    fen = "6k5/12/12/12/12/12/5P6/6K5 w - - 0 1"
    drv.find_element(By.ID, "s-fen").send_keys(fen)
    drv.find_element(By.ID, "start").click()
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen") == fen)
    assert "variant=courier" in drv.current_url
    drv.find_element(By.CSS_SELECTOR, "#setup-box summary").click()
    drv.find_element(By.ID, "s-pgn-text").send_keys('[Variant "cleopatra"]\n\n1. e4 e5 2. Qh5 *')
    drv.find_element(By.ID, "s-pgn-go").click()
    WebDriverWait(drv, 5).until(lambda d: text(d, "status").startswith("replay"))
    drv.find_element(By.ID, "last").click()
    pos = Position("cleopatra")
    for mv in ("e2e4", "e7e5", "d1h5"):
        pos.push(mv)
    WebDriverWait(drv, 5).until(lambda d: text(d, "fen") == pos.fen())


def test_a_move_by_drag(board, browser):
    drv = browser
    open_page(drv, board, "variant=modcourier2")
    fen = text(drv, "fen")
    src = drv.find_element(By.CSS_SELECTOR, '[data-square="b1"]')
    dst = drv.find_element(By.CSS_SELECTOR, '[data-square="c3"]')
    ActionChains(drv).click_and_hold(src).move_to_element(dst).release(dst).perform()
    pos = Position("modcourier2")
    pos.push("b1c3")
    assert wait_fen(drv, fen) == pos.fen()
