#!/usr/bin/python3
"""Property tests (Hypothesis) between the C codec and atfpy, the independent
Python implementation of ATF (formats/atf/python/atfpy).

    test_atf_properties.py --atf PATH/atf --writer PATH/atf-prop-writer [--workdir DIR] [unittest args]

Properties:
  1. Random sessions encoded by atfpy (both layouts, detail lanes, ARM64 and
     opaque payloads, symbols, crash-truncated files) decode identically with
     the C codec: `atf dump --json` prints atfpy's canonical dump of the model.
  2. Random sessions written by the C session writer (atf-prop-writer, from a
     description generated here) decode identically in Python: atfpy reads
     back the model, header and footer fields, checksums and manifest, and
     its dump equals `atf dump --json`.
  3. Any truncation of any file of a session recovers exactly the complete
     prefix: the dump of the cut session is the model's dump with the lost
     events removed (a cut inside the header is an error naming the file),
     and atfpy's reader recovers the same prefix.
  4. Any single corrupted byte in a header or a footer of a valid session is
     either detected (`atf validate --strict` fails: an error or a warning)
     or provably harmless: it lies in a field that carries no meaning for
     decoding (INFORMATIONAL below) and the canonical dump is unchanged.

Runs are derandomized by default (a fixed example sequence, ctest label
"property"). Longer seeded runs:
    ATF_PROPERTY_EXAMPLES=2000 ATF_PROPERTY_SEED=7 test_atf_properties.py --atf ... --writer ...
Needs Debian's python3-hypothesis: run with /usr/bin/python3.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
# The harness every format's property tests share (conformance/property/).
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "conformance", "property"))
import property_common as common  # noqa: E402  (profiles, run(), fresh_dir(), main())

from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import atfpy  # noqa: E402
from atfpy import (ARCH_ARM64, ARCH_X86_64, CHECKSUM_CRC32_IEEE, CHECKSUM_CRC32C,  # noqa: E402
                   CHECKSUM_NONE, LAYOUT_1, LAYOUT_2, U32_MAX, U64_MAX, Arm64Payload,
                   DetailEvent, IndexEvent, SessionModel, Symbol, ThreadModel)
from atfpy.dump import session_lines  # noqa: E402
from atfpy.session import SessionView, ThreadView, model_view, read_session, thread_files  # noqa: E402

INT63_MAX = (1 << 63) - 1
# Fields that carry no meaning for decoding or linking: a changed byte there
# cannot change what a reader makes of the session. (file, header offset)
INFORMATIONAL = {
    "index": {6: "arch (of a thread without a detail lane)", 7: "os",
              8: "flags bits 1..7", 9: "flags", 10: "flags", 11: "flags",
              12: "thread_id", 13: "thread_id", 14: "thread_id", 15: "thread_id",
              16: "clock_type"},
    "detail": {8: "flags", 9: "flags", 10: "flags", 11: "flags"},
}


def informational(which, region, off, flip, thread):
    """True when the changed byte provably cannot change any decoded value."""
    if region != "header":
        return False
    if which == "index" and off == 8 and flip & 1:
        return False                       # has_detail_file: checked against the files
    if which == "detail" and not thread.detail_events and 44 <= off < 60:
        return True                        # index_seq range of a detail file without events
    return off in INFORMATIONAL[which]


def dump(path):
    r = common.run([common.ATF, "dump", "--json", path])
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


# ---- Strategies ----------------------------------------------------------------

u64 = st.one_of(st.integers(0, U64_MAX), st.sampled_from([0, 1, U32_MAX, U32_MAX + 1, INT63_MAX,
                                                          1 << 63, U64_MAX - 1, U64_MAX]))
u32 = st.one_of(st.integers(0, U32_MAX), st.sampled_from([0, U32_MAX]))
names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                min_size=1, max_size=12)


@st.composite
def arm64_payloads(draw, clean=False, function_id=None):
    stack = draw(st.binary(max_size=256))
    reserved = 0 if clean else draw(st.sampled_from([0, 0, 1, 0xFFFF]))   # ARM-PAY-004
    fid = draw(u64) if function_id is None else function_id               # ARM-PAY-005
    return Arm64Payload(fid, [draw(u64) for _ in range(8)], draw(u64), draw(u64), draw(u64),
                        stack, reserved=reserved).encode()


@st.composite
def threads(draw, layout, arch, tid, clean, detail_possible=True):
    """A ThreadModel; clean: valid and free of SHOULD-level findings (kinds 1..3,
    timestamps never going backwards and not starting at 0, layout-1 thread ids
    equal to the header's, detail timestamps equal to their index events')."""
    n = draw(st.integers(0, 24))
    with_detail = detail_possible and draw(st.booleans())
    os_tid = draw(u32)
    ts = draw(st.integers(1, 1 << 40)) if clean else draw(u64)
    pool = draw(st.lists(u64, min_size=1, max_size=6))
    events, details = [], ([] if with_detail else None)
    for seq in range(n):
        if clean:
            ts = min(U64_MAX, ts + draw(st.integers(0, 1000)))
            kind = draw(st.integers(1, 3))
        else:
            ts = draw(st.one_of(st.just(ts), u64))
            kind = draw(st.integers(0, 255 if layout == LAYOUT_2 else U32_MAX))
        ev = IndexEvent(timestamp_ns=ts, function_id=draw(st.sampled_from(pool)), event_kind=kind)
        if layout == LAYOUT_1:
            ev.thread_id, ev.call_depth = (os_tid if clean else draw(u32)), draw(u32)
        if with_detail and draw(st.integers(0, 2)) > 0:
            etype = draw(st.sampled_from([3, 4])) if clean else draw(st.integers(0, 0xFFFF))
            if clean and arch == ARCH_ARM64:       # ARM-PAY-001..005: well-formed payloads
                payload = draw(arm64_payloads(clean, ev.function_id))
            else:
                payload = draw(st.one_of(arm64_payloads(clean), st.binary(max_size=200)))
            dev = DetailEvent(event_type=etype, flags=draw(st.integers(0, 0xFFFF)), index_seq=seq,
                              timestamp=ts if clean else draw(u64), payload=payload,
                              thread_id=os_tid if layout == LAYOUT_1 else 0)
            ev.detail_seq = len(details)
            details.append(dev)
        events.append(ev)
    return ThreadModel(id=tid, os_thread_id=os_tid, events=events, detail_events=details)


@st.composite
def sessions(draw, clean=False, crashed=None, c_writer=False):
    layout = draw(st.sampled_from([LAYOUT_1, LAYOUT_2]))
    if c_writer:
        checksum = draw(st.sampled_from([CHECKSUM_CRC32C, CHECKSUM_NONE]))
    elif clean and layout == LAYOUT_2:
        checksum = CHECKSUM_CRC32C      # a layout-2 checksum of 0 is a warning (CRC-003)
    else:
        checksum = draw(st.sampled_from([CHECKSUM_CRC32C, CHECKSUM_NONE] +
                                        ([CHECKSUM_CRC32_IEEE] if layout == LAYOUT_1 else [])))
    arch = draw(st.sampled_from([ARCH_ARM64, ARCH_ARM64, ARCH_X86_64] + ([] if clean else [0, 7])))
    crashed = draw(st.booleans()) if crashed is None else crashed
    s = SessionModel("prop", layout=layout, arch=arch, os=draw(st.integers(1, 5)),
                     clock_type=draw(st.integers(1, 3)), checksum=checksum, crashed=crashed)
    ids = draw(st.lists(st.integers(0, 1 << 20), min_size=1, max_size=3, unique=True))
    s.threads = [draw(threads(layout, arch, tid, clean)) for tid in ids]
    fids = sorted({e.function_id for t in s.threads for e in t.events})
    if fids and draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(fids), unique=True, max_size=4))
        s.symbols = [Symbol(f, draw(st.integers(0, 8)), draw(st.integers(0, 1000)), draw(names))
                     for f in chosen]
    s.hex_form = True if any(x.function_id > INT63_MAX for x in s.symbols) else \
        draw(st.sampled_from([False, True, "mixed"]))
    if any(e.timestamp_ns > INT63_MAX for t in s.threads for e in t.events):
        s.manifest_times = "zero"
    if crashed:
        for t in s.threads:
            index, detail = thread_files(s, t)
            t.index_cut = draw(st.integers(64, len(index)))
            if detail is not None:
                t.detail_cut = draw(st.integers(64, len(detail)))
    return s


# ---- Expected dumps of cut sessions ---------------------------------------------

def truncated_view(model, tid, which, cut, full_len):
    """The view a reader must have of `model` after cutting thread tid's
    index or detail file to `cut` bytes (cut >= 64)."""
    view = model_view(model)
    for tv in view.threads:
        if tv.id != tid:
            continue
        if which == "index":
            n = len(tv.index_events)
            if cut < full_len:
                # The events region ends at footer_offset (finalized) or the file's end;
                # trailing all-zero records are a zero fill, not events (SPEC 7a.6).
                end = max(64, min(cut, 64 + 32 * n))
                k = (end - 64) // 32
                while k and not any(tv.index_events[k - 1].encode(model.layout)):
                    k -= 1
                tv.index_events = tv.index_events[:k]
        else:
            if cut < full_len:
                end = min(cut, 64 + sum(ev.total_length for _, ev in tv.detail_events))
                tv.detail_events = [(off, ev) for off, ev in tv.detail_events
                                    if off + ev.total_length <= end]
    return view


# ---- Helpers -------------------------------------------------------------------

def writer_script(model, directory):
    lines = ["session %s %d %d %d %d %d %d" % (directory, model.layout, model.arch, model.os,
                                                model.clock_type,
                                                model.checksum == CHECKSUM_CRC32C, 4096)]
    for s in model.symbols:
        lines.append("symbol %d %d %d %s" % (s.function_id, s.module_id, s.symbol_index,
                                             s.name.encode().hex()))
    for t in model.threads:
        lines.append("thread %d %d %d" % (t.id, t.os_thread_id, t.detail_events is not None))
    # Interleave the threads' events round-robin: each thread keeps its order.
    cursors = {t.id: 0 for t in model.threads}
    while any(cursors[t.id] < len(t.events) for t in model.threads):
        for t in model.threads:
            if cursors[t.id] >= len(t.events):
                continue
            ev = t.events[cursors[t.id]]
            cursors[t.id] += 1
            head = "event %d %d %d %d %d %d" % (t.id, ev.timestamp_ns, ev.function_id, ev.event_kind,
                                               ev.thread_id, ev.call_depth)
            if ev.detail_seq is not None:
                d = t.detail_events[ev.detail_seq]
                head += " %d %d %d %d %s" % (d.event_type, d.flags, d.timestamp, d.thread_id,
                                             d.payload.hex() or "-")
            lines.append(head)
    lines.append("end")
    return "\n".join(lines) + "\n"


def _del_symbol_session():
    """Found by property 1: the C dump printed DEL (0x7f) raw where json.dumps
    escapes it (\\u007f). Kept as an explicit example."""
    s = SessionModel("del", layout=LAYOUT_1, checksum=CHECKSUM_CRC32C)
    s.threads = [ThreadModel(id=0, os_thread_id=0,
                             events=[IndexEvent(timestamp_ns=0, function_id=0, event_kind=0)])]
    s.symbols = [Symbol(0, 0, 0, "\x7f\x1f\u2028\U0001F600")]
    return s


class Properties(unittest.TestCase):

    @given(sessions())
    @example(_del_symbol_session())
    def test_1_atfpy_sessions_decode_identically_in_c(self, model):
        d = common.fresh_dir("p1")
        atfpy.write_session(model, d)
        rc, out, err = dump(d)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "".join(atfpy.expected_dump(model)))

    @given(sessions(crashed=False, c_writer=True))
    def test_2_c_writer_sessions_decode_identically_in_python(self, model):
        d = common.fresh_dir("p2")
        os.rmdir(d)
        r = common.run([common.WRITER], input=writer_script(model, d).encode())
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        view = read_session(d)                       # atfpy decodes, checksums verified
        want = session_lines(model_view(model))
        self.assertEqual(session_lines(view), want)
        rc, out, err = dump(d)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "".join(want))
        manifest = atfpy.load_manifest(os.path.join(d, "manifest.json"))
        self.assertEqual([(atfpy.parse_manifest_int(t["id"]), t["has_detail"]) for t in manifest["threads"]],
                         [(t.id, t.detail_events is not None) for t in model.threads])
        self.assertEqual(atfpy.manifest_symbol_map(manifest), model.symbol_map())
        for t in model.threads:
            tdir = os.path.join(d, "thread_%d" % t.id)
            with open(os.path.join(tdir, "index.atf"), "rb") as f:
                idx = atfpy.parse_index_file(f.read())
            h, n = idx.header, len(t.events)
            self.assertEqual((h.version, h.arch, h.os, h.clock_type, h.thread_id, h.flags),
                             (model.layout, model.arch, model.os, model.clock_type, t.os_thread_id,
                              int(t.detail_events is not None)))
            self.assertEqual((h.event_count, h.footer_offset, idx.footer.event_count,
                              idx.footer.bytes_written, idx.trailing_bytes), (n, 64 + 32 * n, n, 32 * n, 0))
            self.assertEqual(idx.checksum_state,
                             "crc32c" if model.checksum == CHECKSUM_CRC32C and idx.footer.checksum else "zero")
            if t.detail_events is not None:
                with open(os.path.join(tdir, "detail.atf"), "rb") as f:
                    det = atfpy.parse_detail_file(f.read())
                blen = sum(e.total_length for e in t.detail_events)
                self.assertEqual((det.header.event_count, det.header.bytes_length, det.footer.bytes_length,
                                  det.header.arch, det.header.thread_id),
                                 (len(t.detail_events), blen, blen, model.arch, t.os_thread_id))

    @given(sessions(), st.data())
    def test_3_truncation_recovers_the_complete_prefix(self, model, data):
        d = common.fresh_dir("p3")
        atfpy.write_session(model, d)
        t = data.draw(st.sampled_from(model.threads))
        which = data.draw(st.sampled_from(["index"] + (["detail"] if t.detail_events is not None else [])))
        path = os.path.join(d, "thread_%d" % t.id, which + ".atf")
        with open(path, "rb") as f:
            full = f.read()
        cut = data.draw(st.integers(0, len(full)))
        with open(path, "wb") as f:
            f.write(full[:cut])
        rc, out, err = dump(d)
        # Every complete event is dumped, whatever the cut (a cut inside the
        # header among them: SPEC 7a.12). A file that is not whole is named on
        # stderr; the exit status is 1 only when it is damaged (a finalized
        # header without its footer, REC-004), as atfpy says independently.
        parse = atfpy.parse_index_file if which == "index" else atfpy.parse_detail_file
        cut_file = parse(full[:cut], verify=False)
        self.assertEqual(rc, 1 if cut_file.state == "damaged" else 0, err)
        if cut < len(full):
            self.assertIn(which + ".atf: " + cut_file.state, err)
        want = truncated_view(model, t.id, which, cut, len(full))
        self.assertEqual(out, "".join(session_lines(want)))
        # atfpy's reader recovers the same prefix.
        got = cut_file.events
        tv = next(v for v in want.threads if v.id == t.id)
        self.assertEqual(got, tv.index_events if which == "index" else tv.detail_events)

    @given(sessions(clean=True, crashed=False), st.data())
    def test_4_corrupt_header_or_footer_byte_is_detected_or_harmless(self, model, data):
        d = common.fresh_dir("p4")
        atfpy.write_session(model, d)
        r = common.run([common.ATF, "validate", "--strict", d])
        self.assertEqual(r.returncode, 0, "the original must be valid: " + r.stdout.decode())
        rc, original, err = dump(d)
        self.assertEqual(rc, 0, err)
        t = data.draw(st.sampled_from(model.threads))
        which = data.draw(st.sampled_from(["index"] + (["detail"] if t.detail_events is not None else [])))
        path = os.path.join(d, "thread_%d" % t.id, which + ".atf")
        with open(path, "rb") as f:
            raw = bytearray(f.read())
        region = data.draw(st.sampled_from(["header", "footer"]))
        off = data.draw(st.integers(0, 63))
        pos = off if region == "header" else len(raw) - 64 + off
        flip = data.draw(st.integers(1, 255))
        raw[pos] ^= flip
        with open(path, "wb") as f:
            f.write(raw)
        r = common.run([common.ATF, "validate", "--strict", d])
        if r.returncode != 0:
            return                                     # detected: an error or a warning
        rc, now, err = dump(d)
        self.assertTrue(informational(which, region, off, flip, t),
                        "undetected change of %s %s byte %d (xor 0x%02x)" % (which, region, off, flip))
        self.assertEqual((rc, now), (0, original),
                         "%s %s byte %d (informational) changed the dump" % (which, region, off))


if __name__ == "__main__":
    common.main(Properties)
