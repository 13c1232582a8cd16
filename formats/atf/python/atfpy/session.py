"""Session model, session writer, and session / thread-directory readers.

A session directory holds ``manifest.json`` in the ADA reader's schema::

    {"format_version":"2.0","clock_type":3,"time_start_ns":N,"time_end_ns":N,
     "threads":[{"id":K,"has_detail":bool},...],
     "modules":[{"module_id","path","base_address","size","uuid"}],   (optional)
     "symbols":[{"function_id","module_id","symbol_index","name"}]}    (optional)

and ``thread_K/index.atf`` (+ ``thread_K/detail.atf``) for every thread K.
``base_address`` and ``function_id`` may be numbers or hex strings "0x...".

The model (:class:`SessionModel`) is what generators build: the events as
written, plus how the files are written (layout, checksum, crash cuts). The
expected dump is computed from it (see :mod:`atfpy.dump`) without reading the
files back; :func:`read_session` decodes what was written, for self-checks and
for tools.
"""

import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .crc import CHECKSUM_CRC32C
from .files import (build_detail_file, build_index_file, detail_offsets, parse_detail_file,
                    parse_index_file)
from .records import (ARCH_ARM64, CLOCK_BOOTTIME, DETAIL_HEADER_SIZE, INDEX_EVENT_SIZE,
                      INDEX_HEADER_SIZE, LAYOUT_2, OS_LINUX, DetailEvent, IndexEvent)

INT63_MAX = (1 << 63) - 1


@dataclass
class Module:
    module_id: int
    path: str
    base_address: int
    size: int
    uuid: str


@dataclass
class Symbol:
    function_id: int
    module_id: int
    symbol_index: int
    name: str


@dataclass
class ThreadModel:
    id: int                                   # K of thread_K/ (manifest id)
    os_thread_id: int                         # header thread_id (and L1 event/detail thread_id)
    events: List[IndexEvent] = field(default_factory=list)
    detail_events: Optional[List[DetailEvent]] = None   # None: no detail.atf
    checksum: Optional[str] = None            # None: the session's
    index_flags: Optional[int] = None         # None: bit 0 = has detail file
    manifest_has_detail: Optional[bool] = None  # None: has detail file
    index_cut: Optional[int] = None           # crash: index.atf length (None: all bytes)
    detail_cut: Optional[int] = None          # crash: detail.atf length

    @property
    def has_detail_file(self):
        return self.detail_events is not None


