#!/usr/bin/python3
"""`atf conform` end to end: command line, report formats and grading.

    check_kit_cli.py --atf ATF --adapter "ADAPTER" --workdir DIR

Writer kit: --list (text, JSON), --export, usage errors (exit 2 with a
message), malformed --scenario-file inputs (exit 2, "line N:"), a scenario
file of one's own, --keep, JSON and JUnit reports read back with Python's
json and xml.etree parsers.
Reader kit: a small corpus built here (a valid session, an undecodable file,
a decodable but nonconformant file, a crash-truncated file, an
implementation-defined case) run against readers that are right, crash, hang,
lie and reject everything; each outcome and grade is checked in the text,
JSON and HTML reports (HTML read back with html.parser).
Standard library only.
"""

import argparse
import html.parser
import json
import os
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


def run(cmd, timeout=600):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---- Writer kit -------------------------------------------------------------

SCENARIO_OK = """# hand-written: two threads, one detail event with an x86 (opaque) payload
atf-scenario 1
name handmade
description written by check_kit_cli.py
layout 1
arch 1
os 4
clock_type 3
thread 3 33 1
thread 9 99 0
symbol 4294967301 main
events 4
e 3 100 4294967301 1 0 33 3 7 100 00ff10
e 9 150 4294967301 1 0 99 -
e 3 200 4294967301 2 0 33 -
e 9 250 4294967301 3 0 99 -
end
"""

BAD_SCENARIOS = [
    ("atf-scenario 9\n", "line 1"),
    (SCENARIO_OK.replace("events 4", "events 5"), "`end` after 4 events"),
    (SCENARIO_OK.replace("e 9 150", "e 8 150"), "thread 8 has no"),
    (SCENARIO_OK.replace("00ff10", "00ff1"), "odd number"),
    (SCENARIO_OK.replace("e 3 200", "e 3 50"), "backwards"),
    (SCENARIO_OK.replace("name handmade", "name ../x"), "name"),
]


