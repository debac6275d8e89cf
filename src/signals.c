/* Signals that end a run. The handler only records the signal: the sweep loops look at the flag
 * between points (and the sampler between samples), so what finished is written whole. */
#define _POSIX_C_SOURCE 200809L
#include "signals.h"

#include <errno.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t smem_interrupted;
struct smem_test_hooks smem_test_hooks;

static void on_signal(int sig)
{
    if (!smem_interrupted)
        smem_interrupted = sig;
}

void smem_signals_catch(void)
{
    /* a second one of these means "now": the default action, which leaves no file */
    static const int once[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
    /* these also come from our own writes (a closed pipe, a file-size limit): they must never kill
     * the program, so that the write fails with EPIPE or EFBIG and says so. They are caught even
     * where the parent ignores them: the handler does not kill either, and it stops the sweep whose
     * output has nowhere to go */
    static const int always[] = { SIGPIPE, SIGXFSZ };
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;   /* no EINTR inside the CUDA runtime or stdio */
    for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
        sigaction(always[i], &sa, NULL);
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
        struct sigaction now;
        /* a signal the parent ignores stays ignored: nohup's SIGHUP, a background job's SIGINT and
         * SIGQUIT; the run goes on as the one who started it asked */
        if (!sigaction(once[i], NULL, &now) && now.sa_handler == SIG_IGN)
            continue;
        sigaction(once[i], &sa, NULL);
    }
}

const char *smem_signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTERM: return "SIGTERM";
    case SIGXFSZ: return "SIGXFSZ";
    }
    return "a signal";
}

void smem_test_sleep(unsigned ms)
{
    struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

    while (ms && nanosleep(&t, &t) && errno == EINTR)
        ;
}
