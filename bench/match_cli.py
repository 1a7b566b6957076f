"""``jitfish match`` on the command line: engine settings, options, the config and the run.

    jitfish match --variant courier --games 20 --tc 10+0.1 --concurrency 2 --pgn out.pgn \\
        --engine cmd=fairymax --engine cmd=jitfish,option.Hash=64
    jitfish match --replay out.pgn          # re-check a PGN with jitfish's rules

In the spirit of cutechess-cli and fastchess: two engines given as command lines (UCI or CECP,
see ``jitfish.protocol.client``) play N games, in pairs with the same opening and the colours
swapped. Every move is checked with ``jitfish.movegen.Position``; the game ends on the rules'
verdict (``Position.outcome()``), on adjudication, or on a fault (see ``game.py``).
"""
from __future__ import annotations

import argparse
import random
import re
import secrets
import shlex
import signal
import sys
import threading
from typing import Sequence

from jitfish.movegen import VariantError, load_spec
from jitfish.movegen.spec import is_shipped, variant_file
from jitfish.protocol.board import BoardPublisher
from jitfish.protocol.client import EngineConfig, Limits, format_seconds

from .adjudication import Adjudication
from .game import FatalMatchError, MatchConfig
from .games import replay_pgn
from .match import Match
from .scheduler import MatchState, state_path
from .openings import Opening, load_openings, random_opening
from .stats import Sprt, SprtModel

__all__ = ["add_match_parser", "build_config", "engine_config", "run_match"]


_ENGINE_KEYS = ("cmd", "name", "proto", "dir", "stderr", "variant", "tc", "st", "depth", "nodes")