def writer_checks(atf, adapter, work):
    rc, out, err = run(atf + ["conform", "--list"])
    names = [l.split()[0] for l in out.splitlines() if l.strip()]
    check(rc == 0 and len(names) >= 12, "--list: exit %d, %d scenarios" % (rc, len(names)))
    for need in ("empty_l1", "one_event_l2", "million_l2", "exceptions_l1", "deep_call_depth_l2",
                 "extreme_values_l1", "many_threads_l2", "detail_every_event_l1", "max_stack_l2",
                 "no_detail_lane_l1"):
        check(need in names, "--list lacks %s" % need)
    rc, out, err = run(atf + ["conform", "--list", "--format", "json"])
    doc = json.loads(out)
    check(doc["schema"] == "atf-conform-scenarios/1" and [s["name"] for s in doc["scenarios"]] == names,
          "--list --format json disagrees with --list")
    check({s["layout"] for s in doc["scenarios"]} == {1, 2}, "scenarios do not cover both layouts")
    check([s["name"] for s in doc["scenarios"] if s["slow"]] == ["million_l2", "million_x86_l2"],
          "slow scenarios")

    exp = os.path.join(work, "export")
    os.makedirs(exp)
    rc, out, err = run(atf + ["conform", "--export", exp, "--scenario", "one_event_l1"])
    path = os.path.join(exp, "one_event_l1.scenario")
    check(rc == 0 and os.path.exists(path), "--export: exit %d %s" % (rc, err))
    if os.path.exists(path):
        text = open(path).read()
        check(text.startswith("atf-scenario 1\nname one_event_l1\n") and text.endswith("\nend\n"),
              "--export: unexpected file")

    for args, needle in ((["--writer", adapter, "--scenario", "nope"], "no built-in scenario"),
                         ([], "exactly one of"),
                         (["--writer", adapter, "--reader", "cat"], "exactly one of"),
                         (["--writer", adapter, "--timeout", "-1"], "--timeout"),
                         (["--writer", adapter, "--format", "xml"], "--format"),
                         (["--writer"], "needs a value"),
                         (["--reader", "cat", "--format", "junit"], "text or json"),
                         (["--writer", adapter, "--bogus", "1"], "unknown argument")):
        rc, out, err = run(atf + ["conform"] + args)
        check(rc == 2 and needle in err, "usage %s: exit %d, stderr %r" % (args, rc, err[:200]))

    # A name with control characters comes back escaped, on one line (the
    # kit's errors go through atf_fail_file, as every other error).
    rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario", "zz\x1b[31m\nx"])
    check(rc == 2 and "'zz\\x1b[31m\\nx'" in err and "\x1b" not in err and err.count("\n") == 1,
          "control characters in a scenario name: exit %d, stderr %r" % (rc, err[:200]))

    for i, (text, needle) in enumerate(BAD_SCENARIOS):
        p = os.path.join(work, "bad%d.scenario" % i)
        open(p, "w").write(text)
        rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario-file", p])
        check(rc == 2 and needle in err and p in err and out == "",
              "bad scenario %d: exit %d, stderr %r" % (i, rc, err[:300]))

    own = os.path.join(work, "handmade.scenario")
    open(own, "w").write(SCENARIO_OK)
    twin = os.path.join(work, "twin.scenario")
    open(twin, "w").write(SCENARIO_OK)
    rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario-file", own, "--scenario-file", twin])
    check(rc == 2 and "already selected" in err, "duplicate scenario name: exit %d %s" % (rc, err[:200]))
    keep = os.path.join(work, "keep")
    rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario-file", own, "--keep", keep,
                              "--strict", "--format", "json"])
    doc = json.loads(out) if out else {}
    check(rc == 0 and doc.get("verdict") == "pass", "own scenario: exit %d %s %s" % (rc, out[:300], err[:300]))
    if doc:
        sc = doc["scenarios"][0]
        check(sc["name"] == "handmade" and sc["source"] == own and sc["events"] == 4 and sc["threads"] == 2,
              "own scenario fields: %s" % sc)
        check(set(sc["checks"]) == {c["id"] for c in doc["checks"]} and not any(sc["checks"].values()),
              "own scenario: every KIT- check ran and passed: %s" % sc["checks"])
        check("IDX-HDR-001" in sc["validation"]["clauses_checked"], "clauses_checked")
        check(os.path.isfile(os.path.join(keep, "handmade", "session", "thread_3", "detail.atf")) and
              not os.path.exists(os.path.join(keep, "handmade", "session", "thread_9", "detail.atf")),
              "--keep: session files not kept as expected")

    # JUnit: one testsuite per scenario, a testcase per clause checked.
    rc, out, err = run(atf + ["conform", "--writer", adapter, "--format", "junit",
                              "--scenario", "one_event_l2", "--scenario", "empty_l1"])
    root = ET.fromstring(out)
    suites = root.findall("testsuite")
    check(rc == 0 and root.tag == "testsuites" and [s.get("name") for s in suites] == ["one_event_l2", "empty_l1"],
          "junit: %d %s" % (rc, [s.get("name") for s in suites]))
    cases = [c.get("name") for c in suites[0].findall("testcase")]
    check({"KIT-IDX-002", "KIT-DET-003", "IDX-HDR-001", "LINK-002"} <= set(cases), "junit testcases: %s" % cases)
    check(root.get("failures") == "0" and not root.findall(".//failure"), "junit: failures in a passing run")
    check(all(c.get("classname").startswith("atf.conform.writer.") for c in root.iter("testcase")), "classname")


# ---- Reader kit -------------------------------------------------------------

