"""The canonical RTC dump of docs/rtc-dump-format.md (`atf dump --json
FILE.rtc`), rendered from a model.Rtc. Lines sorted by file offset: skipped
ranges, Units, stream definitions, records."""

from .canon import render_json


def _n(v):
    return "null" if v is None else str(v)


def file_line(t):
    order = "null" if t.order is None else '"%s"' % t.order
    return '{"rtc":1,"size":%d,"unit_size":%s,"subunit_size":%s,"origin":%s,"byte_order":%s}\n' % (
        t.size, _n(t.unit_size), _n(t.subunit_size), _n(t.origin), order)


def dump_lines(t):
    from .canon import number
    items = []
    for off, n, why in t.skipped:
        items.append((off, 0, 0, '{"skipped":%d,"bytes":%d,"reason":"%s"}\n' % (off, n, why)))
    for u in t.units:
        crc = "null" if u.crc is None else '"%s"' % u.crc
        items.append((u.offset, 1, 0, '{"unit":%d,"offset":%d,"bytes":%d,"crc":%s}\n' % (
            u.number, u.offset, u.size, crc)))
    for s in t.streams:
        items.append((s.offset, 2, s.sid, '{"stream":%d,"offset":%d,"definition":%s}\n' % (
            s.sid, s.offset, render_json(s.obj))))
    for r in t.records:
        time = "null" if r.time is None else number(r.time)
        items.append((r.offset, 3, 0, '{"record":%d,"offset":%d,"frames":[%s],"size":%d,'
                      '"time":%s,"value":%s}\n' % (r.sid, r.offset,
                                                   ",".join(str(f) for f in r.frames),
                                                   len(r.payload), time, r.value)))
    items.sort(key=lambda x: x[:3])
    return [file_line(t)] + [x[3] for x in items]
