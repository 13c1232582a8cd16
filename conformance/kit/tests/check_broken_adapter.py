#!/usr/bin/python3
"""The writer kit must fail a deliberately broken adapter, with the right IDs.

    check_broken_adapter.py --atf ATF --adapter "BROKEN_ADAPTER" --workdir DIR

For each mode of conformance/kit/adapters/broken_adapter.c it runs
`atf conform --writer "BROKEN_ADAPTER MODE" --format json --keep DIR/MODE`
on scenarios of both layouts and checks that:
  * the kit exits 1 and every scenario fails;
  * the failed clauses include the ones the mode must produce, and nothing
    unrelated (a list per mode below);
  * for the SPEC.md clauses, the kit reports exactly what the clause
    validator reports on the kept session (`atf validate --format json`):
    the error clauses, plus the recoverable warnings (REC-*), which the kit
    always fails since the adapter claimed success.
Standard library only.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

SCENARIOS = ["one_event_l1", "exceptions_l2", "mixed_lanes_l2", "symbols_l1"]

# mode -> (clauses that must fail in every scenario, clauses that may also fail)
MODES = {
    "drop-footer": ({"REC-001"}, set()),
    "miscount-footer": ({"IDX-HDR-012", "IDX-FTR-002", "KIT-IDX-001"},
                        {"IDX-FTR-003", "IDX-FTR-005", "CRC-001", "CRC-002", "LINK-001", "LINK-002",
                         "LINK-003", "LINK-004", "KIT-IDX-002", "KIT-IDX-003", "KIT-DET-002",
                         "IDX-HDR-013", "IDX-HDR-014", "IDX-FTR-001", "IDX-EVT-005", "SES-MAN-007"}),
    "break-backlink": ({"LINK-002", "KIT-DET-002"},
                       {"LINK-003", "LINK-004", "DET-HDR-008", "DET-EVT-005"}),
    "lose-last": ({"KIT-IDX-001"}, {"KIT-DET-001"}),
    "wrong-kind": ({"KIT-IDX-002"}, set()),
    "wrong-payload": ({"KIT-DET-003"}, set()),
    "wrong-clock": ({"KIT-HDR-001"}, set()),
    "drop-symbol": ({"KIT-SES-002"}, set()),
    "nothing": ({"KIT-SES-001"}, {"KIT-HDR-002"}),
    "garbage": ({"KIT-SES-001", "KIT-IDX-001"}, None),   # None: any SPEC.md clause may fail too
    "crash": ({"KIT-RUN-001"}, set()),
    "hang": ({"KIT-RUN-001"}, set()),
    "fail": ({"KIT-RUN-001"}, set()),
}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600, **kw)


def validator_failures(atf, session):
    """SPEC clauses the kit must fail: errors and recoverable warnings."""
    p = run(atf + ["validate", "--format", "json", session])
    if p.returncode not in (0, 1):
        raise AssertionError("atf validate %s: exit %d: %s" % (session, p.returncode, p.stderr.decode()))
    doc = json.loads(p.stdout)
    assert doc["schema"] == "atf-validate/1", doc["schema"]
    return {f["clause"] for f in doc["findings"]
            if f["severity"] == "error" or f["clause"].startswith("REC-")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True, help="the atf command (may be a wrapper script)")
    ap.add_argument("--adapter", required=True, help="the broken adapter command")
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    atf = shlex.split(a.atf)
    if os.path.isdir(a.workdir):
        shutil.rmtree(a.workdir)
    os.makedirs(a.workdir)
    problems = []
    checked = 0
    for mode, (must, may) in MODES.items():
        keep = os.path.join(a.workdir, mode)
        cmd = atf + ["conform", "--writer", "%s %s" % (a.adapter, mode), "--format", "json", "--keep", keep]
        if mode == "hang":
            cmd += ["--timeout", "2", "--scenario", SCENARIOS[0]]
        elif mode == "drop-symbol":   # the only scenarios with symbols
            cmd += ["--scenario", "symbols_l1", "--scenario", "symbols_l2"]
        else:
            for s in SCENARIOS:
                cmd += ["--scenario", s]
        p = run(cmd)
        if p.returncode != 1:
            problems.append("%s: atf conform exited %d, expected 1 (stderr: %s)"
                            % (mode, p.returncode, p.stderr.decode()[:300]))
            continue
        doc = json.loads(p.stdout)
        if doc["schema"] != "atf-conform-writer/1" or doc["verdict"] != "fail":
            problems.append("%s: schema %s verdict %s" % (mode, doc["schema"], doc["verdict"]))
        for sc in doc["scenarios"]:
            checked += 1
            name, failed = sc["name"], set(sc["failed_clauses"])
            where = "%s/%s" % (mode, name)
            if sc["verdict"] != "fail":
                problems.append("%s: verdict %s, expected fail" % (where, sc["verdict"]))
            missing = must - failed
            extra = failed - must - (may if may is not None else {c for c in failed if not c.startswith("KIT-")}
                                     | {"KIT-DET-001", "KIT-HDR-002"})
            if missing:
                problems.append("%s: clauses not reported: %s (reported: %s)"
                                % (where, sorted(missing), sorted(failed)))
            if extra:
                problems.append("%s: unexpected clauses: %s" % (where, sorted(extra)))
            st = sc["adapter"]["status"]
            if mode == "crash" and (st != "signaled" or sc["adapter"]["signal"] != 11):
                problems.append("%s: adapter %s, expected signal 11" % (where, sc["adapter"]))
            if mode == "hang" and st != "timeout":
                problems.append("%s: adapter %s, expected timeout" % (where, st))
            if mode == "fail" and sc["adapter"]["exit_code"] != 3:
                problems.append("%s: adapter exit %s, expected 3" % (where, sc["adapter"]["exit_code"]))
            if mode in ("crash", "hang", "fail", "nothing"):
                if sc["validation"] is not None:
                    problems.append("%s: validated output of a failed adapter" % where)
                continue
            # The kit's SPEC clauses are exactly the validator's on the same files.
            session = os.path.join(keep, name, "session")
            want = validator_failures(atf, session)
            got = {c for c in failed if not c.startswith("KIT-")}
            if want != got:
                problems.append("%s: kit reports %s, atf validate %s" % (where, sorted(got), sorted(want)))
    # --strict changes nothing for a crash-truncated output: still REC-001.
    p = run(atf + ["conform", "--writer", "%s drop-footer" % a.adapter, "--strict", "--format", "json",
                   "--scenario", "one_event_l2"])
    doc = json.loads(p.stdout) if p.stdout else {}
    if p.returncode != 1 or doc.get("scenarios", [{}])[0].get("failed_clauses") != ["REC-001"]:
        problems.append("drop-footer --strict: exit %d, %s" % (p.returncode, doc.get("scenarios")))
    for line in problems:
        print("FAIL " + line)
    print("%d scenario runs checked, %d problem(s)" % (checked, len(problems)))
    return 1 if problems or checked < 40 else 0


if __name__ == "__main__":
    sys.exit(main())
