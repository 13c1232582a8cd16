"""The canonical text of the one-file formats' dumps (docs/<format>-dump-format.md):
string escaping over bytes, the number rule, and JSON values rewritten
compactly.

Strings: ASCII 0x20..0x7E other than ``"`` and ``\\`` as they are; ``"``
``\\`` and \\n \\r \\t \\b \\f with a backslash; other bytes below 0x80 as
``\\u00xx``; a lead byte 0xC0..0xFF with its continuation bytes (1 below 0xE0,
2 below 0xF0, 3 otherwise) decoded to a code point and written as ``\\uxxxx``
(a surrogate pair above U+FFFF); a stray continuation byte, a lead byte short
of continuation bytes (the bytes read so far are consumed, the next one is
not) or a value above U+10FFFF as ``\\ufffd``. Lowercase hex.

Numbers: an integral value of magnitude below 2^53 as an integer (-0 as 0);
NaN and the infinities as the strings "NaN", "Infinity", "-Infinity"; any
other value with the first of %.15g, %.16g, %.17g that reads back as the
same double.
"""

import json
import math
import sys

_SHORT = {0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x08: "\\b",
          0x0C: "\\f"}
TWO_53 = 1 << 53


def _u(c):
    return "\\u%04x" % c


def escape_bytes(b):
    """The quoted JSON string of byte string ``b``."""
    out = ['"']
    i, n = 0, len(b)
    while i < n:
        c = b[i]
        i += 1
        if c < 0x80:
            if 0x20 <= c < 0x7F and c not in (0x22, 0x5C):
                out.append(chr(c))
            else:
                out.append(_SHORT.get(c) or _u(c))
            continue
        if c >= 0xF0:
            extra, v = 3, c & 0x07
        elif c >= 0xE0:
            extra, v = 2, c & 0x0F
        elif c >= 0xC0:
            extra, v = 1, c & 0x1F
        else:
            out.append("\\ufffd")       # a stray continuation byte
            continue
        ok = True
        for _ in range(extra):
            if i < n and (b[i] & 0xC0) == 0x80:
                v = (v << 6) | (b[i] & 0x3F)
                i += 1
            else:
                ok = False
                break
        if not ok or v > 0x10FFFF:
            v = 0xFFFD
        if v >= 0x10000:
            v -= 0x10000
            out.append(_u(0xD800 + (v >> 10)) + _u(0xDC00 + (v & 0x3FF)))
        else:
            out.append(_u(v))
    out.append('"')
    return "".join(out)


def escape_str(s):
    """A (Python) string: its code points as the byte rule writes their UTF-8;
    a lone surrogate (which JSON text may hold as an escape) as itself, the
    way its three-byte encoding would be read."""
    return escape_bytes(s.encode("utf-8", "surrogatepass"))


def number(x):
    """The canonical text of number ``x`` (int or float)."""
    if isinstance(x, bool):
        raise TypeError("bool is not a number here")
    if isinstance(x, int):
        if -TWO_53 < x < TWO_53:
            return str(x)
        try:
            x = float(x)          # as a C reader holds it: the nearest double
        except OverflowError:
            x = math.inf if x > 0 else -math.inf
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"Infinity"' if x > 0 else '"-Infinity"'
    if x == int(x) and abs(x) < TWO_53:
        return str(int(x))
    for p in (15, 16, 17):
        s = "%.*g" % (p, x)
        if float(s) == x:
            return s
    raise AssertionError("%.17g does not read back" % x)   # cannot happen for a double


# ---- JSON values --------------------------------------------------------------

class JsonText(str):
    """A number as written in the JSON text (kept to apply the number rule)."""


def _reject_constant(name):
    raise ValueError("%s is not JSON" % name)


MAX_JSON_DEPTH = 2048


def _float(text):
    x = float(text)
    if math.isinf(x):
        raise ValueError("%s is beyond a double's range" % text[:40])
    return x


def _int(text):
    x = int(text)
    try:
        float(x)
    except OverflowError:
        raise ValueError("%s... is beyond a double's range" % text[:40])
    return x


def _check_value(v, depth=1):
    """Lone surrogates and nesting deeper than MAX_JSON_DEPTH make a text not
    JSON here (the dump format's rule: as the C reader, jansson, reads it)."""
    stack = [(v, depth)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in x):
                raise ValueError("a lone surrogate escape")
        elif isinstance(x, list):
            if d > MAX_JSON_DEPTH:
                raise ValueError("nested deeper than %d" % MAX_JSON_DEPTH)
            for item in x:
                if isinstance(item, tuple):      # an object's (key, value) pair
                    stack.append((item[0], d + 1))
                    stack.append((item[1], d + 1))
                else:
                    stack.append((item, d + 1))


def parse_json(data):
    """The JSON value of ``data`` (bytes), objects as lists of (key, value)
    pairs in file order with duplicate keys merged (last value, first
    position), numbers as int or float. Raises ValueError when ``data`` is
    not one JSON value in UTF-8 as the dump format reads it: NaN and
    Infinity are not JSON, nor a number beyond a double's range, a lone
    surrogate escape, or nesting deeper than 2048."""
    if isinstance(data, (bytes, bytearray)):
        text = bytes(data).decode("utf-8")       # UnicodeDecodeError is a ValueError
    else:
        text = data
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 3 * MAX_JSON_DEPTH + 500))
    try:
        v = json.loads(text, object_pairs_hook=_pairs, parse_constant=_reject_constant,
                       parse_float=_float, parse_int=_int)
    except RecursionError:
        raise ValueError("nested too deep")
    finally:
        sys.setrecursionlimit(old)
    _check_value(v)
    return v


class JsonObject(list):
    """An object's (key, value) pairs in order, keys unique."""

    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default

    def keys(self):
        return [k for k, _ in self]


def _pairs(pairs):
    out = JsonObject()
    where = {}
    for k, v in pairs:
        if "\x00" in k:
            # a key holding U+0000 is not read (the dump format's rule): the C
            # readers use jansson, whose object keys are C strings
            raise ValueError("an object key holds U+0000")
        if k in where:
            out[where[k]] = (k, v)
        else:
            where[k] = len(out)
            out.append((k, v))
    return out


def render_json(v):
    """Compact canonical text of a parsed JSON value."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return escape_str(v)
    if isinstance(v, (int, float)):
        return number(v)
    if isinstance(v, JsonObject):
        return "{" + ",".join(escape_str(k) + ":" + render_json(x) for k, x in v) + "}"
    if isinstance(v, dict):
        return "{" + ",".join(escape_str(k) + ":" + render_json(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(render_json(x) for x in v) + "]"
    raise TypeError("not a JSON value: %r" % (v,))


def rewrite_json_bytes(data):
    """The canonical text of JSON text ``data``, or None when it does not parse."""
    try:
        return render_json(parse_json(data))
    except (ValueError, RecursionError):
        return None