def index_file(events, layout=2, footer=True):
    """A minimal index.atf (layout 2, no detail lane) written here, independently of the C codec."""
    body = b"".join(struct.pack("<QQQB7x", ts, fid, (1 << 64) - 1, kind) for ts, fid, kind in events)
    first = events[0][0] if events else 0
    last = events[-1][0] if events else 0
    n = len(events)
    hdr = bytearray(64)
    hdr[0:4] = b"ATI2"
    hdr[4], hdr[5], hdr[6], hdr[7] = 1, layout, 1, 4
    struct.pack_into("<I", hdr, 12, 7)   # thread_id: the dump's "thread" for a file given alone
    hdr[16] = 3
    struct.pack_into("<IQQQQQ", hdr, 20, 32, n if footer else 0, 64, 64 + len(body) if footer else 0,
                     first if footer else 0, last if footer else 0)
    if not footer:
        return bytes(hdr) + body
    ftr = bytearray(64)
    ftr[0:4] = b"2ITA"
    struct.pack_into("<IQQQQ", ftr, 4, 0, n, first, last, len(body))
    return bytes(hdr) + body + bytes(ftr)


def write_case(corpus, name, cls, files, target, verdict, errors, dump_lines):
    d = os.path.join(corpus, name)
    for rel, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        open(os.path.join(d, rel), "wb").write(data)
    expect = {"schema": "atf-corpus-expect/1", "case": name, "class": cls, "target": target,
              "verdict": verdict, "error_clauses": errors,
              "dump": name + ".dump.jsonl" if dump_lines is not None else None}
    json.dump(expect, open(os.path.join(corpus, name + ".expect.json"), "w"))
    if dump_lines is not None:
        open(os.path.join(corpus, name + ".dump.jsonl"), "w").write("".join(dump_lines))


def dump_line(seq, ts, fid, kind, thread=7):
    return '{"thread":%d,"seq":%d,"timestamp_ns":%d,"function_id":%d,"event_kind":%d,"detail_seq":null}\n' % (
        thread, seq, ts, fid, kind)


def make_corpus(corpus):
    ev = [(100, 5, 1), (200, 5, 2), (300, 6, 3)]
    write_case(corpus, "y_three_events", "valid", {"index.atf": index_file(ev)}, "index.atf", "conformant", [],
               [dump_line(i, *e) for i, e in enumerate(ev)])
    bad = bytearray(index_file(ev))
    bad[0:4] = b"XXXX"
    write_case(corpus, "n_bad_magic", "invalid", {"index.atf": bytes(bad)}, "index.atf", "nonconformant",
               ["IDX-HDR-001"], None)
    back = [(300, 5, 1), (200, 5, 2)]
    write_case(corpus, "n_backwards", "invalid", {"index.atf": index_file(back)}, "index.atf", "nonconformant",
               ["IDX-EVT-003"], None)
    write_case(corpus, "r_no_footer", "recoverable", {"index.atf": index_file(ev, footer=False) + b"\x01\x02"},
               "index.atf", "conformant", [], [dump_line(i, *e) for i, e in enumerate(ev)])
    write_case(corpus, "i_either", "implementation-defined", {"index.atf": index_file(ev)}, "index.atf",
               "conformant", [], [dump_line(i, *e) for i, e in enumerate(ev)])
    # A README and unrelated directories are ignored.
    open(os.path.join(corpus, "README.md"), "w").write("mini corpus\n")
    os.makedirs(os.path.join(corpus, "fuzz-seeds"))


class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self._cls, self.text = [], None, ""

    def handle_starttag(self, tag, attrs):
        if tag == "td":
            self._cls = dict(attrs).get("class")

    def handle_data(self, data):
        if self._cls is not None:
            self.cells.append((self._cls, data))
            self._cls = None
        self.text += data


