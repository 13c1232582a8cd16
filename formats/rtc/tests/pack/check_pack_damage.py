#!/usr/bin/python3
"""`atf pack` with default options survives one damaged stretch, and
`atf unpack` says what happened (issue 24, item 5).

    check_pack_damage.py ATF WORKDIR

* A 2 MB session (`atf demo --threads 2 --events 12000`) packed with the
  defaults, 100 bytes zeroed in the middle of the packed file: unpack exits
  1, recovers at least 90 % of the index events (counted by `atf dump
  --json` of the copy, not from unpack's own words), the copy validates,
  and unpack's summary line gives the same count.
* A 770 KB session (4,800 events a thread) with the defaults, the same
  damage: at least 80 % of its events come back (it is no longer one Unit).
* The same 770 KB session packed in one 1 MiB Unit (--unit-size 1048576)
  and damaged: nothing can come back; unpack exits 1 and says that every
  Unit describing the session is damaged and which --unit-size would have
  kept most of it, not "not made by atf pack".
* A manifest.json of 1 MB of '[': pack says the manifest is no valid
  manifest (SES-MAN-002) and stores it once (the file is not much larger
  than the session).
* Not an RTC file: a 0-byte file, an ATF index file (a thread's index.atf
  of an `atf demo` session: a trace file of the project, not a container),
  a file of random bytes: exit 2, "not an RTC file", no directory written.

The last line is `N passed, M failed`; exit 1 on any failure.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys

FAILS = []
PASSED = [0]


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILS.append(what)
        print("FAIL " + what)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def index_events(atf, path):
    rc, out, err = run([atf, "dump", "--json", path])
    return sum(1 for line in out.splitlines() if line.startswith('{"thread":') and '"seq":' in line)


def damaged_copy(src, dst, n=100):
    data = bytearray(open(src, "rb").read())
    m = len(data) // 2
    data[m - n // 2:m - n // 2 + n] = bytes(n)
    with open(dst, "wb") as f:
        f.write(data)


def demo(atf, d, events):
    rc, _, err = run([atf, "demo", "--threads", "2", "--events", str(events), d])
    check(rc == 0, "atf demo %s: %s" % (d, err))


def main():
    atf, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    big, small = os.path.join(work, "s2mb"), os.path.join(work, "s770k")
    demo(atf, big, 12000)
    demo(atf, small, 4800)
    total_big, total_small = index_events(atf, big), index_events(atf, small)
    check(total_big == 24000 and total_small == 9600,
          "demo sessions hold %d and %d index events (24000, 9600 expected)" % (total_big, total_small))

    for name, sess, total, share, opts in (("2 MB, defaults", big, total_big, 0.90, []),
                                          ("770 KB, defaults", small, total_small, 0.80, [])):
        rtc, bad, out = (os.path.join(work, name.split(",")[0].replace(" ", "") + x) for x in (".rtc", "_bad.rtc", "_out"))
        rc, _, err = run([atf, "pack"] + opts + [sess, rtc])
        check(rc == 0, "%s: atf pack exit %s %s" % (name, rc, err[-300:]))
        unit = int(re.search(r"\(Unit (\d+),", err).group(1)) if "(Unit " in err else 0
        check(0 < unit <= 128 * 1024, "%s: default Unit %d, expected at most 128 KiB" % (name, unit))
        damaged_copy(rtc, bad)
        rc, _, err = run([atf, "unpack", bad, out])
        got = index_events(atf, out) if os.path.isdir(out) else 0
        check(rc == 1, "%s, 100 bytes zeroed: unpack exit %s, expected 1 %s" % (name, rc, err[-300:]))
        check(got >= share * total, "%s, 100 bytes zeroed: %d of %d index events back (%.1f %%), expected >= %d %%"
              % (name, got, total, 100.0 * got / max(total, 1), share * 100))
        check(re.search(r" %d of %d index events" % (got, total), err) is not None,
              "%s: unpack's summary does not say %d of %d index events: %s" % (name, got, total, err[-300:]))
        vrc, vout, _ = run([atf, "validate", out])
        check(vrc == 0, "%s: the unpacked session does not validate: %s" % (name, vout[-300:]))
        print("%s: Unit %d, %d of %d index events recovered (%.1f %%)" % (name, unit, got, total,
                                                                           100.0 * got / max(total, 1)))

    # One Unit for the whole session, damaged: nothing left, and unpack says why.
    one, one_bad, one_out = (os.path.join(work, "one" + x) for x in (".rtc", "_bad.rtc", "_out"))
    rc, _, err = run([atf, "pack", "--unit-size", "1048576", small, one])
    check(rc == 0 and "(Unit 1048576," in err, "one Unit: atf pack exit %s %s" % (rc, err[-300:]))
    damaged_copy(one, one_bad)
    rc, _, err = run([atf, "unpack", one_bad, one_out])
    check(rc == 1 and not os.path.exists(one_out), "one damaged Unit: unpack exit %s (expected 1, no directory)" % rc)
    check("all damaged" in err and "no intact Unit is left to describe the session" in err,
          "one damaged Unit: unpack does not say every Unit describing the session is damaged: %s" % err[-400:])
    m = re.search(r"packed with --unit-size (\d+)", err)
    check(m is not None and int(m.group(1)) < 1048576,
          "one damaged Unit: unpack does not say which --unit-size would have kept the session: %s" % err[-400:])
    check("not made by" not in err, "one damaged Unit: unpack says 'not made by atf pack': %s" % err[-400:])

    # A manifest no reader takes: reported, stored once.
    bm = os.path.join(work, "bad_manifest")
    shutil.copytree(small, bm)
    with open(os.path.join(bm, "manifest.json"), "w") as f:
        f.write("[" * 1000000)
    bm_rtc = os.path.join(work, "bad_manifest.rtc")
    rc, _, err = run([atf, "pack", bm, bm_rtc])
    check(rc == 0 and "SES-MAN-002" in err and "no valid manifest" in err and "1 manifest copies" in err,
          "invalid manifest: atf pack exit %s, stderr %s" % (rc, err[-400:]))
    size_in = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(bm) for f in fs)
    check(os.path.getsize(bm_rtc) < size_in * 1.3,
          "invalid manifest: %d bytes packed into %d (stored more than once?)" % (size_in, os.path.getsize(bm_rtc)))

    # Not an RTC file.
    empty = os.path.join(work, "empty.rtc")
    open(empty, "wb").close()
    rnd = os.path.join(work, "random.bin")
    with open(rnd, "wb") as f:
        f.write(bytes(random.Random(5).getrandbits(8) for _ in range(5000)))
    index = sorted(os.path.join(r, f) for r, _, fs in os.walk(small) for f in fs if f == "index.atf")
    check(len(index) > 0, "the demo session %s holds no index.atf" % small)
    index = index[0] if index else os.path.join(small, "index.atf")
    for p in (empty, rnd, index):
        d = p + ".out"
        rc, _, err = run([atf, "unpack", p, d])
        check(rc == 2 and "not an RTC file" in err and "complete RTC file" not in err and not os.path.exists(d),
              "unpack %s: exit %s (expected 2, 'not an RTC file', no directory): %s"
              % (os.path.basename(p), rc, err[-300:]))
    print("%d passed, %d failed" % (PASSED[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
