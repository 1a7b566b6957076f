"""Self-play against a previous version of jitfish, with SPRT, in every variant.

    python3 -m jitfish.bench.vs_previous --commit 9adbf94 [--variants chess courier ...]
        [--rounds 10] [--tc 2+0.02] [--sprt=-10,0,0.05,0.05] [--out DIR]

The previous version is taken from git (``git archive COMMIT``, run from a clone), installed
with ``pip install --no-deps --target`` into a folder of its own, and started through a small
wrapper that hides the editable install of the current version. It keeps its own numba cache
folder (the cache key hashes the kernel sources), so its first start compiles. Each variant is
one ``jitfish match`` run between the installed ``jitfish`` and that wrapper; the runner prints
the SPRT verdict, and its last line is the cutechess-style score line. PGNs and outputs go to
``--out``.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from jitfish.movegen import variant_names

WRAPPER = """#!/bin/sh
# jitfish at {commit}, installed in {lib}; the editable install of the current version is hidden
PYTHONPATH={lib} exec {python} -P -c "
import sys
sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]
try:
    from jitfish.cli import main  # the command line since the layering work (9b63e86)
except ImportError:
    from jitfish.engine.cli import main  # before it
sys.exit(main())" "$@"
"""


def install_previous(commit: str, folder: Path) -> Path:
    """Install ``commit`` of the git repository here into folder/lib; returns the wrapper."""
    src, lib = folder / "src", folder / "lib"
    shutil.rmtree(folder, ignore_errors=True)
    src.mkdir(parents=True)
    archive = folder / "src.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), commit], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(src, filter="data")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(lib), str(src)],
                   check=True)
    wrapper = folder / "jitfish-previous"
    wrapper.write_text(WRAPPER.format(commit=commit, lib=lib, python=sys.executable))
    wrapper.chmod(0o755)
    return wrapper


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commit", required=True, help="the previous version (any git revision)")
    ap.add_argument("--variants", nargs="+", default=variant_names(), help="default: every variant")
    ap.add_argument("--rounds", type=int, default=10, help="game pairs per variant (default 10)")
    ap.add_argument("--tc", default="2+0.02", help="time control (default 2+0.02)")
    ap.add_argument("--sprt", default="-10,0,0.05,0.05", help="elo0,elo1,alpha,beta (default: non-regression)")
    ap.add_argument("--maxmoves", type=int, default=200, help="draw adjudicated after this many moves")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--scheduler", metavar="tcp://HOST:PORT|local:N",
                    help="play on Dask workers (jitfish match --scheduler; --out must be on a path every worker sees)")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "jitfish-vs-previous")
    args = ap.parse_args(argv)
    jitfish = shutil.which("jitfish")
    if jitfish is None:
        ap.error("the jitfish command is not installed (pip install -e .)")
    args.out.mkdir(parents=True, exist_ok=True)
    prev = install_previous(args.commit, args.out / "previous")
    for v in args.variants:
        cmd = [jitfish, "match", "--variant", v, "--rounds", str(args.rounds), "--tc", args.tc,
               "--random-plies", "4", "--seed", str(args.seed), "--maxmoves", str(args.maxmoves),
               f"--sprt={args.sprt}", "--no-progress", "--pgn", str(args.out / f"{v}.pgn"),
               "--engine", f"cmd={jitfish},name=jitfish-new",
               "--engine", f"cmd={prev},name=jitfish-{args.commit}"]
        if args.scheduler:
            cmd += ["--scheduler", args.scheduler]
        res = subprocess.run(cmd, capture_output=True, text=True)
        (args.out / f"{v}.out").write_text(res.stdout + res.stderr)
        sprt = [ln for ln in res.stdout.splitlines() if ln.startswith("SPRT")]
        last = res.stdout.rstrip().splitlines()[-1] if res.stdout.strip() else f"failed: {res.stderr[-300:]}"
        print(f"{v}: {last}" + (f"\n  {sprt[0]}" if sprt else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
