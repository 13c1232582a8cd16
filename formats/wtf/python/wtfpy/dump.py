"""The canonical WTF dump of docs/wtf-dump-format.md (`atf dump --json
FILE.wtf-trace`), rendered from a model.Trace: the writer's model (the
oracle) or what the reader decoded.

Lines, in file order: one file line, then per chunk a chunk line followed by
its events' lines. Keys in the documented order, compact, one per line.
"""

from . import canon
from .canon import escape_bytes, number, render_json, rewrite_json_bytes


def file_line(t):
    h = "null" if not t.header_parsed else render_json(t.header)
    return '{"wtf_version":%d,"format_version":%d,"header":%s}\n' % (
        t.wtf_version, t.format_version, h)


def chunk_line(ci):
    h = ci.header
    parts = ",".join('{"type":%d,"offset":%d,"length":%d}' % (p.type, p.offset, p.length)
                     for p in h.parts)
    return '{"chunk":%d,"offset":%d,"id":%d,"type":%d,"start":%d,"end":%d,"parts":[%s]}\n' % (
        ci.index, ci.offset, h.id, h.type, h.start, h.end, parts)


def units_text(units):
    """A string of character codes (char: 0..255, wchar: UTF-16 units), as
    the JS library reads char and wchar: each code as the character it is,
    ASCII by the string rule, others as their \\u escape."""
    return '"' + "".join(escape_bytes(bytes([u]))[1:-1] if u < 0x80 else "\\u%04x" % u
                         for u in units) + '"'


def value_text(t, array, v):
    if t in ("char", "wchar"):
        if v is None:
            return "null"
        return units_text(v if array else [v])
    if array:
        if v is None:
            return "null"
        return "[" + ",".join(value_text(t, False, x) for x in v) + "]"
    if t == "bool":
        return "true" if v else "false"
    if t == "float32":
        return number(v)
    if t in ("ascii", "utf8"):
        return "null" if v is None else escape_bytes(v)
    if t == "any":
        if v is None:
            return "null"
        r = rewrite_json_bytes(v)
        return escape_bytes(v) if r is None else r
    return str(int(v))


def event_line(ev):
    args = ",".join(canon.escape_bytes(a.name.encode("ascii")) + ":" +
                    value_text(a.type, a.array, v) for a, v in zip(ev.define.args, ev.values))
    zone = "null" if ev.zone is None else str(ev.zone)
    return '{"chunk":%d,"offset":%d,"wire_id":%d,"event":%s,"time":%d,"zone":%s,"args":{%s}}\n' % (
        ev.chunk, ev.offset, ev.wire_id, escape_bytes(ev.define.name), ev.time, zone, args)


def dump_lines(t):
    """Every line of the dump of ``t`` (a model.Trace), each ending in a newline.
    A file without a readable 12-byte file header (cut inside it, or not a
    WTF header) has no line at all."""
    if t.wtf_version is None or any(n.clause in ("WTF-HDR-001", "WTF-HDR-002") for n in t.notes):
        return []
    out = [file_line(t)]
    by_chunk = {}
    for ev in t.events:
        by_chunk.setdefault(ev.chunk, []).append(ev)
    for ci in t.chunks:
        out.append(chunk_line(ci))
        out += [event_line(ev) for ev in by_chunk.get(ci.index, ())]
    return out
