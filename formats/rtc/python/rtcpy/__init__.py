"""rtcpy: an independent, standard-library-only Python implementation of the
Ruler Trace Container (RTC, `.rtc`), written for the conformance suite from
the seed (seeds/004_...), the facts of NEIGHBOURS.md about the reference
implementation (jhrutgers/ruler-trace), docs/rtc-dump-format.md and
conformance/SPEC-RTC.md. It shares no code with the C codec (formats/rtc/).

Modules:
  wire      LEB128, the two Crc algorithms, the Marker, built-in streams
  writer    RtcWriter: the reference writer's layout (Units, units, Index,
            index, Meta, meta, Platform, padding, Crc) and its known bugs
            on request, plus raw builders for broken files
  reader    read_rtc(): Markers found from any offset, Units checked by
            their Crc, frames, records (more chains), Index, Meta, clocks
  dump      the canonical `atf dump --json` lines
  validate  the clause-ID validator of conformance/SPEC-RTC.md (JSON schema
            "atf-validate/1", as `atf validate --format json`)
"""

from . import wire  # noqa: F401
from .dump import dump_lines  # noqa: F401
from .reader import read_rtc  # noqa: F401
from .writer import RtcWriter  # noqa: F401

__version__ = "0.1.0"
