#!/usr/bin/python3
"""A writer-kit adapter around another one, for check_kit_capabilities.py:
it declares capabilities and behaves like writers that are not this
project's (the ADA tracer's among them).

    wrap_adapter.py [OPTIONS] --adapter CMD SCENARIO_FILE OUTPUT_DIR
    wrap_adapter.py [OPTIONS] --adapter CMD --capabilities

  --caps TEXT            answer `--capabilities` with TEXT ("\\n" separates
                         lines); without it, exit 2 as an adapter that
                         declares nothing
  --own-platform OS CLOCK  write this os and clock_type whatever the scenario
                         says (a writer that records its own platform)
  --has-detail-all       the manifest says has_detail: true for every thread
                         (SES-MAN-005 for threads without a lane)
  --swap-exception-type  an exception's detail event gets event_type 4 for 3
                         and 3 for 4 (the spec does not say which)
  --drop-empty-detail    a detail lane that recorded nothing gets no
                         detail.atf (and has_detail_file 0)
  --no-header-rewrite    the headers stay the placeholders written at open
                         (a writer that writes its footers but never rewrites
                         its headers: IDX-HDR-015 / DET-HDR-009)

CMD writes the session from the (rewritten) scenario; the wrapper then edits
the files it wrote. Standard library only.
"""
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile


def main(argv):
    opts = {"caps": None, "platform": None, "has_detail_all": False, "swap": False, "drop_empty": False,
            "no_rewrite": False}
    adapter = None
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--caps":
            opts["caps"] = argv[i + 1].replace("\\n", "\n"); i += 1
        elif a == "--adapter":
            adapter = argv[i + 1]; i += 1
        elif a == "--own-platform":
            opts["platform"] = (argv[i + 1], argv[i + 2]); i += 2
        elif a == "--has-detail-all":
            opts["has_detail_all"] = True
        elif a == "--swap-exception-type":
            opts["swap"] = True
        elif a == "--drop-empty-detail":
            opts["drop_empty"] = True
        elif a == "--no-header-rewrite":
            opts["no_rewrite"] = True
        else:
            rest.append(a)
        i += 1
    if rest == ["--capabilities"]:
        if opts["caps"] is None:
            sys.stderr.write("wrap_adapter: no capabilities declared\n")
            return 2
        sys.stdout.write(opts["caps"])
        return 0
    if len(rest) != 2 or not adapter:
        sys.stderr.write("usage: wrap_adapter.py [OPTIONS] --adapter CMD SCENARIO_FILE OUTPUT_DIR\n")
        return 2
    scen, out = rest
    lines = open(scen, encoding="utf-8").read().split("\n")
    for n, line in enumerate(lines):
        f = line.split(" ")
        if opts["platform"] and f[0] == "os":
            lines[n] = "os " + opts["platform"][0]
        elif opts["platform"] and f[0] == "clock_type":
            lines[n] = "clock_type " + opts["platform"][1]
        elif opts["swap"] and f[0] == "e" and len(f) > 7 and f[4] == "3" and f[7] in ("3", "4"):
            f[7] = "4" if f[7] == "3" else "3"
            lines[n] = " ".join(f)
    with tempfile.NamedTemporaryFile("w", suffix=".scenario", delete=False, encoding="utf-8") as t:
        t.write("\n".join(lines))
    try:
        rc = subprocess.call(shlex.split(adapter) + [t.name, out])
    finally:
        os.unlink(t.name)
    if rc != 0:
        return rc
    man_path = os.path.join(out, "manifest.json")
    man = json.load(open(man_path, encoding="utf-8"))
    for th in man["threads"]:
        tdir = os.path.join(out, "thread_%s" % th["id"])   # ids above 2^63 are strings
        det = os.path.join(tdir, "detail.atf")
        if opts["drop_empty"] and os.path.exists(det):
            data = open(det, "rb").read()
            if len(data) >= 128 and struct.unpack_from("<Q", data, len(data) - 64 + 8)[0] == 0:
                os.unlink(det)
                idx = os.path.join(tdir, "index.atf")
                b = bytearray(open(idx, "rb").read())
                struct.pack_into("<I", b, 8, struct.unpack_from("<I", b, 8)[0] & ~1)
                open(idx, "wb").write(b)
                th["has_detail"] = False
        if opts["no_rewrite"]:
            placeholder_headers(tdir)
        if opts["has_detail_all"]:
            th["has_detail"] = True
    json.dump(man, open(man_path, "w", encoding="utf-8"))
    return 0


def placeholder_headers(tdir):
    """Puts back the headers a writer writes at open (SPEC 2.1, 3.1)."""
    for name in ("index.atf", "detail.atf"):
        p = os.path.join(tdir, name)
        if not os.path.exists(p):
            continue
        b = bytearray(open(p, "rb").read())
        if b[:4] == b"ATI2":
            b[8:12] = bytes(4)
            b[24 if b[5] == 2 else 28:32] = bytes(8 if b[5] == 2 else 4)
            b[40:64] = bytes(24)
        else:
            b[28:60] = bytes(32)
        open(p, "wb").write(b)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
