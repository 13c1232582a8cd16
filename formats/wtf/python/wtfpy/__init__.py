"""wtfpy: an independent, standard-library-only Python implementation of the
binary WTF chunked file format (the Web Tracing Framework's `.wtf-trace`),
written from the source documents for the conformance suite: the seed, the
facts of /work/shared/NEIGHBOURS.md and of the real library,
docs/wtf-dump-format.md and conformance/SPEC-WTF.md. It shares no code with
the C codec (formats/wtf/).

Modules:
  wire      fixed structures, argument types, signatures, built-in events
  canon     the dump's string escaping, number rule and JSON rewriting
  model     Trace / ChunkInfo / EventInfo: what a file holds
  writer    raw builders (any bytes, broken ones too) and TraceWriter
  reader    read_trace(): every chunk and event, crash-truncated files
  dump      the canonical `atf dump --json` lines
  validate  the clause-ID validator of conformance/SPEC-WTF.md (JSON schema
            "atf-validate/1", as `atf validate --format json`)
"""

from . import canon, wire  # noqa: F401
from .dump import dump_lines  # noqa: F401
from .model import ChunkInfo, EventInfo, Note, Trace  # noqa: F401
from .reader import read_trace  # noqa: F401
from .writer import TraceWriter  # noqa: F401

__version__ = "0.1.0"
