/* Which signals end a run, and how. The first SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE or SIGXFSZ
 * stops the sweep after the point in flight; the finished points are written and the command exits
 * 128 + the signal. A second SIGHUP, SIGINT, SIGQUIT or SIGTERM ends the program at once: the result
 * is an unnamed file until it is complete, so nothing is left behind. Of those four, one that the
 * parent set to be ignored (nohup, a background job) stays ignored. */
#ifndef SMEM_SIGNALS_H
#define SMEM_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* The first signal that asked the run to stop, or 0. */
extern volatile sig_atomic_t smem_interrupted;

/* Installs the handlers described above. */
void smem_signals_catch(void);

/* "SIGINT" for SIGINT, and so on for the signals above. */
const char *smem_signal_name(int sig);

/* Slow motion for the signal tests, set only by the test build of the driver (smembench-hooks,
 * SMEM_TEST_HOOKS); zero everywhere else. */
struct smem_test_hooks {
    unsigned point_delay_ms;    /* sleep before each predicted point */
    unsigned write_delay_ms;    /* sleep after each 4 KiB written to the result file */
    bool named_temp;            /* behave as on a file system without O_TMPFILE */
    bool announce;              /* "smembench-test: sweep" / "smembench-test: write" on stderr */
};
extern struct smem_test_hooks smem_test_hooks;

/* Sleeps ms milliseconds (test hooks only), going on after a signal. */
void smem_test_sleep(unsigned ms);

#endif
