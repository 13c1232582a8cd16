/* A manifest.json cut by a power cut (SPEC 7a.14, errata E-20).
 *
 * A recorder replaces manifest.json through a temporary file and a rename
 * without syncing the file first; after a power cut the rename can be on
 * disk while only the first sectors of the new file's data are, the rest
 * read as zeros. Such a file is "crash-truncated": its bytes, less a run of
 * NUL bytes at the end, are a proper prefix of a JSON text whose top-level
 * value is an object. Judged by RFC 8259's grammar and UTF-8 only (no
 * duplicate-key, depth, size or schema rule), by this small scanner and not
 * by jansson: jansson reports "premature end of input" only for some cuts
 * (inside a string, or after a key or a comma), and an invalid token for a
 * cut inside a number (`1.`, `-`, `1e`), a literal (`tr`) or an escape
 * (`\u00`). Shared by the codec's session reader and the validator; the
 * Python implementation has the same scanner (atfpy.session.manifest_cut). */
#ifndef ATF_MANIFEST_PREFIX_H
#define ATF_MANIFEST_PREFIX_H

#include <stddef.h>

typedef enum atf_json_cut {
    ATF_JCUT_NO = 0,       /* not a cut: a complete text, or a syntax error before the end */
    ATF_JCUT_YES = 1,      /* crash-truncated: a proper prefix of a JSON object text, NUL tail allowed */
    ATF_JCUT_NOMEM = -1    /* out of memory (the nesting stack) */
} atf_json_cut;

/* Whether data[0..size) is a crash-truncated manifest. *text_len (may be
 * NULL) receives the length without the NUL tail, and *error_at (may be
 * NULL) the offset of the first byte that is not JSON when the answer is
 * ATF_JCUT_NO because of a syntax error (size when the text is complete).
 * An empty text (nothing but NUL bytes) is a cut before the value; a text
 * of whitespace only is not (ATF_JCUT_NO, *error_at its length). */
atf_json_cut atf_manifest_json_cut(const char *data, size_t size, size_t *text_len, size_t *error_at);

#endif /* ATF_MANIFEST_PREFIX_H */
