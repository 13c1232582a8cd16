#!/usr/bin/python3
"""Writes the seed corpus of every fuzz target into corpus/fuzz-seeds/<target>/.

    fuzz/gen_seeds.py [--out DIR] [--atf PATH/TO/atf] [FORMAT OPTIONS]

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

Uses only the standard library; run it with /usr/bin/python3.
"""
import argparse
import importlib.util
import os
import shutil
import sys

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
    args = ap.parse_args(argv)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    for g in gens:
        g.generate(args)
    total = sum(len(fs) for _, _, fs in os.walk(args.out))
    print("fuzz seeds: %d files in %s" % (total, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
