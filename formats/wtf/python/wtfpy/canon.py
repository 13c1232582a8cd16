"""The canonical text of docs/wtf-dump-format.md (tracepy.canon, shared with
the other one-file formats): string escaping over bytes, the number rule, JSON read and rewritten
compactly."""

from tracepy.canon import (MAX_JSON_DEPTH, TWO_53, JsonObject, JsonText, escape_bytes, escape_str,  # noqa: F401
                           number, parse_json, render_json, rewrite_json_bytes)
