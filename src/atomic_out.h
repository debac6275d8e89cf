/* Where the result file goes, and how it is written: whole or not at all, never over anything but a
 * regular file, never over an existing one without --force (src/atomic_out.c). */
#ifndef SMEM_ATOMIC_OUT_H
#define SMEM_ATOMIC_OUT_H

#include <stdbool.h>
#include <stddef.h>

/* Where the result file goes. Everything that can be known before the sweep is found by
 * smem_output_open (a name too long, a missing or read-only directory, something there that is not a
 * regular file), the file is written by smem_output_write after it (smem_output_commit in
 * report_json.h for the document). A file is written into an unnamed temporary file (O_TMPFILE; a
 * hidden named one where the file system has none), synced, and only then given its name, so it
 * appears whole or not at all and a killed run leaves nothing behind. */
enum smem_output_kind {
    SMEM_OUTPUT_FILE,
    SMEM_OUTPUT_STDOUT,         /* -o - */
    SMEM_OUTPUT_DISCARD,        /* -o /dev/null: written there, never replaced */
};

struct smem_output {
    enum smem_output_kind kind;
    char path[4096];            /* as given; after smem_output_write, the name actually written */
    char prefix[4096];          /* path up to and including its last slash ("" for none) */
    char name[256];             /* the file's name inside its directory */
    long name_max;              /* the longest name that directory takes */
    int dirfd;                  /* that directory, or -1 */
    int fd;                     /* the unnamed temporary file, or -1 (none yet: a named one at commit) */
    bool numbered;              /* a default name: when taken, _2, _3, ... are tried in turn */
    bool force;                 /* replace an existing regular file */
};

/* Called first in main: a closed standard descriptor (0, 1, 2) is opened on /dev/null, so that no
 * file of ours can land on it and be taken for stdout; -o - then refuses a closed stdout. */
void smem_output_guard_stdio(void);

/* Whether stdout was closed when smem_output_guard_stdio ran (it is /dev/null since). */
bool smem_output_stdout_closed(void);

/* Checks that path ("-" for stdout) can be written, without leaving anything behind; prints one line
 * and returns SMEM_EINVAL otherwise. */
int smem_output_check(const char *path, bool force);

/* Settles where the result goes: path ("-" for stdout); numbered: path is a default name that may
 * become _2, _3, ... Returns SMEM_OK, SMEM_EINVAL (the name or its directory: a usage error) or
 * SMEM_EIO (stdout is closed), after one line. Close with smem_output_close. */
int smem_output_open(struct smem_output *o, const char *path, bool numbered, bool force);

/* Releases o; a temporary file that was never committed disappears with it. */
void smem_output_close(struct smem_output *o);

/* Writes the text (a newline is added) where o says. Returns SMEM_OK (o->path is the name written), or
 * SMEM_EIO after one line naming the cause; then nothing was written, except where an explicit -o
 * name appeared during the run and the results went to the next free numbered name, which the line
 * gives. */
int smem_output_write(struct smem_output *o, const char *text, size_t len);

/* A path as a message shows it, into buf: a long one keeps its start and its end. */
const char *smem_output_shown(const char *path, char *buf, size_t len);

#endif
