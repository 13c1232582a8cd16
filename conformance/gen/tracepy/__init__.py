"""tracepy: what the independent Python implementations of the formats
share, standard library only, and the registry that lists them. Each
format's implementation lives in its own folder, formats/<name>/python/ (a
package <name>py with a module ``format``, its command-line tool and its
corpus generator); which formats there are is read from the build's registry,
formats/formats.cmake (ATF_FORMATS). No format package imports another
format package: each imports this one.

Importing tracepy puts every registered format's python/ folder on sys.path
(in registry order), so that a script which has this folder
(conformance/gen) on its path can then import any format's package or tool.

Modules:
  layout    where the formats' Python folders are (formats/formats.cmake)
  report    the validation report (JSON schema "atf-validate/1", as `atf
            validate --format json`), its findings, the per-file aggregation
            of repeated findings, UsageError (exit 2), the reader's Note and
            the shape of a clause table
  canon     the canonical text of the dumps: string escaping over bytes
            (UTF-8 decoding with U+FFFD), the number rule, JSON read and
            rewritten compactly
  binary    little-endian loads and the UTF-8 test
  onefile   validation of a one-file format from its reader's notes
  tool      the command line shared by the formats' tools and
            tracepy_tool.py (`dump --json`, `validate`)
  corpus    what the one-file formats' corpus generators share (case files,
            --out/--check/--list)
  registry  the formats: one descriptor each (name, bid, info, canonical
            dump, validation, clause table, spec, corpus, tool)
"""

from . import layout

layout.use()
