/* `atf record` (record.c). */
#ifndef ATF_CLI_RECORD_H
#define ATF_CLI_RECORD_H
int atf_cmd_record(int argc, char **argv);
#endif
