#!/usr/bin/python3
"""Writes the seed corpus of every fuzz target into corpus/fuzz-seeds/<target>/.

    fuzz/gen_seeds.py [--out DIR] [--atf PATH/TO/atf] [FORMAT OPTIONS]
    fuzz/gen_seeds.py --check [--out DIR] --atf PATH/TO/atf [FORMAT OPTIONS]

Each format with a fuzz/ folder (formats/formats.cmake) has its seed
generator in formats/<f>/fuzz/seeds.py: add_arguments(parser) adds its own
options (the paths of its own writer programs, say) and
generate(args) writes its targets' seeds (and the dictionaries it derives
from a token table) into args.out. This driver runs them in registry order.
Seeds are real files (sessions, files, headers, payloads, manifests of the
independent Python implementations and the golden corpora, with their
crash-truncated, torn and damaged variants) or structure-aware inputs; the
formats' generators say which. With --atf, files written by the C writers
are added as well. Session seeds use the container format of
formats/atf/fuzz/README.md.

The output is deterministic: running the script again rewrites the same
bytes (the directory is cleared first).

--check writes the seeds into a temporary directory instead and compares
them with DIR (default the committed corpus/fuzz-seeds): it lists every
file added, missing or different and fails if there is one, so that a
change to a golden corpus or a generator that is not followed by a
regeneration is seen (ctest: fuzz_seeds_current).

Uses only the standard library; run it with /usr/bin/python3.
"""
import argparse
import importlib.util
import os
import filecmp
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from seed_support import ROOT, formats  # noqa: E402


def generators():
    """The seed generator module of every format that has one."""
    out = []
    for f in formats():
        path = os.path.join(ROOT, "formats", f, "fuzz", "seeds.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("seeds_" + f, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            out.append(mod)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "corpus", "fuzz-seeds"))
    ap.add_argument("--atf", help="the atf command, to add files written by the C writers")
    gens = generators()
    for g in gens:
        g.add_arguments(ap)
    ap.add_argument("--check", action="store_true",
                    help="compare what would be written with --out instead of writing it")
    args = ap.parse_args(argv)
    if args.check:
        return check(gens, args)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    for g in gens:
        g.generate(args)
    total = sum(len(fs) for _, _, fs in os.walk(args.out))
    print("fuzz seeds: %d files in %s" % (total, args.out))
    return 0


def tree(root):
    """The relative paths of every file under root."""
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def check(gens, args):
    committed = args.out
    with tempfile.TemporaryDirectory(prefix="atf-seeds-") as tmp:
        args.out = os.path.join(tmp, "fuzz-seeds")
        for g in gens:
            g.generate(args)
        want, have = tree(args.out), tree(committed)
        added = sorted(want - have)
        missing = sorted(have - want)
        changed = sorted(p for p in want & have
                         if not filecmp.cmp(os.path.join(args.out, p), os.path.join(committed, p), shallow=False))
    for what, paths in (("not committed", added), ("no longer generated", missing), ("different", changed)):
        for p in paths:
            print("%s: %s" % (what, p))
    if added or missing or changed:
        print("fuzz seeds: %s is out of date (%d not committed, %d no longer generated, %d different); "
              "regenerate with fuzz/gen_seeds.py --atf build/cli/atf"
              % (committed, len(added), len(missing), len(changed)))
        return 1
    print("fuzz seeds: %d files in %s, as the generators write them" % (len(want), committed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
