"""tracepy: what the three independent Python implementations (atfpy,
wtfpy, rtcpy) share, standard library only, and the registry that lists
them. No format package imports another format package: each imports this
one.

Modules:
  report    the validation report (JSON schema "atf-validate/1", as `atf
            validate --format json`), its findings, the per-file aggregation
            of repeated findings, UsageError (exit 2), the reader's Note and
            the shape of a clause table
  canon     the canonical text of the dumps: string escaping over bytes
            (UTF-8 decoding with U+FFFD), the number rule, JSON read and
            rewritten compactly
  binary    little-endian loads and the UTF-8 test
  onefile   validation of a one-file format (WTF, RTC) from its reader's notes
  tool      the command line shared by atfpy_tool.py, wtfpy_tool.py,
            rtcpy_tool.py and tracepy_tool.py (`dump --json`, `validate`)
  registry  the formats: one descriptor each (name, bid, info, canonical
            dump, validation, clause table, spec, corpus, tool)
"""
