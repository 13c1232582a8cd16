"""What the seed generators of the formats share (fuzz/gen_seeds.py runs
them: formats/<f>/fuzz/seeds.py): writing a seed, writing dictionaries from
a token table, random writer programs, and the formats in registry order."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


sys.path.insert(0, os.path.join(ROOT, "conformance", "gen"))
from tracepy import layout  # noqa: E402


def formats():
    """The formats of formats/formats.cmake (ATF_FORMATS), in registry order."""
    return layout.registered()


def add_import_paths():
    """The independent Python implementations (formats/<f>/python/) on
    sys.path, for the generators that import them."""
    layout.use()


def write(outdir, target, name, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def dict_line(name, value):
    esc = "".join(chr(c) if 0x20 <= c < 0x7F and chr(c) not in '"\\' else "\\x%02x" % c for c in value)
    return '%s="%s"\n' % (name, esc)


def write_dicts(table, table_of, label, dict_dir):
    """<dict_dir>/<target>.dict for each target of table_of, from the token groups of table."""
    for target, groups in table_of.items():
        with open(os.path.join(dict_dir, target + ".dict"), "w") as f:
            f.write("# %s: written by fuzz/gen_seeds.py (%s: %s); do not edit.\n" % (target, label, ", ".join(groups)))
            for g in groups:
                for name, value in table[g]:
                    f.write(dict_line("%s_%s" % (g, name), value))


def program_seeds(rng, n):
    """Random bytes for the targets that read a program for a writer."""
    seeds = {}
    for i, size in enumerate([16, 64, 200, 700, 2000][:n]):
        seeds["random-%d-%d" % (i, size)] = rng.randbytes(size)
    return seeds