@dataclass
class SessionModel:
    name: str
    layout: int = LAYOUT_2
    arch: int = ARCH_ARM64
    os: int = OS_LINUX
    clock_type: int = CLOCK_BOOTTIME
    checksum: str = CHECKSUM_CRC32C
    crashed: bool = False                     # placeholder headers, no footers
    threads: List[ThreadModel] = field(default_factory=list)   # manifest order
    modules: List[Module] = field(default_factory=list)
    symbols: List[Symbol] = field(default_factory=list)
    hex_form: object = False                  # base_address/function_id as "0x..." strings:
                                              # False, True, or "mixed" (every other entry)
    format_version: Optional[str] = None      # None: "2.1" with symbols, else "2.0"
    manifest_times: str = "real"              # "real" or "zero"
    description: str = ""
    validate_exit: Optional[int] = 0          # expected `atf validate` exit code, None: unchecked

    def thread(self, tid):
        for t in self.threads:
            if t.id == tid:
                return t
        raise KeyError(tid)

    def symbol_map(self):
        out = {}
        for s in self.symbols:
            out.setdefault(s.function_id, s.name)   # listed twice: the first entry (SES-MAN-012)
        return out

    # -- what a reader recovers (computed from the model, not from files) --

    def visible_index_count(self, t):
        """Index events a recovering reader sees."""
        n = len(t.events)
        if self.crashed and t.index_cut is not None:
            n = min(n, max(0, (t.index_cut - INDEX_HEADER_SIZE) // INDEX_EVENT_SIZE))
        return n

    def visible_detail(self, t):
        """[(offset, DetailEvent)] a recovering reader sees; None without a detail file."""
        if t.detail_events is None:
            return None
        offs = detail_offsets(t.detail_events, DETAIL_HEADER_SIZE)
        out = []
        for off, ev in zip(offs, t.detail_events):
            if self.crashed and t.detail_cut is not None and off + ev.total_length > t.detail_cut:
                break
            out.append((off, ev))
        return out

    # -- manifest --

    def manifest(self):
        visible_ts = []
        for t in self.threads:
            n = self.visible_index_count(t)
            if n:
                visible_ts += [t.events[0].timestamp_ns, t.events[n - 1].timestamp_ns]
        if self.manifest_times == "zero" or not visible_ts:
            t0 = t1 = 0
        else:
            t0, t1 = min(visible_ts), max(visible_ts)
            if t1 > INT63_MAX:
                raise ValueError("manifest times above 2^63-1: use manifest_times='zero'")
        fv = self.format_version or ("2.1" if self.symbols else "2.0")
        m = {"format_version": fv, "clock_type": self.clock_type,
             "time_start_ns": t0, "time_end_ns": t1,
             "threads": [{"id": t.id,
                          "has_detail": (t.has_detail_file if t.manifest_has_detail is None
                                         else t.manifest_has_detail)}
                         for t in self.threads]}

        def num(v, i):
            if self.hex_form is True or (self.hex_form == "mixed" and i % 2 == 0):
                return "0x%x" % v
            if v > INT63_MAX:
                raise ValueError("%d does not fit a JSON int64: use hex_form" % v)
            return v

        if self.modules:
            m["modules"] = [{"module_id": md.module_id, "path": md.path,
                             "base_address": num(md.base_address, i), "size": md.size,
                             "uuid": md.uuid} for i, md in enumerate(self.modules)]
        if self.symbols:
            m["symbols"] = [{"function_id": num(s.function_id, i), "module_id": s.module_id,
                             "symbol_index": s.symbol_index, "name": s.name}
                            for i, s in enumerate(self.symbols)]
        return m


# ---- Writer ---------------------------------------------------------------

def thread_files(model, t):
    """(index bytes, detail bytes or None) of thread ``t`` as written on disk."""
    checksum = t.checksum or model.checksum
    fin = not model.crashed
    index = build_index_file(t.events, layout=model.layout, arch=model.arch, os=model.os,
                             clock_type=model.clock_type, thread_id=t.os_thread_id,
                             has_detail_file=t.has_detail_file, checksum=checksum,
                             finalized=fin, flags=t.index_flags)
    if model.crashed and t.index_cut is not None:
        if t.index_cut < INDEX_HEADER_SIZE or t.index_cut > len(index):
            raise ValueError("index_cut %d outside [64, %d]" % (t.index_cut, len(index)))
        index = index[:t.index_cut]
    detail = None
    if t.detail_events is not None:
        detail = build_detail_file(t.detail_events, layout=model.layout, arch=model.arch,
                                   os=model.os, thread_id=t.os_thread_id, checksum=checksum,
                                   finalized=fin)
        if model.crashed and t.detail_cut is not None:
            if t.detail_cut < DETAIL_HEADER_SIZE or t.detail_cut > len(detail):
                raise ValueError("detail_cut %d outside [64, %d]" % (t.detail_cut, len(detail)))
            detail = detail[:t.detail_cut]
    return index, detail


def write_session(model, directory):
    """Writes the session directory (created if needed; existing files replaced)."""
    os.makedirs(directory, exist_ok=True)
    for t in model.threads:
        tdir = os.path.join(directory, "thread_%d" % t.id)
        os.makedirs(tdir, exist_ok=True)
        index, detail = thread_files(model, t)
        with open(os.path.join(tdir, "index.atf"), "wb") as f:
            f.write(index)
        dpath = os.path.join(tdir, "detail.atf")
        if detail is not None:
            with open(dpath, "wb") as f:
                f.write(detail)
        elif os.path.exists(dpath):
            os.remove(dpath)
    with open(os.path.join(directory, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(model.manifest(), f, indent=2, ensure_ascii=False)
        f.write("\n")


# ---- Readers --------------------------------------------------------------

def parse_manifest_int(v):
    """A manifest integer: a JSON number or a hex string "0x..."."""
    if isinstance(v, bool):
        raise ValueError("boolean where an integer is expected")
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"0[xX][0-9a-fA-F]+", v):
        return int(v, 16)
    raise ValueError("not an integer or hex string: %r" % (v,))


U64_LIMIT = 1 << 64
_DEC = re.compile(r"[0-9]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")


class U64RangeError(ValueError):
    """A number outside a u64 key's range, or not an integer (SES-MAN-013)."""


class JsonReal(float):
    """A JSON number with a fraction or an exponent, keeping its text."""

    def __new__(cls, text):
        r = float.__new__(cls, text)
        r.text = text
        return r


def parse_u64(v):
    """A manifest u64 as SPEC.md section 5 allows it: a JSON integer 0..2^64-1,
    or a string holding a decimal or "0x"-prefixed hexadecimal number up to
    2^64-1. Raises U64RangeError for a number outside that range or not an
    integer, ValueError (with the reason) for anything else."""
    if isinstance(v, bool):
        raise ValueError("boolean where a u64 is expected")
    if isinstance(v, JsonReal):
        raise U64RangeError("%s is not an integer" % v.text)
    if isinstance(v, float):
        raise U64RangeError("%r is not an integer" % v)
    if isinstance(v, int):
        if not 0 <= v < U64_LIMIT:
            raise U64RangeError("%d is outside the u64 range 0..2^64-1" % v)
        return v
    if isinstance(v, str):
        if _DEC.fullmatch(v):
            n = int(v, 10)
        elif _HEX.fullmatch(v):
            n = int(v, 16)
        else:
            raise ValueError("string %r is not a decimal or 0x-hexadecimal number" % (v,))
        if n >= U64_LIMIT:
            raise U64RangeError("%r is outside the u64 range 0..2^64-1" % (v,))
        return n
    raise ValueError("%s where a u64 is expected" % type(v).__name__)


_WS = b" \t\n\r"
_ESCAPES = b'"\\/bfnrt'
_HEX_DIGITS = b"0123456789abcdefABCDEF"


def manifest_cut(raw):
    """SPEC 7a.14: whether ``raw`` (manifest.json's bytes) is crash-truncated:
    less a run of NUL bytes at its end, a proper prefix of a JSON text whose
    top-level value is an object, by RFC 8259's grammar and UTF-8 alone (an
    empty or all-NUL file is a cut before the value; whitespace alone is not).
    Returns ``(cut, text_len, error_at)``: ``error_at`` is the offset of the
    first byte that is not JSON (None when there is none). A scanner of its
    own, not ``json``: ``json`` reports a string cut at the end at the
    string's start, like any unterminated string. Mirrors the C scanner
    (formats/atf/src/manifest_prefix.c)."""
    n = len(raw)
    while n and raw[n - 1] == 0:
        n -= 1
    stack = []            # True: object
    st = "top"
    key = False
    lit = b""
    num = ""
    hexleft = cp = u8left = 0
    u8lo, u8hi = 0x80, 0xBF
    need_low = False
    i = 0
    while i < n:
        c = raw[i]
        if st == "top":
            if c in _WS:
                pass
            elif c == 0x7B:
                stack.append(True)
                st = "obj_first"
            else:
                return False, n, i
        elif st in ("value", "arr_first"):
            if c in _WS:
                pass
            elif c == 0x5D and st == "arr_first":
                stack.pop()
                st = "after" if stack else "done"
            elif c in (0x7B, 0x5B):
                stack.append(c == 0x7B)
                st = "obj_first" if c == 0x7B else "arr_first"
            elif c == 0x22:
                st, key = "string", False
            elif c in b"tfn":
                lit = {0x74: b"rue", 0x66: b"alse", 0x6E: b"ull"}[c]
                st = "literal"
            elif c == 0x2D or 0x30 <= c <= 0x39:
                num = "minus" if c == 0x2D else "zero" if c == 0x30 else "int"
                st = "number"
            else:
                return False, n, i
        elif st in ("obj_first", "key"):
            if c in _WS:
                pass
            elif c == 0x7D and st == "obj_first":
                stack.pop()
                st = "after" if stack else "done"
            elif c == 0x22:
                st, key = "string", True
            else:
                return False, n, i
        elif st == "colon":
            if c in _WS:
                pass
            elif c == 0x3A:
                st = "value"
            else:
                return False, n, i
        elif st == "after":
            if c in _WS:
                pass
            elif c == 0x2C:
                st = "key" if stack[-1] else "value"
            elif c == (0x7D if stack[-1] else 0x5D):
                stack.pop()
                st = "after" if stack else "done"
            else:
                return False, n, i
        elif st == "done":
            if c not in _WS:
                return False, n, i
        elif st == "string":
            if c == 0x22:
                st = "colon" if key else "after"
            elif c == 0x5C:
                st = "esc"
            elif c < 0x20:
                return False, n, i
            elif c >= 0x80:
                # RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF
                u8lo, u8hi = 0x80, 0xBF
                if 0xC2 <= c <= 0xDF:
                    u8left = 1
                elif 0xE0 <= c <= 0xEF:
                    u8left = 2
                    if c == 0xE0:
                        u8lo = 0xA0
                    elif c == 0xED:
                        u8hi = 0x9F
                elif 0xF0 <= c <= 0xF4:
                    u8left = 3
                    if c == 0xF0:
                        u8lo = 0x90
                    elif c == 0xF4:
                        u8hi = 0x8F
                else:
                    return False, n, i
                st = "utf8"
        elif st == "utf8":
            if not u8lo <= c <= u8hi:
                return False, n, i
            u8lo, u8hi = 0x80, 0xBF
            u8left -= 1
            if not u8left:
                st = "string"
        elif st == "esc":
            if c == 0x75:
                st, hexleft, cp = "uhex", 4, 0
            elif c in _ESCAPES:
                st = "string"
            else:
                return False, n, i
        elif st == "uhex":
            if c not in _HEX_DIGITS:
                return False, n, i
            cp = cp << 4 | int(chr(c), 16)
            hexleft -= 1
            if hexleft:
                pass
            elif need_low:
                if not 0xDC00 <= cp <= 0xDFFF:   # a high surrogate needs a low one
                    return False, n, i - 5
                need_low, st = False, "string"
            elif 0xD800 <= cp <= 0xDBFF:
                need_low, st = True, "low_bs"
            elif 0xDC00 <= cp <= 0xDFFF:
                return False, n, i - 5
            else:
                st = "string"
        elif st == "low_bs":
            if c != 0x5C:
                return False, n, i
            st = "low_u"
        elif st == "low_u":
            if c != 0x75:
                return False, n, i
            st, hexleft, cp = "uhex", 4, 0
        elif st == "literal":
            if c != lit[0]:
                return False, n, i
            lit = lit[1:]
            if not lit:
                st = "after"
        else:   # number
            digit = 0x30 <= c <= 0x39
            if num == "minus":
                if not digit:
                    return False, n, i
                num = "zero" if c == 0x30 else "int"
            elif num in ("zero", "int", "frac"):
                if digit and num != "zero":
                    pass
                elif c == 0x2E and num != "frac":
                    num = "dot"
                elif c in b"eE":
                    num = "e"
                elif digit:          # a digit after a leading 0
                    return False, n, i
                else:
                    st = "after"     # the number ends: the byte is read again
                    continue
            elif num == "dot":
                if not digit:
                    return False, n, i
                num = "frac"
            elif num == "e" and c in b"+-":
                num = "esign"
            elif num in ("e", "esign"):
                if not digit:
                    return False, n, i
                num = "exp"
            else:   # exp
                if not digit:
                    st = "after"
                    continue
        i += 1
    if st == "top" and n:
        # whitespace alone: no writer writes it before the value, no trace of a cut
        return False, n, n
    return st != "done", n, None


def load_manifest(path):
    with open(path, "r", encoding="utf-8") as f:
        return json.load(f, parse_float=JsonReal)


def manifest_symbol_map(manifest):
    out = {}
    for s in (manifest or {}).get("symbols", []) or []:
        out.setdefault(parse_u64(s["function_id"]), s["name"])   # listed twice: the first entry (SES-MAN-012)
    return out


@dataclass
class ThreadView:
    """What a reader sees of one thread: the layout-neutral input of the dump."""
    id: int
    index_layout: int
    index_events: List[IndexEvent]             # seq = position
    detail_layout: Optional[int] = None
    detail_arch: Optional[int] = None
    detail_events: Optional[list] = None       # [(offset, DetailEvent)], None: no detail file


@dataclass
class SessionView:
    threads: List[ThreadView]                  # ascending id
    symbols: Dict[int, str] = field(default_factory=dict)


_THREAD_DIR = re.compile(r"thread_(\d+)$")


def read_thread_dir(path, tid=None, verify=True):
    """ThreadView of ``path`` (a thread_K directory); K from the name unless ``tid``."""
    if tid is None:
        m = _THREAD_DIR.match(os.path.basename(os.path.normpath(path)))
        if not m:
            raise ValueError("%s is not named thread_K" % path)
        tid = int(m.group(1))
    with open(os.path.join(path, "index.atf"), "rb") as f:
        idx = parse_index_file(f.read(), verify)
    view = ThreadView(tid, idx.layout, idx.events)
    dpath = os.path.join(path, "detail.atf")
    if os.path.exists(dpath):
        with open(dpath, "rb") as f:
            det = parse_detail_file(f.read(), verify)
        view.detail_layout = det.layout
        view.detail_arch = det.header.arch
        view.detail_events = det.events
    return view


_THREAD_DIR_NAME = re.compile(r"thread_(0|[1-9][0-9]*)")


def discover_thread_ids(directory):
    """Ids K of the thread_K directories (canonical spelling) in ``directory``."""
    out = []
    for name in sorted(os.listdir(directory)):
        m = _THREAD_DIR_NAME.fullmatch(name)
        if m and os.path.isdir(os.path.join(directory, name)):
            out.append(int(m.group(1)))
    return sorted(out)


def read_session(directory, verify=True):
    """SessionView of a session directory (decoding every file): the threads the
    manifest lists and the thread_K directories it does not list; without a
    manifest, the discovered thread_K directories."""
    mpath = os.path.join(directory, "manifest.json")
    # SPEC 7a.14: an empty or crash-truncated manifest.json (a crash while it
    # was being written) is as if absent.
    manifest = None
    if os.path.exists(mpath) and os.path.getsize(mpath):
        with open(mpath, "rb") as f:
            raw = f.read()
        if not manifest_cut(raw)[0]:
            manifest = json.loads(raw.decode("utf-8"), parse_float=JsonReal)
    ids = set(discover_thread_ids(directory))
    if manifest is not None:
        ids |= {parse_u64(t["id"]) for t in manifest.get("threads", [])}
    threads = [read_thread_dir(os.path.join(directory, "thread_%d" % k), k, verify)
               for k in sorted(ids)]
    return SessionView(threads, manifest_symbol_map(manifest))


def model_view(model):
    """SessionView of a model: what a conforming reader must see, by arithmetic."""
    threads = []
    for t in sorted(model.threads, key=lambda t: t.id):
        n = model.visible_index_count(t)
        v = ThreadView(t.id, model.layout, list(t.events[:n]))
        det = model.visible_detail(t)
        if det is not None:
            v.detail_layout, v.detail_arch, v.detail_events = model.layout, model.arch, det
        threads.append(v)
    return SessionView(threads, model.symbol_map())


def call_step(stack, r, pick, max_depth, p_call, p_return, may_throw=True):
    """(function_id, event_kind, call_depth) of the next event of a generated
    call stack (the generators' models, not a reader): a call of ``pick()``
    when the stack is empty or below ``max_depth`` deep with ``r`` below
    ``p_call``; else the return of the innermost call when ``r`` is below
    ``p_return`` or ``may_throw`` is false; else an exception in it.
    ``stack`` (function ids) is updated."""
    from .records import EVENT_CALL, EVENT_EXCEPTION, EVENT_RETURN
    if not stack or (len(stack) < max_depth and r < p_call):
        stack.append(pick())
        return stack[-1], EVENT_CALL, len(stack) - 1
    if r < p_return or not may_throw:
        fid = stack.pop()
        return fid, EVENT_RETURN, len(stack)
    return stack[-1], EVENT_EXCEPTION, len(stack)
