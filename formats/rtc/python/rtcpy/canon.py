"""The canonical text of the dumps (tracepy.canon): docs/rtc-dump-format.md
takes string escaping over bytes, the number rule and JSON read and
rewritten compactly from the one-file formats' shared rules."""

from tracepy.canon import (JsonObject, escape_bytes, number, parse_json,  # noqa: F401
                           render_json, rewrite_json_bytes)
