#!/usr/bin/python3
"""Self-test of the golden-corpus tools: the generator (make_corpus.py), the
corpus runner (run_corpus.py) and the clause-coverage check
(check_clause_coverage.py) each pass on good input and fail on broken input.

    /usr/bin/python3 conformance/tests/test_corpus_tools.py [-v]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ATF_PY = os.path.join(REPO, "formats", "atf", "python")
MAKE = os.path.join(ATF_PY, "make_corpus.py")
TOOL = os.path.join(ATF_PY, "atfpy_tool.py")
RUNNER = os.path.join(HERE, "run_corpus.py")
COVERAGE = os.path.join(HERE, "check_clause_coverage.py")
SPEC = os.path.join(REPO, "conformance", "SPEC.md")

sys.dont_write_bytecode = True


def run(cmd, env=None):
    p = subprocess.run([sys.executable] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def tree(root):
    out = {}
    for dp, dns, fns in os.walk(root):
        dns.sort()
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


class Generated(unittest.TestCase):
    """Generates the corpus twice, in processes with different string-hash seeds."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="atf-corpus-test-")
        cls.a, cls.b = os.path.join(cls.tmp, "a"), os.path.join(cls.tmp, "b")
        for out, seed in ((cls.a, "1"), (cls.b, "4242")):
            env = dict(os.environ, PYTHONHASHSEED=seed)
            rc, text = run([MAKE, "--out", out], env)
            if rc != 0:
                raise AssertionError("make_corpus.py failed: %s" % text)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def copy_cases(self, names):
        d = tempfile.mkdtemp(dir=self.tmp)
        for n in names:
            shutil.copytree(os.path.join(self.a, n), os.path.join(d, n))
            for suffix in (".expect.json", ".dump.jsonl"):
                if os.path.exists(os.path.join(self.a, n + suffix)):
                    shutil.copy(os.path.join(self.a, n + suffix), d)
        return d

    def edit(self, d, name, fn):
        p = os.path.join(d, name + ".expect.json")
        with open(p) as f:
            e = json.load(f)
        fn(e)
        with open(p, "w") as f:
            json.dump(e, f, indent=2)

    def test_deterministic_across_hash_seeds(self):
        ta, tb = tree(self.a), tree(self.b)
        self.assertEqual(sorted(ta), sorted(tb))
        diff = [k for k in ta if ta[k] != tb[k]]
        self.assertEqual(diff, [])
        self.assertGreaterEqual(sum(1 for k in ta if k.endswith(".expect.json")), 150)

    def test_expect_files(self):
        classes = {}
        for k, v in tree(self.a).items():
            if not k.endswith(".expect.json"):
                continue
            e = json.loads(v)
            name = k[:-len(".expect.json")]
            self.assertEqual(e["case"], name)
            self.assertEqual({"valid": "y", "invalid": "n", "recoverable": "r",
                              "implementation-defined": "i"}[e["class"]], name[0])
            self.assertTrue(os.path.exists(os.path.join(self.a, name, e["target"])), name)
            self.assertEqual(e["verdict"] == "nonconformant", bool(e["error_clauses"]), name)
            self.assertEqual(e["dump"] is not None, e["verdict"] == "conformant", name)
            if e["class"] == "recoverable":
                self.assertIn("REC-001", e["warning_clauses"])
                self.assertTrue(e["recovered"], name)
            classes[e["class"]] = classes.get(e["class"], 0) + 1
            for path, data in tree(os.path.join(self.a, name)).items():
                self.assertLess(len(data), 64 << 10, "%s/%s" % (name, path))
        self.assertEqual(sorted(classes), ["implementation-defined", "invalid", "recoverable",
                                           "valid"])

    def test_check_detects_changes(self):
        d = os.path.join(self.tmp, "check")
        shutil.copytree(self.a, d)
        os.makedirs(os.path.join(d, "fuzz-seeds", "x"))     # a foreign entry: ignored
        with open(os.path.join(d, "fuzz-seeds", "x", "seed"), "wb") as f:
            f.write(b"x")
        rc, text = run([MAKE, "--check", d])
        self.assertEqual(rc, 0, text)
        self.assertRegex(text, r"\d+ files compared, 0 difference\(s\)")
        p = os.path.join(d, "y_thread_l1", "thread_3", "index.atf")
        with open(p, "r+b") as f:
            f.seek(70)
            b = f.read(1)
            f.seek(70)
            f.write(bytes([b[0] ^ 1]))
        os.remove(os.path.join(d, "y_idx_basic_l2.dump.jsonl"))
        with open(os.path.join(d, "n_stale.expect.json"), "w") as f:
            f.write("{}")
        rc, text = run([MAKE, "--check", d])
        self.assertEqual(rc, 1, text)
        self.assertIn("differs: y_thread_l1/thread_3/index.atf", text)
        self.assertIn("missing: y_idx_basic_l2.dump.jsonl", text)
        self.assertIn("not generated (stale or foreign): n_stale.expect.json", text)
        self.assertIn("3 difference(s)", text)

    def test_runner_passes_and_fails(self):
        names = ["y_thread_l2", "n_link_002_no_way_back_l1", "r_idx_crash_boundary_l2",
                 "i_crc_003_index_l2", "y_idx_basic_l1", "r_session_crash_l1"]
        d = self.copy_cases(names)
        rc, text = run([RUNNER, "--atf", TOOL, "--corpus", d, "--exact-warnings"])
        self.assertEqual(rc, 0, text)
        self.assertEqual(text.splitlines()[-1], "6 passed, 0 failed")
        self.edit(d, "n_link_002_no_way_back_l1", lambda e: e["error_clauses"].remove("LINK-004"))
        self.edit(d, "r_idx_crash_boundary_l2", lambda e: e["recovered"].update({"index.atf": 10}))
        self.edit(d, "i_crc_003_index_l2", lambda e: e.update(warning_clauses=[]))
        self.edit(d, "y_idx_basic_l1", lambda e: e.update(strict_verdict="nonconformant"))
        self.edit(d, "r_session_crash_l1", lambda e: e["warning_clauses"].append("LINK-007"))
        p = os.path.join(d, "y_thread_l2.dump.jsonl")
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data.replace(b'"seq":1,', b'"seq":1 ,', 1))
        rc, text = run([RUNNER, "--atf", TOOL, "--corpus", d, "--exact-warnings"])
        self.assertEqual(rc, 1, text)
        self.assertIn("FAIL n_link_002_no_way_back_l1: unexpected error clauses: LINK-004", text)
        self.assertIn('FAIL r_idx_crash_boundary_l2: recovered {"index.atf": 9}, expected '
                      '{"index.atf": 10}', text)
        self.assertIn("FAIL i_crc_003_index_l2: unexpected warning clauses: CRC-003", text)
        self.assertIn("FAIL y_idx_basic_l1: validate --strict exit 0, expected 1", text)
        self.assertIn("FAIL r_session_crash_l1: warning clauses missing: LINK-007", text)
        self.assertIn("FAIL y_thread_l2: dump differs: line 2:", text)
        self.assertEqual(text.splitlines()[-1], "0 passed, 6 failed")
        # Without --exact-warnings an extra warning is allowed.
        rc, text = run([RUNNER, "--atf", TOOL, "--corpus", d, "--only", "i_crc_003_index_l2"])
        self.assertEqual((rc, text.splitlines()[-1]), (0, "1 passed, 0 failed"), text)

    def test_runner_rejects_a_tool_without_json(self):
        d = self.copy_cases(["y_idx_basic_l1"])
        fake = os.path.join(d, "fake_tool.py")
        with open(fake, "w") as f:
            f.write("import sys\nprint('ok')\nsys.exit(0)\n")
        rc, text = run([RUNNER, "--atf", fake, "--corpus", d])
        self.assertEqual(rc, 1, text)
        self.assertIn("output is not JSON", text)
        self.assertIn("dump differs", text)

    def fake_validator(self, lines):
        d = tempfile.mkdtemp(dir=self.tmp)
        p = os.path.join(d, "fake_validator.py")
        with open(p, "w") as f:
            f.write("import sys\nsys.stdout.write(%r)\n" % "".join(x + "\n" for x in lines))
        return p

    def test_coverage(self):
        rc, text = run([COVERAGE, "--atf", TOOL, "--corpus", self.a, "--spec", SPEC])
        self.assertEqual(rc, 0, text)
        rc, out = run([TOOL, "validate", "--list-clauses"])
        table = out.splitlines()
        self.assertEqual(rc, 0)
        bad = [x for x in table if not x.startswith("LINK-007\t")]          # one missing
        bad.append("XYZ-001\terror\tnot a clause")                            # one unknown
        bad = [x.replace("\twarning\t", "\terror\t") if x.startswith("CRC-003\t") else x
               for x in bad]                                                  # wrong severity
        bad.append("garbage line")
        rc, text = run([COVERAGE, "--atf", self.fake_validator(bad), "--corpus", self.a,
                        "--spec", SPEC])
        self.assertEqual(rc, 1, text)
        self.assertIn("SPEC.md clause LINK-007 is not in the validator's table", text)
        self.assertIn("clause XYZ-001 is not in SPEC.md", text)
        self.assertIn("CRC-003 is error in the validator, warning in SPEC.md", text)
        self.assertIn("is not ID<TAB>severity<TAB>summary", text)
        # A corpus without the only cases of a clause, and with an unknown clause.
        d = self.copy_cases(["y_idx_basic_l1", "n_link_008_thread_id_l1"])
        self.edit(d, "y_idx_basic_l1", lambda e: e.update(error_clauses=["NOPE-001"]))
        rc, text = run([COVERAGE, "--atf", TOOL, "--corpus", d, "--spec", SPEC])
        self.assertEqual(rc, 1, text)
        self.assertIn("no case reports error clause IDX-HDR-001", text)
        self.assertIn("no case reports warning clause CRC-003", text)
        self.assertNotIn("no case reports error clause LINK-008", text)
        self.assertIn("clause NOPE-001 (in y_idx_basic_l1) is not in SPEC.md", text)


if __name__ == "__main__":
    unittest.main()
