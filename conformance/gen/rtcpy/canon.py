"""The canonical text of the dumps, shared with wtfpy (docs/wtf-dump-format.md
defines it; docs/rtc-dump-format.md refers to it): string escaping over
bytes, the number rule, JSON read and rewritten compactly."""

from wtfpy.canon import (JsonObject, escape_bytes, number, parse_json,  # noqa: F401
                         render_json, rewrite_json_bytes)
