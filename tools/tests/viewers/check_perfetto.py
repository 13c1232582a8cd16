#!/usr/bin/env python3
"""Checks `atf export --format perfetto` with a consumer written by others:
Debian's protoc (`protoc --decode_raw`) decodes each export without the
schema, and this script compares what it decoded with the session itself
(`atf dump --json`):

  - the file parses (protoc exits 0) and is a sequence of Trace.packet (1);
  - one thread track per exported thread (TrackDescriptor 60, ThreadDescriptor 4),
    inside the process track of the session's pid_N;
  - per track, slices balance: depth never goes below zero and ends at zero;
  - every slice begin is a call of the session, in order, with its timestamp
    and its function's name (interned names resolved); every exception is an
    instant at its timestamp; the detail lane's registers are arguments;
  - a crash-truncated session exports with its open calls closed, marked
    "unclosed", and the counts printed on stderr.

Usage: check_perfetto.py ATF WORKDIR   (exit 0 when every check passed)
"""
import os
import re
import shutil
import sys

from checks import check, crash_cut, dump_threads, finish, run

# ---- protoc --decode_raw text to a tree ----------------------------------

def unquote(s):
    """protoc's C-escaped string literal (without quotes) to bytes."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = s[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in "01234567":
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
            continue
        out.append({"n": 10, "r": 13, "t": 9, '"': 34, "'": 39, "\\": 92}.get(n, ord(n)))
        i += 2
    return bytes(out)


def parse_decode_raw(text):
    """Returns a list of (field, value) where value is int, bytes or a nested list."""
    root = []
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        m = re.match(r"^(\d+) \{$", line)
        if m:
            node = []
            stack[-1].append((int(m.group(1)), node))
            stack.append(node)
            continue
        m = re.match(r"^(\d+): (.*)$", line)
        if not m:
            raise ValueError("unexpected protoc line: " + line)
        field, val = int(m.group(1)), m.group(2)
        if val.startswith('"'):
            v = unquote(val[1:-1])
        elif val.startswith("0x"):
            v = (4 if len(val) == 10 else 8, int(val, 16))
        else:
            v = int(val)
        stack[-1].append((field, v))
    return root


def get(msg, field, default=None):
    for f, v in msg:
        if f == field:
            return v
    return default


def get_all(msg, field):
    return [v for f, v in msg if f == field]


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def encode(msg, groups=False):
    """Bytes of a decoded message. protoc decodes a string field as a message
    when its bytes happen to parse as one ("x0" is field 15 = 48): a string
    field's value is rebuilt from that decoding (its varints are minimal).
    protoc prints a group (start tag, fields, end tag: "st" is an empty
    group 14, as in the Lua function "explist") as it prints a message, so
    with groups nested nodes are rebuilt as groups instead."""
    out = bytearray()
    for field, v in msg:
        if isinstance(v, list):
            body = encode(v, groups)
            if groups:
                out += varint(field << 3 | 3) + body + varint(field << 3 | 4)
            else:
                out += varint(field << 3 | 2) + varint(len(body)) + body
        elif isinstance(v, bytes):
            out += varint(field << 3 | 2) + varint(len(v)) + v
        elif isinstance(v, tuple):   # (fixed width, value)
            out += varint(field << 3 | (5 if v[0] == 4 else 1)) + v[1].to_bytes(v[0], "little")
        else:
            out += varint(field << 3) + varint(v)
    return bytes(out)


def text_of(v):
    """A string field's text. Decoded by protoc as a message, it is rebuilt
    with nested nodes as messages, else as groups: the first that is UTF-8
    text with no control character (a name has none)."""
    if not isinstance(v, list):
        return v.decode("utf-8")
    for groups in (False, True):
        try:
            t = encode(v, groups).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if not any(ord(c) < 32 for c in t):
            return t
    return encode(v).decode("utf-8", errors="replace")


# ---- the session side ----------------------------------------------------

def name_of(e):
    return e.get("symbol") or "0x%016x" % e["function_id"]


# ---- one export ----------------------------------------------------------

def check_export(atf, session, out, label, pid, extra=(), expect_unclosed=None):
    r = run([atf, "export", "--format", "perfetto", *extra, session, "-o", out])
    if not check(r.returncode == 0, "%s: atf export exit %d: %s" % (label, r.returncode, r.stderr)):
        return
    m = re.search(r"(\d+) calls never returned", r.stderr)
    check(m is not None or expect_unclosed is None,
          "%s: the unclean-input counts are printed on stderr: %r" % (label, r.stderr))
    unclosed_printed = int(m.group(1)) if m else 0   # a clean session's export prints no such line
    with open(out, "rb") as f:
        d = run(["protoc", "--decode_raw"], stdin=f, text=False)
    if not check(d.returncode == 0, "%s: protoc --decode_raw exit %d: %s" % (label, d.returncode,
                                                                           d.stderr.decode(errors="replace"))):
        return
    tree = parse_decode_raw(d.stdout.decode("utf-8", errors="strict"))
    check(all(f == 1 for f, _ in tree), "%s: the file is Trace.packet (field 1) only" % label)
    packets = [v for f, v in tree if f == 1]
    check(len(packets) > 0, "%s: packets decoded" % label)

    # Tracks.
    process_uuid, tracks = None, {}
    for p in packets:
        td = get(p, 60)
        if td is None:
            continue
        if get(td, 3) is not None:
            process_uuid = get(td, 1)
            check(get(get(td, 3), 1) == pid, "%s: process track pid %s, want %d" % (label, get(get(td, 3), 1), pid))
            check(text_of(get(get(td, 3), 6)) == "pid_%d" % pid, "%s: process named pid_%d" % (label, pid))
        elif get(td, 4) is not None:
            th = get(td, 4)
            tracks[get(td, 1)] = {"tid": get(th, 2), "name": text_of(get(th, 5)), "parent": get(td, 5),
                                  "pid": get(th, 1)}
    check(process_uuid is not None, "%s: a process track" % label)

    # Events per track, interned names resolved per sequence.
    interned = {}
    per_track = {}
    for p in packets:
        seq = get(p, 10)
        flags = get(p, 13, 0)
        if flags & 1:
            interned[seq] = {}
        idata = get(p, 12)
        if idata is not None:
            for en in get_all(idata, 2):
                interned.setdefault(seq, {})[get(en, 1)] = text_of(get(en, 2))
        te = get(p, 11)
        if te is None:
            continue
        uuid = get(te, 11)
        if uuid not in tracks:
            continue
        name = None
        if get(te, 10) is not None:
            name = interned.get(seq, {}).get(get(te, 10))
            check(name is not None, "%s: name_iid %d defined on sequence %d before use" % (label, get(te, 10), seq))
        elif get(te, 23) is not None:
            name = text_of(get(te, 23))
        annots = {}
        for a in get_all(te, 4):
            an = text_of(get(a, 10))
            annots[an] = get(a, 7, get(a, 3, get(a, 2, get(a, 6))))
        per_track.setdefault(uuid, []).append((get(te, 9), get(p, 8), name, annots))

    expected = dump_threads(atf, session)
    wanted = expected
    if "--thread" in extra:
        keep = {int(x) for x in extra[extra.index("--thread") + 1].split(",")}
        wanted = {k: v for k, v in expected.items() if k in keep}
    check(sorted(t["tid"] for t in tracks.values()) == sorted(wanted),
          "%s: one track per thread: %s vs %s" % (label, sorted(t["tid"] for t in tracks.values()), sorted(wanted)))
    window = None
    if "--from" in extra or "--to" in extra:
        lo = int(extra[extra.index("--from") + 1]) if "--from" in extra else 0
        hi = int(extra[extra.index("--to") + 1]) if "--to" in extra else 2 ** 64
        window = (lo, hi)

    total_unclosed = 0
    for uuid, t in tracks.items():
        check(t["parent"] == process_uuid and t["pid"] == pid, "%s: thread track %s in the process" % (label, t))
        check(t["name"].startswith("thread_%d " % t["tid"]), "%s: track named by its thread id: %r" % (label, t))
        evs = per_track.get(uuid, [])
        depth, ok = 0, True
        for typ, ts, name, annots in evs:
            if typ == 1:
                depth += 1
            elif typ == 2:
                depth -= 1
                ok = ok and depth >= 0
                total_unclosed += 1 if annots.get("unclosed") else 0
        check(ok and depth == 0, "%s: thread %d: slices balance (end depth %d)" % (label, t["tid"], depth))
        ts_list = [ts for _, ts, _, _ in evs]
        check(ts_list == sorted(ts_list), "%s: thread %d: timestamps never go back" % (label, t["tid"]))
        # Begins are the session's calls, in order, with names and times.
        events = expected[t["tid"]]
        calls = [(e["timestamp_ns"], name_of(e)) for e in events if e["event_kind"] == 1 and
                 (window is None or window[0] <= e["timestamp_ns"] <= window[1])]
        begins = [(ts, name) for typ, ts, name, a in evs if typ == 1 and not a.get("clipped")]
        check(begins == calls, "%s: thread %d: %d slice begins are the %d calls (first %s vs %s)" %
              (label, t["tid"], len(begins), len(calls), begins[:2], calls[:2]))
        exc = [(e["timestamp_ns"], name_of(e)) for e in events if e["event_kind"] == 3 and
               (window is None or window[0] <= e["timestamp_ns"] <= window[1])]
        instants = [(ts, name) for typ, ts, name, _ in evs if typ == 3]
        check(instants == exc, "%s: thread %d: exceptions are instants (%d vs %d)" %
              (label, t["tid"], len(instants), len(exc)))
        # Detail lane: each call with an ARM64 detail has its registers.
        with_detail = [e for e in events if e["event_kind"] == 1 and "arm64" in e.get("detail", {}) and
                       (window is None or window[0] <= e["timestamp_ns"] <= window[1])]
        begin_annots = [a for typ, _, _, a in evs if typ == 1 and not a.get("clipped")]
        regs_ok = True
        for e, a in zip([e for e in events if e["event_kind"] == 1 and
                         (window is None or window[0] <= e["timestamp_ns"] <= window[1])], begin_annots):
            if "arm64" in e.get("detail", {}):
                arm = e["detail"]["arm64"]
                regs_ok = regs_ok and a.get("x0") == arm["x"][0] and a.get("lr") == arm["lr"] and \
                    a.get("sp") == arm["sp"]
        check(regs_ok, "%s: thread %d: the ARM64 registers of %d calls are arguments" %
              (label, t["tid"], len(with_detail)))
    check(total_unclosed == unclosed_printed,
          "%s: %d slices marked unclosed, stderr says %d" % (label, total_unclosed, unclosed_printed))
    if expect_unclosed is not None:
        check(expect_unclosed(total_unclosed), "%s: unclosed count %d as expected" % (label, total_unclosed))
    print("ok: %s: %d packets, %d tracks, %d unclosed" % (label, len(packets), len(tracks), total_unclosed))


def truncate_thread(thread_dir, keep_fraction):
    """A crash: the index file cut mid-record (no footer), the detail file too."""
    for name in ("index.atf", "detail.atf"):
        p = os.path.join(thread_dir, name)
        if os.path.exists(p):
            crash_cut(p, int(os.path.getsize(p) * keep_fraction) + 7)


def main():
    atf, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for layout in (1, 2):
        s = os.path.join(work, "l%d" % layout, "pid_4242")
        r = run([atf, "demo", "--layout", str(layout), "--threads", "3", "--events", "3000", "--detail-every", "3",
                 "--seed", str(layout), s])
        check(r.returncode == 0, "demo: %s" % r.stderr)
        out = os.path.join(work, "l%d.pftrace" % layout)
        check_export(atf, s, out, "layout %d" % layout, 4242)
        events = dump_threads(atf, s)
        t0 = events[0]
        lo, hi = t0[len(t0) // 3]["timestamp_ns"], t0[2 * len(t0) // 3]["timestamp_ns"]
        check_export(atf, s, out, "layout %d window" % layout, 4242, ["--from", str(lo), "--to", str(hi)])
        check_export(atf, s, out, "layout %d thread 1,2" % layout, 4242, ["--thread", "1,2"])
    # A thread directory given alone.
    s = os.path.join(work, "l2", "pid_4242")
    check_export(atf, os.path.join(s, "thread_1"), os.path.join(work, "t1.pftrace"), "thread directory", 4242)
    # A crash-truncated session: two threads cut mid-record, no footers.
    c = os.path.join(work, "crash", "pid_77")
    r = run([atf, "demo", "--threads", "3", "--events", "4000", "--detail-every", "2", "--seed", "9", c])
    check(r.returncode == 0, "demo: %s" % r.stderr)
    truncate_thread(os.path.join(c, "thread_0"), 0.5)
    truncate_thread(os.path.join(c, "thread_2"), 0.3)
    check_export(atf, c, os.path.join(work, "crash.pftrace"), "crash-truncated", 77,
                 expect_unclosed=lambda n: n > 0)
    r = run([atf, "export", "--format", "perfetto", c, "-o", os.path.join(work, "crash.pftrace")])
    check("4 file(s) without a footer (crash-truncated)" in r.stderr,
          "crash-truncated: the recovery is reported: %r" % r.stderr)
    return finish("all Perfetto exports decoded by protoc and matched the sessions")


if __name__ == "__main__":
    sys.exit(main())