def _split_engine_spec(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """``cmd=fairymax,name=FM option.Hash=64`` -> key/value pairs. A comma starts a new pair
    only when ``key=`` follows it, so commands may contain commas."""
    pairs = []
    for tok in tokens:
        for part in re.split(r",(?=(?:option\.[^=,]+|[a-z]+)=)", tok):
            if not part:
                continue
            if "=" not in part:
                raise ValueError(f"bad engine setting {part!r}: expected key=value")
            k, v = part.split("=", 1)
            pairs.append((k.strip(), v))
    return pairs


def engine_config(tokens: Sequence[str], each: Sequence[str] = ()) -> EngineConfig:
    """Build an EngineConfig from ``--engine`` settings (``--each`` settings first)."""
    cfg = EngineConfig(cmd="")
    limits: dict = {}
    for k, v in _split_engine_spec(list(each) + list(tokens)):
        if k.startswith("option."):
            cfg.options[k[7:]] = v
        elif k == "cmd":
            cfg.cmd = v
        elif k in ("name", "proto", "dir", "stderr", "variant"):
            setattr(cfg, k, v)
        elif k == "tc":
            limits["tc"] = Limits.parse(v)
        elif k == "st":
            limits["movetime"] = float(v)
        elif k == "depth":
            limits["depth"] = int(v)
        elif k == "nodes":
            limits["nodes"] = int(v)
        else:
            raise ValueError(f"unknown engine setting {k!r} (known: {', '.join(_ENGINE_KEYS)}, option.NAME)")
    if not cfg.cmd:
        raise ValueError("an engine needs cmd=COMMAND")
    if limits:
        base = limits.pop("tc", Limits())
        cfg.limits = base.with_(**limits)
    return cfg


def add_match_parser(sub) -> argparse.ArgumentParser:
    """Add ``jitfish match`` to the ``jitfish`` command's subparsers."""
    p = sub.add_parser(
        "match", help="engine-vs-engine matches in any variant, refereed by jitfish's rules",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play engine-vs-engine matches (UCI or CECP engines) in any jitfish variant,\n"
                    "every move checked by jitfish's rules. Games come in pairs: the same opening\n"
                    "with the colours swapped.",
        epilog="engine settings (--engine/--each, comma- or space-separated key=value):\n"
               "  cmd=COMMAND  name=NAME  proto=auto|uci|xboard  dir=DIR  option.NAME=VALUE\n"
               "  stderr=FILE  variant=NAME (name sent to the engine)  tc=TC st=SEC depth=N nodes=N\n\n"
               "examples:\n"
               "  jitfish match --variant courier --games 20 --tc 10+0.1 --concurrency 2 \\\n"
               "      --pgn out.pgn --engine cmd=fairymax --engine cmd=jitfish,option.Hash=64\n"
               "  jitfish match --variants ./shatranj.toml --variant shatranj --engine cmd=jitfish \\\n"
               "      --engine cmd=fairy-stockfish,proto=uci --rounds 10\n"
               "  jitfish match --scheduler tcp://10.0.0.1:8786 --rounds 500 --pgn big.pgn --engine cmd=/opt/new/jitfish \\\n"
               "      --engine cmd=/opt/old/jitfish    # on Dask workers: the engines must exist on every worker\n"
               "  jitfish match ... --pgn big.pgn --resume    # after a Ctrl-C or a crash: the missing games only\n"
               "  jitfish match --replay out.pgn\n\n"
               "A variant from --variants FILE is handed to every engine with a VariantPath option\n"
               "(jitfish, Fairy-Stockfish) before the game; other engines must know it already.")
    p.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                   help="an engine (give it twice): cmd=COMMAND[,name=...,proto=...,option.X=Y]")
    p.add_argument("--each", nargs="+", default=[], metavar="KEY=VALUE", help="settings for both engines")
    p.add_argument("--variant", "-v", default="chess", help="variant name or alias (default: chess)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--games", type=int, help="number of games (colours alternate; default 2)")
    g.add_argument("--rounds", type=int, help="number of game pairs (2 games each, colours swapped)")
    p.add_argument("--tc", default=None, help="time control [MOVES/]SECONDS[+INC], e.g. 10+0.1, 40/60, 1:30+1, inf "
                                              "(default 10+0.1 unless --st, --depth or --nodes is given)")
    p.add_argument("--st", type=float, default=None, help="seconds per move (UCI movetime, CECP st)")
    p.add_argument("--depth", type=int, default=None, help="search depth per move")
    p.add_argument("--nodes", type=int, default=None, help="nodes per move (UCI nodes, CECP nps)")
    p.add_argument("--timemargin", type=float, default=100, metavar="MS",
                   help="milliseconds an engine may overstep its clock or movetime (default 100)")
    p.add_argument("--hang-timeout", type=float, default=60, metavar="SEC",
                   help="seconds to wait for a move with no clock (depth/nodes); then the engine loses (default 60)")
    p.add_argument("--start-timeout", type=float, default=120, metavar="SEC",
                   help="seconds an engine may take to start or answer ping/isready (default 120)")
    p.add_argument("--openings", metavar="FILE", help="EPD/FEN file of start positions (one per game pair)")
    p.add_argument("--openings-order", choices=("sequential", "random"), default="sequential")
    p.add_argument("--random-plies", type=int, default=0, metavar="K",
                   help="start each pair from K random plies ending in a balanced position (after --openings if given)")
    p.add_argument("--seed", type=int, default=None, help="seed for the openings (printed; default random)")
    p.add_argument("--concurrency", "-j", type=int, default=1,
                   help="games played at once on local threads (without --scheduler)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT|local:N",
                   help="play the game pairs on Dask workers (needs 'jitfish[cluster]'): the workers of a "
                        "running 'dask scheduler' (any number of machines), or local:N for N local worker "
                        "processes. The engine commands (and --variants files) must exist on every worker "
                        "at the same paths; results, PGN and SPRT are gathered here")
    p.add_argument("--resume", action="store_true",
                   help="continue the interrupted match of --pgn FILE from FILE.state.json (same arguments; "
                        "the seed is taken from the state file): finished pairs are not played again")
    p.add_argument("--pgn", metavar="FILE", help="append the games to this PGN file (created if missing)")
    p.add_argument("--draw", metavar="SPEC", help="draw adjudication: movenumber=N,movecount=M,score=CP")
    p.add_argument("--resign", metavar="SPEC", help="resign adjudication: movecount=M,score=CP[,twosided=true]")
    p.add_argument("--maxmoves", type=int, help="adjudicate a draw after this many full moves")
    p.add_argument("--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]", help="stop when the SPRT reaches a verdict")
    p.add_argument("--sprt-model", choices=[str(m) for m in SprtModel], default=str(SprtModel.LOGISTIC),
                   help="what elo0/elo1 mean and how the LLR is computed: logistic Elo as in the table "
                        "(default), normalized Elo or bayesian (fastchess), cutechess (cutechess-cli's BayesElo)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the Elo estimate and its error band (needs matplotlib)")
    p.add_argument("--debug", metavar="FILE", help="log every protocol line to this file")
    p.add_argument("--board", metavar="PORT", type=int, help="show the games live on jitfish board --port PORT")
    p.add_argument("--event", default="jitfish match", help="PGN Event tag")
    prog = p.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="show the progress bar even when stderr is not a terminal")
    prog.add_argument("--no-progress", dest="progress", action="store_false")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per finished game")
    p.add_argument("--replay", metavar="PGN", help="re-check the games of a PGN with jitfish's rules and exit")
    p.set_defaults(func=run_match)
    return p


