#!/usr/bin/python3
"""Self-test of the Python format registry (conformance/gen/tracepy/registry.py,
which finds the formats of formats/formats.cmake in formats/<name>/python/)
and its front end tracepy_tool.py: every case of every golden corpus is
detected as its own format; one case of each accepted class dumps through
the registry byte for byte as its .dump.jsonl; clause IDs map to their
format; files of no format and missing paths are refused (exit 1, 2).

    /usr/bin/python3 conformance/tests/test_registry.py [-v]
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(REPO, "conformance", "gen")
sys.dont_write_bytecode = True
sys.path.insert(0, GEN)

from tracepy import registry  # noqa: E402

TOOL = os.path.join(GEN, "tracepy_tool.py")


def cases(fmt):
    for e in sorted(glob.glob(os.path.join(REPO, "corpus", fmt.corpus, "*.expect.json"))):
        with open(e, encoding="utf-8") as f:
            exp = json.load(f)
        yield exp, os.path.normpath(os.path.join(e[:-len(".expect.json")], exp["target"]))


def tool(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120)


class Registry(unittest.TestCase):
    def test_the_formats_of_formats_cmake_in_order(self):
        # Every format of the build's registry that has a python/ folder, in its order.
        want = [n for n in registry.layout.registered()
                if os.path.isdir(os.path.join(REPO, "formats", n, "python"))]
        self.assertEqual(registry.names(), want)
        self.assertGreaterEqual(len(want), 2)
        for f in registry.formats():
            self.assertIs(registry.get(f.name), f)
            self.assertTrue(os.path.isfile(os.path.join(REPO, "conformance", f.spec)), f.spec)
            self.assertEqual(f.folder, os.path.join(REPO, "formats", f.name, "python"))
            self.assertTrue(os.path.isfile(f.tool_path), f.tool_path)
            self.assertTrue(f.clauses and all(f.owns_clause(c[0]) for c in f.clauses), f)
        self.assertRaises(KeyError, registry.get, "nope")

    def test_every_corpus_case_detected_as_its_format(self):
        for f in registry.formats():
            n = 0
            for exp, target in cases(f):
                n += 1
                self.assertIs(registry.detect(target), f, (f.name, exp["case"]))
            self.assertGreater(n, 50, f.name)

    def test_clauses_map_to_their_format(self):
        for f in registry.formats():
            self.assertIs(registry.of_clauses([c[0] for c in f.clauses]), f)
        a, b = registry.formats()[:2]
        self.assertIsNone(registry.of_clauses([a.clauses[0][0], b.clauses[0][0]]))
        self.assertIsNone(registry.of_clauses([]))

    def test_dump_and_info_through_the_registry(self):
        for f in registry.formats():
            done = 0
            for exp, target in cases(f):
                if exp["verdict"] != "conformant" or not exp["case"].startswith("y_"):
                    continue
                p = tool("dump", "--json", target)
                self.assertEqual(p.returncode, 0, (exp["case"], p.stderr))
                with open(os.path.join(REPO, "corpus", f.corpus, exp["case"] + ".dump.jsonl"),
                          "rb") as g:
                    self.assertEqual(p.stdout, g.read(), exp["case"])
                p = tool("info", target)
                self.assertEqual(p.returncode, 0, (exp["case"], p.stderr))
                self.assertEqual(json.loads(p.stdout)["format"], f.name)
                p = tool("validate", "--format", "json", target)
                self.assertEqual((p.returncode, json.loads(p.stdout)["verdict"]),
                                 (0, "conformant"), exp["case"])
                done += 1
                if done == 3:
                    break
            self.assertEqual(done, 3, f.name)

    def test_refusals(self):
        with tempfile.TemporaryDirectory() as d:
            other = os.path.join(d, "notes.txt")
            with open(other, "wb") as g:
                g.write(b"plain text, of no format\n")
            for cmd in ("detect", "info"):
                self.assertEqual(tool(cmd, other).returncode, 1)
                self.assertEqual(tool(cmd, os.path.join(d, "missing")).returncode, 2)
            self.assertEqual(tool("dump", "--json", other).returncode, 1)
            self.assertEqual(tool("validate", os.path.join(d, "missing")).returncode, 2)
            self.assertEqual(tool("detect", d).returncode, 1)    # an empty directory
        p = tool("validate", "--list-clauses")
        self.assertEqual(len(p.stdout.decode().splitlines()),
                         sum(len(f.clauses) for f in registry.formats()))


if __name__ == "__main__":
    unittest.main()
