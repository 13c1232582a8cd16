#!/usr/bin/python3
"""The corpus catches unsafe readers (issue: "a footer claiming millions of
events more than the file holds makes such a reader crash"): the reader kit
runs naive_reader.py (a model of a C reader that trusts counts, offsets and
lengths) over the corpus cases built for it and must grade it "crashed" on
each, while the older case whose count stays inside the last page cannot.

    check_naive_reader.py --atf ATF --corpus DIR
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATCHING = ["n_idx_ftr_001_count_huge_l1", "n_idx_ftr_001_count_huge_l2", "n_idx_hdr_010_events_offset_huge_l2",
            "n_det_hdr_006_events_offset_huge_l2", "n_det_evt_002_total_length_huge_l2",
            "n_det_ftr_001_count_huge_l2"]
IN_PAGE = "n_idx_ftr_001_count_too_big_l2"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--atf", required=True)
    ap.add_argument("--corpus", required=True)
    a = ap.parse_args()
    reader = "%s %s" % (sys.executable, os.path.join(HERE, "naive_reader.py"))
    cmd = a.atf.split() + ["conform", "--reader", reader, "--corpus", a.corpus, "--format", "json"]
    for c in CATCHING + [IN_PAGE]:
        cmd += ["--case", c]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    doc = json.loads(p.stdout.decode())
    outcome = {c["case"]: c["results"][0]["outcome"] for c in doc["cases"]}
    fails = [c for c in CATCHING if outcome.get(c) != "crashed"]
    if outcome.get(IN_PAGE) == "crashed":
        fails.append(IN_PAGE + " (inside the last page: the model must not fault there)")
    for f in fails:
        print("FAIL %s: %s" % (f, outcome.get(f.split()[0])))
    print("naive reader: exit %d, %s" % (p.returncode, outcome))
    return 1 if fails or p.returncode != 1 else 0


if __name__ == "__main__":
    sys.exit(main())
