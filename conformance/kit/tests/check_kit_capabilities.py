#!/usr/bin/python3
"""The writer kit grades by declared capabilities and by the spec's severities,
and a run that tests nothing is an error.

    check_kit_capabilities.py --atf ATF --adapter "ADAPTER" --broken "BROKEN" --workdir DIR

ADAPTER is this project's adapter (atf_writer_adapter); tests/wrap_adapter.py
wraps it into writers that declare capabilities (`CMD --capabilities`):
  * a layout-2-only writer: every layout-1 scenario is "not applicable",
    never a failure, and counted;
  * a layout-1-only writer with a fixed arch/os/clock (as the ADA tracer's
    writer: it records its own platform), has_detail true for every thread,
    its own event_type for exceptions and no detail.atf for a lane that
    recorded nothing: it passes what it can write, the SES-MAN-005 warning
    warns (fails with --strict), implementation-defined behaviour is reported
    as such, never failed.
Also: a run where nothing was tested (--keep an existing file, or every
scenario not applicable) exits 2 with well-formed JSON and JUnit saying so;
--list to a full disk exits 2; --scenario takes prefixes; messages do not
quote the temporary work directory; JUnit keeps offsets and fields; a
malformed declaration is exit 2; a corpus case without its expected dump is a
broken corpus (exit 2). Standard library only.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

problems = []
HERE = os.path.dirname(os.path.abspath(__file__))


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


def run(cmd, env=None, stdout=subprocess.PIPE):
    p = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, timeout=900, env=env)
    out = p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


def wrapper(adapter, caps, *opts):
    cmd = [sys.executable, os.path.join(HERE, "wrap_adapter.py"), "--adapter", adapter]
    if caps is not None:
        cmd += ["--caps", caps]
    return " ".join(shlex.quote(x) for x in cmd + list(opts))


def scenarios(atf):
    rc, out, err = run(atf + ["conform", "--list", "--format", "json"])
    return json.loads(out)["scenarios"]


def conform_json(atf, writer, *args):
    rc, out, err = run(atf + ["conform", "--writer", writer, "--format", "json"] + list(args))
    try:
        doc = json.loads(out)
    except ValueError:
        check(False, "not JSON (exit %d): %r %r" % (rc, out[:300], err[:300]))
        doc = {}
    return rc, doc, err


def layout2_only(atf, adapter, builtin):
    w = wrapper(adapter, "atf-capabilities 1\\nlayouts 2\\n")
    rc, doc, err = conform_json(atf, w, "--no-slow", "--strict")
    fast = [s for s in builtin if not s["slow"]]
    l1 = {s["name"] for s in fast if s["layout"] == 1}
    l2 = {s["name"] for s in fast if s["layout"] == 2}
    if not doc:
        return
    v = {s["name"]: s["verdict"] for s in doc["scenarios"]}
    check(rc == 0 and doc["verdict"] == "pass", "layout-2 writer: exit %d verdict %s %s" % (rc, doc["verdict"], err))
    check({n for n in v if v[n] == "not-applicable"} == l1, "layout-2 writer: layout-1 scenarios not applicable: %s"
          % sorted(n for n in v if v[n] == "not-applicable"))
    check({n for n in v if v[n] == "pass"} == l2, "layout-2 writer: layout-2 scenarios pass")
    check(doc["counts"]["not_applicable"] == len(l1) and doc["counts"]["failed"] == 0 and
          doc["counts"]["passed"] == len(l2), "layout-2 writer counts: %s" % doc["counts"])
    check(doc["capabilities"] == "layouts 2", "capabilities: %r" % doc.get("capabilities"))
    na = [s for s in doc["scenarios"] if s["verdict"] == "not-applicable"]
    check(all("layout" in s["skip_reason"] and s["adapter"] is None and s["validation"] is None for s in na),
          "not applicable scenarios are not run and say why")
    rc, out, err = run(atf + ["conform", "--writer", w, "--no-slow"])
    check(rc == 0 and ("%d not applicable" % len(l1)) in out.splitlines()[-1], "text summary: %r" % out[-200:])
    # Only layout-1 scenarios selected: nothing tested, an error.
    rc, doc, err = conform_json(atf, w, "--scenario", "one_event_l1")
    check(rc == 2 and doc.get("verdict") == "error" and "no scenario was tested" in (doc.get("error") or "") and
          doc["counts"]["not_applicable"] == 1, "all not applicable: exit %d %s" % (rc, json.dumps(doc)[:300]))


def ada_like(atf, adapter, builtin):
    caps = "atf-capabilities 1\\n# a fixed platform\\nlayouts 1\\narch 2\\nos 1\\nclock_type 1\\n"
    w = wrapper(adapter, caps, "--own-platform", "1", "1", "--has-detail-all", "--swap-exception-type",
                "--drop-empty-detail")
    rc, doc, err = conform_json(atf, w, "--no-slow")
    if not check(rc == 0 and doc.get("verdict") == "pass", "ADA-like writer: exit %d %s %s"
                 % (rc, json.dumps(doc.get("counts")), err[:300])):
        for s in doc.get("scenarios", []):
            if s["verdict"] == "fail":
                problems.append("  %s: %s %s" % (s["name"], s["failed_clauses"], s["mismatches"][:3]))
        return
    fast = [s for s in builtin if not s["slow"]]
    byname = {s["name"]: s for s in doc["scenarios"]}
    ran = {n for n, s in byname.items() if s["verdict"] == "pass"}
    check({s["name"] for s in fast if s["layout"] == 2} <= {n for n, s in byname.items()
                                                           if s["verdict"] == "not-applicable"},
          "ADA-like writer: layout-2 scenarios not applicable")
    check({"one_event_l1", "exceptions_l1", "platform_ios_l1", "empty_l1", "many_threads_l1"} <= ran and
          "x86_opaque_payloads_l1" not in ran, "ADA-like writer: what it can write passes: %s" % sorted(ran))
    check(byname["x86_opaque_payloads_l1"]["verdict"] == "not-applicable" and
          "arch" in byname["x86_opaque_payloads_l1"]["skip_reason"], "an arch it cannot write: not applicable")
    check(byname["one_event_l1"]["adapted"] and byname["platform_ios_l1"]["adapted"] is None,
          "own platform noted where it differs")
    mm = [m for s in doc["scenarios"] for m in s["mismatches"]]
    cats = {m["category"] for m in mm}
    check({"warning", "implementation-defined"} <= cats and not any(m["fails"] for m in mm),
          "categories: %s" % sorted(cats))
    check(any(m["category"] == "implementation-defined" and m["field"] == "event_type" for m in mm),
          "an exception's event_type is implementation-defined")
    check(any(m["category"] == "implementation-defined" and m["check"] == "KIT-HDR-002" for m in mm),
          "no detail.atf for an empty lane is implementation-defined")
    check(any(m["category"] == "warning" and m["field"] == "has_detail" for m in mm),
          "has_detail for a thread without a lane warns (SES-MAN-005)")
    # --strict: the warnings fail, the implementation-defined notes never do.
    rc, doc, err = conform_json(atf, w, "--scenario", "many_threads_l1", "--scenario", "exceptions_l1", "--strict")
    v = {s["name"]: s for s in doc.get("scenarios", [])}
    check(rc == 1 and v["many_threads_l1"]["verdict"] == "fail" and v["exceptions_l1"]["verdict"] == "pass",
          "--strict: exit %d %s" % (rc, {n: s["verdict"] for n, s in v.items()}))
    # A fidelity failure is labelled as such (a wrong os without declaring it).
    w2 = wrapper(adapter, None, "--own-platform", "1", "1")
    rc, doc, err = conform_json(atf, w2, "--scenario", "one_event_l1")
    mm = [m for s in doc.get("scenarios", []) for m in s["mismatches"]]
    check(rc == 1 and any(m["category"] == "fidelity" and m["field"] == "os" and m["fails"] for m in mm),
          "undeclared own platform: fidelity failure: %s" % mm[:2])
    # A malformed declaration stops the run.
    for bad in ("atf-capabilities 1\\nlayouts 3\\n", "atf-capabilities 2\\n", "atf-capabilities 1\\ncolour red\\n",
                "atf-capabilities 1\\ndetail maybe\\n"):
        rc, doc, err = conform_json(atf, wrapper(adapter, bad), "--scenario", "one_event_l1")
        check(rc == 2 and doc.get("verdict") == "error" and "capability" in doc.get("error", ""),
              "malformed capabilities %r: exit %d %s" % (bad, rc, doc))


def no_header_rewrite(atf, adapter):
    """A writer that writes its footers but never rewrites its headers: the
    validator warns (IDX-HDR-015 / DET-HDR-009, errata E-18) and the kit,
    whose README requires finalized headers, fails the scenario on the
    header fields it expected (fidelity): never a silent pass."""
    w = wrapper(adapter, None, "--no-header-rewrite")
    rc, doc, err = conform_json(atf, w, "--scenario", "one_event_l2")
    sc = doc.get("scenarios", [{}])[0]
    found = {f["clause"] for f in (sc.get("validation") or {}).get("findings", [])}
    mm = sc.get("mismatches", [])
    check(rc == 1 and sc.get("verdict") == "fail" and {"IDX-HDR-015", "DET-HDR-009"} <= found and
          any(m["category"] == "fidelity" and m["fails"] for m in mm),
          "headers never rewritten: exit %d verdict %s findings %s mismatches %s"
          % (rc, sc.get("verdict"), sorted(found), mm[:2]))


def nothing_tested(atf, adapter, work):
    f = os.path.join(work, "a-file")
    open(f, "w").write("x")
    for fmt in ("text", "json", "junit"):
        rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario", "one_event_l2", "--keep", f,
                                  "--format", fmt])
        check(rc == 2 and "not a directory" in err, "--keep FILE (%s): exit %d %r" % (fmt, rc, err[:200]))
        if fmt == "json":
            doc = json.loads(out) if out.startswith("{") else {}
            check(doc.get("schema") == "atf-conform-writer/1" and doc.get("verdict") == "error" and
                  "not a directory" in doc.get("error", ""), "--keep FILE: JSON %r" % out[:300])
        elif fmt == "junit":
            try:
                root = ET.fromstring(out)
                check(root.get("errors") == "1" and root.find(".//error") is not None, "--keep FILE: JUnit error")
            except ET.ParseError as e:
                check(False, "--keep FILE: JUnit does not parse: %s %r" % (e, out[:200]))
    # An unwritable --keep directory (as root, a directory under a file is as unwritable).
    rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario", "one_event_l2", "--keep",
                              os.path.join(f, "sub"), "--format", "json"])
    check(rc == 2 and json.loads(out or "{}").get("verdict") == "error", "--keep under a file: exit %d" % rc)
    rc, out, err = run(atf + ["conform", "--list"], stdout=open("/dev/full", "wb"))
    check(rc == 2, "--list > /dev/full: exit %d" % rc)
    rc, out, err = run(atf + ["conform", "--list", "--format", "json"], stdout=open("/dev/full", "wb"))
    check(rc == 2, "--list --format json > /dev/full: exit %d" % rc)


def prefixes_and_paths(atf, adapter, broken, builtin, work):
    rc, doc, err = conform_json(atf, adapter, "--scenario", "platform_", "--scenario", "platform_ios_l1")
    want = sorted(s["name"] for s in builtin if s["name"].startswith("platform_"))
    check(rc == 0 and sorted(s["name"] for s in doc.get("scenarios", [])) == want,
          "--scenario prefix: %s" % [s["name"] for s in doc.get("scenarios", [])])
    rc, out, err = run(atf + ["conform", "--writer", adapter, "--scenario", "zzz"])
    check(rc == 2 and "starts with 'zzz'" in err, "--scenario unknown prefix: exit %d %r" % (rc, err))
    # With --no-slow a prefix leaves slow scenarios out: here nothing is left, an error.
    rc, doc, err = conform_json(atf, adapter, "--scenario", "million", "--no-slow")
    check(rc == 2 and doc.get("verdict") == "error", "slow scenario by prefix: exit %d %s" % (rc, doc))
    # Temporary paths never appear in messages.
    tmp = os.path.join(work, "tmp-unique-0xfeed")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    for mode in ("nothing", "garbage", "miscount-footer"):
        rc, out, err = run(atf + ["conform", "--writer", "%s %s" % (broken, mode), "--scenario", "one_event_l2",
                                  "--format", "json"], env=env)
        check(rc == 1 and "tmp-unique-0xfeed" not in out, "%s: temporary path in the report: %s"
              % (mode, [l for l in out.split('"') if "0xfeed" in l][:3]))
    # An adapter's stderr with a terminal escape is shown escaped in the text report.
    rc, out, err = run(atf + ["conform", "--writer", "printf '\\033[31mred\\n' >&2; exit 3; :", "--scenario",
                              "one_event_l2"])
    check(rc == 1 and "| \\x1b[31mred" in out and "\x1b" not in out, "adapter stderr escaped: %r" % out[-300:])
    # JUnit keeps offsets and fields as `atf validate --format junit` does.
    rc, out, err = run(atf + ["conform", "--writer", "%s miscount-footer" % broken, "--scenario", "one_event_l2",
                              "--format", "junit"])
    root = ET.fromstring(out)
    texts = [f.text or "" for f in root.iter("failure")]
    check(rc == 1 and any(": offset " in t and ": field " in t for t in texts),
          "junit failure texts lack offset/field: %s" % texts[:2])


def broken_corpus(atf, work):
    corpus = os.path.join(work, "corpus")
    os.makedirs(os.path.join(corpus, "y_one"))
    open(os.path.join(corpus, "y_one", "index.atf"), "wb").write(b"ATI2")
    json.dump({"schema": "atf-corpus-expect/1", "case": "y_one", "class": "valid", "target": "index.atf",
               "verdict": "conformant", "error_clauses": [], "dump": "y_one.dump.jsonl"},
              open(os.path.join(corpus, "y_one.expect.json"), "w"))
    for fmt in ("text", "json"):
        rc, out, err = run(atf + ["conform", "--reader", "cat", "--corpus", corpus, "--format", fmt])
        check(rc == 2 and "y_one.dump.jsonl" in err and "broken corpus" in err,
              "missing expected dump (%s): exit %d %r" % (fmt, rc, err[:300]))
        if fmt == "json":
            doc = json.loads(out) if out.startswith("{") else {}
            check(doc.get("verdict") == "error" and doc.get("schema") == "atf-conform-reader/1",
                  "reader kit error JSON: %r" % out[:200])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--adapter", required=True)
    ap.add_argument("--broken", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    atf = shlex.split(a.atf)
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    builtin = scenarios(atf)
    layout2_only(atf, a.adapter, builtin)
    ada_like(atf, a.adapter, builtin)
    no_header_rewrite(atf, a.adapter)
    nothing_tested(atf, a.adapter, a.workdir)
    prefixes_and_paths(atf, a.adapter, a.broken, builtin, a.workdir)
    broken_corpus(atf, a.workdir)
    for p in problems:
        print("FAIL", p)
    print("check_kit_capabilities: %s (%d problem(s))" % ("FAILED" if problems else "ok", len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