def _command_line(args: argparse.Namespace, seed: int | None) -> str:
    """The command that repeats this match (the seed made explicit)."""
    argv = ["jitfish", "match", "--variant", args.variant]
    for tokens in args.engine:
        argv += ["--engine", *tokens]
    if args.each:
        argv += ["--each", *args.each]
    if args.rounds is not None:
        argv += ["--rounds", str(args.rounds)]
    else:
        argv += ["--games", str(args.games if args.games is not None else 2)]
    for opt in ("tc", "st", "depth", "nodes", "openings", "draw", "resign", "maxmoves", "sprt", "plot", "pgn"):
        v = getattr(args, opt)
        if v is not None:
            argv += [f"--{opt}", format_seconds(v) if isinstance(v, float) else str(v)]
    if args.openings:
        argv += ["--openings-order", args.openings_order]
    if args.random_plies:
        argv += ["--random-plies", str(args.random_plies)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if args.sprt:
        argv += ["--sprt-model", args.sprt_model]
    if args.concurrency != 1:
        argv += ["--concurrency", str(args.concurrency)]
    if getattr(args, "scheduler", None):
        argv += ["--scheduler", args.scheduler]
    if args.timemargin != 100:
        argv += ["--timemargin", format_seconds(args.timemargin)]
    if args.hang_timeout != 60:
        argv += ["--hang-timeout", format_seconds(args.hang_timeout)]
    return shlex.join(argv)


def build_config(args: argparse.Namespace) -> MatchConfig:
    """A MatchConfig from parsed ``jitfish match`` arguments (ValueError on bad input)."""
    variant = load_spec(args.variant).name
    if len(args.engine) != 2:
        raise ValueError(f"give exactly two engines with --engine (got {len(args.engine)})")
    engines = [engine_config(tokens, args.each) for tokens in args.engine]
    if not is_shipped(variant):
        # a variant from a user's file: engines with a VariantPath option (jitfish,
        # Fairy-Stockfish) get the file before the variant is checked
        for ec in engines:
            if "VariantPath" not in ec.options:
                ec.variant_path = str(variant_file(variant))
    if args.tc is not None:
        limits = Limits.parse(args.tc)
    elif args.st is None and args.depth is None and args.nodes is None:
        limits = Limits(base=10, inc=0.1)
    else:
        limits = Limits()
    limits = limits.with_(movetime=args.st, depth=args.depth, nodes=args.nodes)
    if limits == Limits() and not all(e.limits for e in engines):
        raise ValueError("--tc inf needs --st, --depth or --nodes: nothing would end a search")
    for v, what in ((args.st, "--st"), (args.depth, "--depth"), (args.nodes, "--nodes")):
        if v is not None and v <= 0:
            raise ValueError(f"{what} must be > 0")
    if args.rounds is not None:
        games = 2 * args.rounds
    else:
        games = args.games if args.games is not None else 2
    if games < 1:
        raise ValueError("play at least one game")
    if args.concurrency < 1:
        raise ValueError("--concurrency must be >= 1")
    needs_seed = args.random_plies > 0 or args.openings_order == "random"
    seed = args.seed
    resume = getattr(args, "resume", False)
    scheduler = getattr(args, "scheduler", None)
    if resume:
        if not args.pgn:
            raise ValueError("--resume needs the --pgn FILE of the interrupted match")
        if seed is None:  # the interrupted run's seed: the same openings
            try:
                seed = MatchState.load(state_path(args.pgn)).seed
            except (OSError, ValueError, TypeError) as exc:
                raise ValueError(f"--resume: cannot read {state_path(args.pgn)}: {exc}") from None
    if scheduler and not (scheduler.startswith("local:") or "://" in scheduler):
        raise ValueError(f"bad --scheduler {scheduler!r}: give tcp://HOST:PORT or local:N")
    if seed is None and needs_seed:
        seed = secrets.randbelow(2**31)
    pairs = (games + 1) // 2
    rng = random.Random(seed)
    bases: list[str | None]
    if args.openings:
        fens = load_openings(args.openings, variant)
        if args.openings_order == "random":
            rng.shuffle(fens)
        bases = [fens[i % len(fens)] for i in range(pairs)]
    else:
        bases = [None] * pairs
    openings = []
    if args.random_plies < 0:
        raise ValueError("--random-plies must be >= 0")
    seen: set[tuple[str | None, tuple[str, ...]]] = set()
    for fen in bases:
        if args.random_plies:
            op = random_opening(variant, args.random_plies, rng, fen)
            for _ in range(20):
                if (op.fen, op.moves) not in seen:
                    break
                op = random_opening(variant, args.random_plies, rng, fen)
            seen.add((op.fen, op.moves))
        else:
            op = Opening(fen or load_spec(variant).start_fen)
        openings.append(op)
    sprt = Sprt.parse(args.sprt, args.sprt_model) if args.sprt else None
    return MatchConfig(
        engines=engines, variant=variant, games=games, limits=limits, openings=openings,
        concurrency=args.concurrency, pgn=args.pgn,
        adjudication=Adjudication.build(args.draw, args.resign, args.maxmoves), sprt=sprt,
        timemargin=args.timemargin / 1000.0, hang_timeout=args.hang_timeout,
        start_timeout=args.start_timeout, event=args.event, debug=args.debug, plot=args.plot,
        progress=args.progress, quiet=args.quiet, command=_command_line(args, seed), seed=seed,
        scheduler=scheduler, resume=resume, board=BoardPublisher(args.board) if args.board else None)


def run_match(args: argparse.Namespace) -> int:
    """``jitfish match``: run a match (or ``--replay`` a PGN); returns the exit status."""
    if args.replay:
        try:
            return replay_pgn(args.replay, None if args.variant == "chess" else args.variant)
        except OSError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    try:
        cfg = build_config(args)
    except (ValueError, VariantError, OSError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print(f"# {cfg.command}", flush=True)
    old_term = old_int = None
    if threading.current_thread() is threading.main_thread():
        def on_term(signum, frame):
            raise KeyboardInterrupt

        old_term = signal.signal(signal.SIGTERM, on_term)  # SIGTERM stops the match as Ctrl-C does
        # SIGINT too, even when the shell started us with it ignored (a background job)
        old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return Match(cfg).run()
    except FatalMatchError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nInterrupted before the first game", file=sys.stderr)
        return 130
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if old_int is not None:
            signal.signal(signal.SIGINT, old_int)