def reader_checks(atf, work):
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus)
    make_corpus(corpus)
    atf_line = " ".join(shlex.quote(x) for x in atf)
    good = atf_line + " dump --json"
    crasher, sleeper, rejecter = "kill -SEGV $$; :", "sleep 20; :", "exit 4; :"
    liar = "printf '%s\\n' '{}'; :"

    # This project's reader: every outcome right; n_backwards tolerated.
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", corpus, "--format", "json"])
    doc = json.loads(out)
    check(rc == 0 and doc["schema"] == "atf-conform-reader/1", "good reader: exit %d %s" % (rc, err[:300]))
    res = {c["case"]: c["results"][0] for c in doc["cases"]}
    check(sorted(res) == ["i_either", "n_backwards", "n_bad_magic", "r_no_footer", "y_three_events"],
          "cases: %s" % sorted(res))
    want = {"y_three_events": ("accepted", "right", "equal"), "r_no_footer": ("accepted", "right", "equal"),
            "n_bad_magic": ("rejected", "right", None), "n_backwards": ("accepted", "tolerated", None),
            "i_either": ("accepted", "right", "equal")}
    for name, (outcome, result, dump) in want.items():
        r = res.get(name, {})
        check((r.get("outcome"), r.get("result"), r.get("dump")) == (outcome, result, dump),
              "good reader %s: %s" % (name, r))
    # --strict: a tolerated acceptance becomes wrong.
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", corpus, "--strict"])
    check(rc == 1 and "WRONG" in out and "n_backwards" in out, "strict: exit %d" % rc)

    # Four bad readers and the good one, with an HTML matrix.
    html_path = os.path.join(work, "matrix.html")
    readers = [good, crasher, sleeper, liar, rejecter]
    cmd = atf + ["conform", "--corpus", corpus, "--timeout", "1", "--html", html_path, "--format", "json"]
    for r in readers:
        cmd += ["--reader", r]
    rc, out, err = run(cmd)
    doc = json.loads(out)
    check(rc == 1, "matrix: exit %d, expected 1" % rc)
    check([r["verdict"] for r in doc["readers"]] == ["pass", "fail", "fail", "fail", "fail"],
          "matrix verdicts: %s" % [r["verdict"] for r in doc["readers"]])
    res = {c["case"]: c["results"] for c in doc["cases"]}
    y, nb, nm, r_ = res["y_three_events"], res["n_backwards"], res["n_bad_magic"], res["r_no_footer"]
    check(y[1]["outcome"] == "crashed" and y[1]["signal"] == 11 and y[1]["result"] == "wrong", "crasher: %s" % y[1])
    check(y[2]["outcome"] == "timeout" and y[2]["result"] == "wrong" and y[2]["seconds"] < 10, "sleeper: %s" % y[2])
    check(y[3]["outcome"] == "accepted" and y[3]["dump"] == "differs" and "line 1" in y[3]["note"],
          "liar on valid: %s" % y[3])
    check(nm[3]["result"] == "wrong" and "IDX-HDR-001" in nm[3]["note"], "liar on undecodable: %s" % nm[3])
    check(nb[3]["result"] == "tolerated", "liar on nonconformant: %s" % nb[3])
    check(y[4]["outcome"] == "rejected" and y[4]["exit_code"] == 4 and y[4]["result"] == "wrong",
          "rejecter on valid: %s" % y[4])
    check(r_[4]["result"] == "wrong" and nm[4]["result"] == "right" and res["i_either"][4]["result"] == "right",
          "rejecter: %s %s" % (r_[4], nm[4]))
    counts = doc["readers"][1]["counts"]
    check(counts["crashed"] == 5 and counts["wrong"] == 5, "crasher counts: %s" % counts)
    parser = Cells()
    parser.feed(open(html_path, encoding="utf-8").read())
    classes = [c for c, _ in parser.cells if c in ("right", "tolerated", "wrong", "crashed", "timeout", "error")]
    check(len(classes) == 5 * 5, "html: %d result cells, expected 25" % len(classes))
    check(classes.count("crashed") == 5 and classes.count("timeout") == 5, "html cell classes: %s" % classes)
    check("R5" in parser.text and "n_bad_magic" in parser.text, "html text")

    # --jobs changes nothing but the time.
    def without_times(text):
        d = json.loads(text)
        for c in d["cases"]:
            for r in c["results"]:
                r.pop("seconds")
        return d
    base = atf + ["conform", "--corpus", corpus, "--format", "json", "--reader", good, "--reader", liar]
    runs = [run(base + ["--jobs", j]) for j in ("1", "7")]
    check(runs[0][0] == runs[1][0] == 1 and without_times(runs[0][1]) == without_times(runs[1][1]),
          "--jobs 1 and --jobs 7 disagree")
    rc, out, err = run(base + ["--jobs", "0"])
    check(rc == 2 and "--jobs" in err, "--jobs 0: exit %d" % rc)

    # The text table: one row per case and reader outcome.
    rc, out, err = run(atf + ["conform", "--reader", good, "--reader", crasher, "--corpus", corpus,
                              "--case", "y_", "--case", "n_bad"])
    rows = [l for l in out.splitlines() if l.startswith(("y_", "n_"))]
    check(rc == 1 and len(rows) == 2 and rows[0].split()[1:] == ["rejected", "crashed!"] and
          rows[1].split() == ["y_three_events", "accepted", "crashed!"], "text matrix: %s" % rows)

    # An interrupted kit takes its running commands down (they run in their own
    # process group, out of reach of the terminal's signals).
    pidfile = os.path.join(work, "reader.pid")
    sleeper_cmd = "echo $$ > %s; exec sleep 60; :" % shlex.quote(pidfile)
    kit = subprocess.Popen(atf + ["conform", "--reader", sleeper_cmd, "--corpus", corpus, "--case", "y_",
                                  "--timeout", "100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = None
    for _ in range(200):
        if os.path.exists(pidfile) and open(pidfile).read().strip():
            pid = int(open(pidfile).read())
            break
        time.sleep(0.05)
    check(pid is not None, "interrupt: the reader did not start")
    kit.send_signal(signal.SIGTERM)
    kit.wait(timeout=30)
    check(kit.returncode == -signal.SIGTERM, "interrupt: the kit exited %s" % kit.returncode)
    if pid:
        gone = False
        for _ in range(100):
            try:
                with open("/proc/%d/stat" % pid) as f:
                    gone = f.read().split(")")[-1].split()[0] in ("Z", "X")
            except OSError:
                gone = True
            if gone:
                break
            time.sleep(0.05)
        check(gone, "interrupt: the reader command %d is still running" % pid)

    # Corpus errors: exit 2 with the file named.
    bad = os.path.join(work, "badcorpus")
    shutil.copytree(corpus, bad)
    open(os.path.join(bad, "y_three_events.expect.json"), "w").write('{"case": "y_three_events", "class": 5}')
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", bad])
    check(rc == 2 and "y_three_events.expect.json" in err, "bad expect file: exit %d %s" % (rc, err[:200]))
    open(os.path.join(bad, "y_three_events.expect.json"), "w").write(
        json.dumps({"case": "y_three_events", "class": "valid", "target": "../../etc/passwd",
                    "verdict": "conformant", "dump": "x", "error_clauses": []}))
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", bad])
    check(rc == 2 and "target" in err, "target outside the case: exit %d %s" % (rc, err[:200]))
    open(os.path.join(bad, "y_three_events.expect.json"), "w").write(
        json.dumps({"case": "y_three_events", "class": "valid", "target": "missing.atf",
                    "verdict": "conformant", "dump": "y_three_events.dump.jsonl", "error_clauses": []}))
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", bad])
    check(rc == 2 and "missing.atf" in err, "missing target: exit %d %s" % (rc, err[:200]))
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", os.path.join(work, "nowhere")])
    check(rc == 2 and "corpus" in err, "missing corpus: exit %d" % rc)
    rc, out, err = run(atf + ["conform", "--reader", good, "--corpus", corpus, "--case", "zzz"])
    check(rc == 2 and "no corpus case matches" in err, "no case: exit %d" % rc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--adapter", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    atf = shlex.split(a.atf)
    if os.path.isdir(a.workdir):
        shutil.rmtree(a.workdir)
    os.makedirs(a.workdir)
    writer_checks(atf, a.adapter, a.workdir)
    reader_checks(atf, a.workdir)
    for p in problems:
        print("FAIL " + p)
    print("%d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
