"""Write the perft EPD files of the rules no outside engine implements, from slow_rules.py.

    python tests/reference/make_data.py            # both files, default seed
    python tests/reference/make_data.py --seed 7 --max-nodes 300000

Outputs (paths relative to the repository root):
- tests/perft/cleopatra.epd
- tests/perft/cowsandbutterflies-rights.epd
- tests/reference/data_manifest.txt   (why each EPD line was chosen)

How positions are chosen: seeded random games (uniform moves, with a bias towards
conversions / captures so that material thins and the decisive rules come into play) give a
pool of positions. Each pool position gets feature tags (see CLEOPATRA_FEATURES and
COWS_FEATURES); for each feature in turn a few positions having it are picked from the shuffled
pool. Each line then gets every perft depth whose count stays within --max-nodes.
The same seed always gives the same files.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from slow_rules import (  # noqa: E402
    CLEOPATRA, COWS, COWS_REVERSED, START_FEN, Position, generate, is_game_over, make,
    move_text, parse_fen, perft_position, relative_rank, to_fen, colour_of, forward,
)

ROOT = Path(__file__).resolve().parents[2]
ORACLE_LINE = ("# oracle: tests/reference/slow_rules.py (independent pure-Python implementation; "
               "depth-1 lists checked by hand in test_slow_rules.py)")
MAX_DEPTH = 6


# ---------------------------------------------------------------------------------------------
# Random games
# ---------------------------------------------------------------------------------------------

def converted_count(pos: Position, move) -> int:
    """Pieces converted by a Cleopatra move (0 for every other move)."""
    after = make(pos, move)
    return sum(1 for sq, p in after.board.items()
               if sq in pos.board and sq != move[0] and colour_of(p) != colour_of(pos.board[sq]))


def is_capture(pos: Position, move) -> bool:
    return move[1] in pos.board


def random_game(variant: str, rng: random.Random, max_plies: int, bias: float):
    """Positions of one game, each as (position, flags): flags is the set of squares whose
    piece has been converted at least once in the game (Cleopatra; empty for cows)."""
    pos = parse_fen(variant, START_FEN[variant])
    flags: set = set()
    out = []
    for _ in range(max_plies):
        moves = generate(pos)
        if not moves:
            break
        if variant == CLEOPATRA:
            special = [m for m in moves if pos.board[m[0]].upper() in "QP"
                       and converted_count(pos, m) > 0]
        else:
            special = [m for m in moves if is_capture(pos, m)]
        move = rng.choice(special) if special and rng.random() < bias else rng.choice(moves)
        after = make(pos, move)
        if variant == CLEOPATRA:
            frm, to, _ = move
            if frm in flags:
                flags = (flags - {frm}) | {to}
            if pos.board[frm].upper() == "K" and abs(to[0] - frm[0]) == 2:
                rank = frm[1]
                rook_from, rook_to = ((7, rank), (5, rank)) if to[0] == 6 else ((0, rank), (3, rank))
                if rook_from in flags:
                    flags = (flags - {rook_from}) | {rook_to}
            flags = flags | {sq for sq, p in after.board.items()
                             if sq in pos.board and sq != frm
                             and colour_of(p) != colour_of(pos.board[sq])}
        pos = after
        out.append((pos, frozenset(flags)))
    return out


# ---------------------------------------------------------------------------------------------
# Features
# ---------------------------------------------------------------------------------------------

def children(pos: Position):
    return [(m, make(pos, m)) for m in generate(pos)]


def game_over_at_ply2(pos: Position) -> bool:
    """The opponent has a reply to some move of ours that ends the game."""
    for _, child in children(pos):
        if any(is_game_over(grandchild) for _, grandchild in children(child)):
            return True
    return False


def enemy_cleopatra_lines(pos: Position) -> set:
    """Squares on a line of an enemy Cleopatra (up to and including the first piece)."""
    seen = set()
    for sq, p in pos.board.items():
        if p.upper() != "Q" or colour_of(p) == pos.turn:
            continue
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if df == dr == 0:
                    continue
                f, r = sq[0] + df, sq[1] + dr
                while 0 <= f < 8 and 0 <= r < 8:
                    seen.add((f, r))
                    if (f, r) in pos.board:
                        break
                    f, r = f + df, r + dr
    return seen


def cleo_features(pos: Position, flags) -> dict:
    """Cheap feature tests; expensive ones are in LAZY and computed only when needed."""
    us = pos.turn
    moves = generate(pos)
    texts = [move_text(m) for m in moves]
    conv = [converted_count(pos, m) for m in moves]
    castles = [m for m in moves if pos.board[m[0]].upper() == "K" and abs(m[1][0] - m[0][0]) == 2]
    lines = enemy_cleopatra_lines(pos)
    converted_pawns = [sq for sq, p in pos.board.items() if p.upper() == "P" and sq in flags]
    ours_converted_double = [sq for sq in converted_pawns
                             if colour_of(pos.board[sq]) == us
                             and sq[1] == relative_rank(us, 2)
                             and (sq[0], sq[1] + 2 * forward(us)) not in pos.board
                             and (sq[0], sq[1] + forward(us)) not in pos.board]
    enemy_king = "k" if us == "w" else "K"
    return {
        "game over (king converted): no moves": is_game_over(pos),
        "a move converts 3+ pieces at once": any(c >= 3 for c in conv),
        "a move converts 2 pieces at once": any(c == 2 for c in conv),
        "a move converts the enemy king": any(
            enemy_king not in make(pos, m).board.values() for m in moves
            if pos.board[m[0]].upper() in "QP"),
        "castling while king or its path is on an enemy Cleopatra line": any(
            {m[0], m[1], ((m[0][0] + m[1][0]) // 2, m[0][1])} & lines for m in castles),
        "castling available": bool(castles),
        "promotion available": any(len(t) == 5 for t in texts),
        "promotion to Cleopatra converts": any(
            len(move_text(m)) == 5 and m[2] == "q" and c > 0 for m, c in zip(moves, conv)),
        "converted pawn double-steps from its owner's 2nd rank": bool(ours_converted_double),
        "converted pawns on the board": len(converted_pawns) >= 2,
        "converted rook or king on a castling square": any(
            pos.board.get(sq, " ").upper() in "RK" and sq in flags
            for sq in ((0, 0), (7, 0), (4, 0), (0, 7), (7, 7), (4, 7))),
    }


def cows_features(pos: Position, flags) -> dict:
    us, them = pos.turn, ("b" if pos.turn == "w" else "w")
    moves = generate(pos)
    texts = [move_text(m) for m in moves]

    def second_rank_cows(colour):
        cow = "C" if colour == "w" else "c"
        rank = relative_rank(colour, 2)
        ahead = rank + forward(colour)
        cows = [sq for sq, p in pos.board.items() if p == cow and sq[1] == rank]
        moved = [sq for sq in cows if sq not in pos.rights and (sq[0], ahead) not in pos.board]
        unmoved = [sq for sq in cows if sq in pos.rights and (sq[0], ahead) not in pos.board]
        return moved, unmoved

    my_moved, my_unmoved = second_rank_cows(us)
    their_moved, _ = second_rank_cows(them)
    enemy_ace = "a" if us == "w" else "A"
    enemy_aces = [sq for sq, p in pos.board.items() if p == enemy_ace]
    return {
        "game over (no Ace): no moves": is_game_over(pos),
        "a move captures the last enemy Ace": len(enemy_aces) == 1 and any(
            m[1] == enemy_aces[0] for m in moves),
        "moved and unmoved cows side by side on the mover's 2nd rank": bool(my_moved and my_unmoved),
        "moved cow on the mover's 2nd rank, square ahead empty": bool(my_moved),
        "moved cow on the opponent's 2nd rank, square ahead empty": bool(their_moved),
        "cow promotion to Butterfly by capture": any(
            t.endswith("b") and is_capture(pos, m) for m, t in zip(moves, texts)),
        "cow promotion to Butterfly": any(t.endswith("b") for t in texts),
        "soldier promotion to Monarch": any(t.endswith("m") for t in texts),
        "promoted Butterfly or Monarch on the board": any(
            sum(1 for p in pos.board.values() if p == k) >= 2 for k in "BbMm"),
    }


# (feature name, how many lines to pick)
CLEOPATRA_FEATURES = [
    ("game over (king converted): no moves", 2),
    ("a move converts the enemy king", 3),
    ("the opponent can convert our king at ply 2", 2),
    ("a move converts 3+ pieces at once", 2),
    ("a move converts 2 pieces at once", 2),
    ("promotion to Cleopatra converts", 2),
    ("promotion available", 1),
    ("converted pawn double-steps from its owner's 2nd rank", 2),
    ("converted pawns on the board", 1),
    ("converted rook or king on a castling square", 1),
    ("castling while king or its path is on an enemy Cleopatra line", 2),
    ("castling available", 1),
]
COWS_FEATURES = [
    ("game over (no Ace): no moves", 2),
    ("a move captures the last enemy Ace", 3),
    ("the opponent can capture our last Ace at ply 2", 1),
    ("moved and unmoved cows side by side on the mover's 2nd rank", 3),
    ("moved cow on the mover's 2nd rank, square ahead empty", 2),
    ("moved cow on the opponent's 2nd rank, square ahead empty", 2),
    ("cow promotion to Butterfly by capture", 2),
    ("cow promotion to Butterfly", 2),
    ("soldier promotion to Monarch", 2),
    ("promoted Butterfly or Monarch on the board", 1),
]
LAZY = {
    "the opponent can convert our king at ply 2":
        lambda pos: not is_game_over(pos) and game_over_at_ply2(pos),
    "the opponent can capture our last Ace at ply 2":
        lambda pos: not is_game_over(pos) and game_over_at_ply2(pos),
}


# ---------------------------------------------------------------------------------------------
# Selection and perft
# ---------------------------------------------------------------------------------------------

def perft_line(pos: Position, max_nodes: int) -> list[int]:
    counts = [perft_position(pos, 1)]
    while len(counts) < MAX_DEPTH:
        if counts[-1] == 0:
            if len(counts) < 2:
                counts.append(0)
            break
        growth = counts[-1] / counts[-2] if len(counts) > 1 and counts[-2] else counts[-1]
        if counts[-1] * growth > 3 * max_nodes:
            break
        n = perft_position(pos, len(counts) + 1)
        if n > max_nodes:
            break
        counts.append(n)
    return counts


def select(variant: str, pool, features, feature_fn, rng: random.Random):
    """For each feature, pick ``wanted`` new positions having it from the shuffled pool (fewer
    if the pool has fewer). Returns [(position, [feature it was picked for, other tags])]."""
    order = list(range(len(pool)))
    rng.shuffle(order)
    cache: dict[int, dict] = {}
    chosen: dict[str, tuple[Position, list[str]]] = {}
    for name, wanted in tqdm(features, desc=f"{variant}: features", leave=False):
        got = 0
        for i in order:
            if got >= wanted:
                break
            pos, flags = pool[i]
            fen = to_fen(pos)
            if fen in chosen:
                continue
            if i not in cache:
                cache[i] = feature_fn(pos, flags)
            has = LAZY[name](pos) if name in LAZY else cache[i][name]
            if has:
                tags = [n for n, v in cache[i].items() if v and n != name]
                chosen[fen] = (pos, [name] + tags)
                got += 1
    return list(chosen.values())


def build(variant: str, start_fens: list[str], features, feature_fn, args, rng):
    pool = []
    for _ in tqdm(range(args.games), desc=f"{variant}: random games", leave=False):
        pool += random_game(variant, rng, args.plies, args.bias)
    picked = select(variant, pool, features, feature_fn, rng)
    lines, manifest = [], []
    entries = [(parse_fen(variant, f), ["start position"]) for f in start_fens] + picked
    for pos, tags in tqdm(entries, desc=f"{variant}: perft", leave=False):
        counts = perft_line(pos, args.max_nodes)
        fen = to_fen(pos)
        lines.append(fen + "".join(f" ;D{d} {n}" for d, n in enumerate(counts, 1)))
        manifest.append(f"{fen} | " + "; ".join(tags))
    return lines, manifest


def write_epd(path: Path, variant: str, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# variant: {variant}\n{ORACLE_LINE}\n" + "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--plies", type=int, default=160)
    parser.add_argument("--bias", type=float, default=0.35,
                        help="chance of playing a converting (cleopatra) / capturing (cows) move")
    parser.add_argument("--max-nodes", type=int, default=300_000)
    parser.add_argument("--out", type=Path, default=ROOT / "tests")
    args = parser.parse_args()

    manifest = [f"# Why each EPD line was chosen (make_data.py --seed {args.seed} "
                f"--games {args.games} --plies {args.plies} --bias {args.bias} "
                f"--max-nodes {args.max_nodes}). fen | feature tags"]
    rng = random.Random(args.seed)
    lines, notes = build(CLEOPATRA, [START_FEN[CLEOPATRA]], CLEOPATRA_FEATURES, cleo_features,
                         args, rng)
    write_epd(args.out / "perft" / "cleopatra.epd", CLEOPATRA, lines)
    manifest += ["", "## tests/perft/cleopatra.epd"] + notes

    rng = random.Random(args.seed + 1)
    lines, notes = build(COWS, [START_FEN[COWS], START_FEN[COWS_REVERSED]], COWS_FEATURES,
                         cows_features, args, rng)
    write_epd(args.out / "perft" / "cowsandbutterflies-rights.epd", COWS, lines)
    manifest += ["", "## tests/perft/cowsandbutterflies-rights.epd "
                 "(the rules of cowsandbutterflies-reversed are the same; its start is line 2)"] + notes
    (args.out / "reference").mkdir(parents=True, exist_ok=True)
    (args.out / "reference" / "data_manifest.txt").write_text("\n".join(manifest) + "\n")
    for line in manifest:
        print(line)


if __name__ == "__main__":
    main()
