/* JSON and XML escaping onto a stdio stream, one behaviour everywhere (the
 * reports of `atf validate`, `atf report --json`, the test kits' reports):
 * the input is UTF-8; a malformed sequence is U+FFFD and costs one byte;
 * characters XML 1.0 cannot hold (C0 controls but tab, newline and carriage
 * return; U+FFFE, U+FFFF) are U+FFFD. The in-memory writers of the dumps
 * (obuf.h, ob_json_string) follow the same rules. */
#ifndef ATF_ESCAPE_H
#define ATF_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* A JSON string (with its quotes) of the NUL-terminated s: printable ASCII
 * as it is, \" \\ \n \r \t, everything else \uXXXX (a surrogate pair above
 * U+FFFF): the output is ASCII. */
void atf_json_fputs(const char *s, FILE *out);
/* The same of the n bytes at s, which may hold NUL (\u0000). */
void atf_json_fputs_n(const char *s, size_t n, FILE *out);
/* XML 1.0 text or attribute value of s: & < > " ' as entities, non-ASCII
 * as &#xH;, what XML cannot hold as U+FFFD (&#xFFFD;). */
void atf_xml_fputs(const char *s, FILE *out);

#endif
