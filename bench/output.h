/* output.h -- warpred-bench's writers (C side only); rows go through bench_emit(). */
#ifndef WR_BENCH_OUTPUT_H
#define WR_BENCH_OUTPUT_H

struct bench_meta {
    const char *lib_version;
    const char *date;          /* ISO 8601, local time */
    const char *describe;      /* wr_context_describe() of the contexts used */
    const char *command;       /* the command line */
    char loadavg[64];          /* the 1/5/15-minute load averages, "" if unknown */
    int reps, warmup;
};

/* csv_path / json_path: NULL (none), "-" (stdout; the table then goes to
 * stderr) or a file name.  Exits with status 2 if a file cannot be opened. */
void bench_output_open(const char *csv_path, const char *json_path, int progress,
                       const struct bench_meta *m);
/* Print the performance targets with this run's figures (--targets). */
void bench_targets(void);
void bench_output_close(int failures);

#endif /* WR_BENCH_OUTPUT_H */
