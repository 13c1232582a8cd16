/* `atf record` (record.c), and what the command sources share (atf_main.c). */
#ifndef ATF_CLI_RECORD_H
#define ATF_CLI_RECORD_H
#include <stdio.h>
int atf_cmd_record(int argc, char **argv);
/* Writes s with control characters escaped (\n, \r, \t, \xHH), as
 * atf_error_format() does: a path holding a newline or a terminal escape
 * never breaks a message into lines. */
void atf_cli_put_escaped(FILE *f, const char *s);
#endif
