/* Subcommands of atf-bench, one source file each. */
#ifndef ATF_BENCH_H
#define ATF_BENCH_H

/* atf-bench recorder ...: argv holds the arguments after "recorder". */
int bench_recorder(int argc, char **argv);

#endif /* ATF_BENCH_H */
