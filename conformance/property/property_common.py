"""The harness every format's property tests share (formats/<f>/property/
test_<f>_properties.py, registered by conformance/property/CMakeLists.txt):
the Hypothesis profiles, the command line (--atf, --writer, --workdir), the
child-process runner and the per-property work folders.

A format's test file puts this folder on sys.path, imports this module as
``common`` and calls ``common.main(Properties)``; after main() has parsed
the command line, ``common.ATF`` is the `atf` CLI, ``common.WRITER`` the
format's C property writer and ``common.WORKDIR`` the work folder.

Runs are derandomized by default (profile "ci": 25 examples a property, a
fixed example sequence; ctest label "property"). Longer seeded runs:
    ATF_PROPERTY_EXAMPLES=2000 ATF_PROPERTY_SEED=7 test_<f>_properties.py --atf ... --writer ...
(profile "long": ATF_PROPERTY_EXAMPLES examples, default 500, seeded).
Needs Debian's python3-hypothesis: run with /usr/bin/python3.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gen"))
import tracepy  # noqa: E402,F401  (puts every formats/<name>/python/ on sys.path)

from hypothesis import HealthCheck, seed, settings  # noqa: E402

EXAMPLES = int(os.environ.get("ATF_PROPERTY_EXAMPLES", "0") or 0)
SEED = os.environ.get("ATF_PROPERTY_SEED")

settings.register_profile(
    "ci", derandomize=True, max_examples=EXAMPLES or 25, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.register_profile(
    "long", derandomize=False, max_examples=EXAMPLES or 500, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.load_profile("long" if SEED else "ci")

ATF = None       # set by main()
WRITER = None
WORKDIR = None


def run(args, **kw):
    return subprocess.run(args, capture_output=True, timeout=120, **kw)


def fresh_dir(name):
    d = os.path.join(WORKDIR, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def main(properties):
    """Runs the test case class ``properties`` (a format's Properties) with
    --atf, --writer and --workdir set here."""
    global ATF, WRITER, WORKDIR
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--atf", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--workdir")
    args, rest = ap.parse_known_args()
    ATF, WRITER = os.path.abspath(args.atf), os.path.abspath(args.writer)
    tmp = None
    if args.workdir:
        WORKDIR = os.path.abspath(args.workdir)
        os.makedirs(WORKDIR, exist_ok=True)
    else:
        WORKDIR = tmp = tempfile.mkdtemp(prefix="atf-property-")
    if SEED:
        for name in dir(properties):
            if name.startswith("test_"):
                setattr(properties, name, seed(int(SEED))(getattr(properties, name)))
    print("property tests: %s examples per property, %s" % (
        settings().max_examples, "seed %s" % SEED if SEED else "derandomized"), flush=True)
    try:
        unittest.main(module=sys.modules[properties.__module__], argv=[sys.argv[0]] + rest,
                      verbosity=2)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
