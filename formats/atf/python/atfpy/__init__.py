"""atfpy: an independent, standard-library-only Python implementation of the
ATF trace format (ADA Trace Format v2), both byte layouts (version byte 1 and
2), written from the source documents for the conformance suite.

Modules:
  crc      CRC32-C (pure Python, table-driven) and CRC32/IEEE
  records  every fixed-size structure: encode/decode, both layouts
  files    whole index/detail files: finalized and crash-truncated writers,
           readers with crash recovery
  session  session model, manifest, session writer and readers
  dump     the canonical `atf dump --json` lines (docs/dump-format.md)
  verify   self-check of written sessions against their model
  validate the clause-ID validator of conformance/SPEC.md (JSON schema
           "atf-validate/1", as the C validator)
"""

from .crc import (CHECKSUM_CRC32_IEEE, CHECKSUM_CRC32C, CHECKSUM_KINDS, CHECKSUM_NONE,
                  compute_checksum, crc32_ieee, crc32_ieee_portable, crc32c)
from .records import *  # noqa: F401,F403  (constants and record classes)
from .records import (AtfFormatError, Arm64Payload, DetailEvent, DetailFooter, DetailHeader,
                      IndexEvent, IndexFooter, IndexHeader)
from .files import (DetailFile, IndexFile, build_detail_file, build_index_file,
                    detail_offsets, parse_detail_file, parse_index_file,
                    header_prefix_ok, index_header_is_placeholder, detail_header_is_placeholder)
from .session import (Module, SessionModel, SessionView, Symbol, ThreadModel, ThreadView,
                      load_manifest, manifest_symbol_map, model_view, parse_manifest_int,
                      read_session, read_thread_dir, thread_files, write_session)
from .dump import (detail_file_lines, expected_detail_dump, expected_dump,
                   expected_thread_dump, session_lines, thread_lines)
from .verify import SelfCheckError, check_session
from .validate import validate_path, validate_thread

__version__ = "0.1.0"
