/* What every layer shares: status codes, exit statuses, units and the message helpers. Every
 * function of smembench returns 0 or one of the negative codes below. Depends on nothing. */
#ifndef SMEM_H
#define SMEM_H

#include <stddef.h>
#include <stdint.h>

#define SMEM_VERSION "0.1.0"
#define SMEM_SCHEMA "smembench/1"

enum smem_status {
    SMEM_OK = 0,
    SMEM_EINVAL = -1,   /* bad input from the user */
    SMEM_ENOMEM = -2,   /* host allocation failed */
    SMEM_ECUDA = -3,    /* a CUDA call failed; the context is still usable */
    SMEM_ESTICKY = -4,  /* a CUDA error that poisons the context (illegal address, ...) */
    SMEM_ESKIP = -5,    /* the point cannot run on this device; a reason is given */
    SMEM_EIO = -6,      /* file could not be read or written */
    SMEM_EVERIFY = -7,  /* kernel output differs from the host reference */
    SMEM_EINTR = -8,    /* interrupted by a signal */
    SMEM_ENODEV = -9    /* no usable GPU */
};

/* Exit statuses of the smembench command, documented in --help and the README. */
enum smem_exit {
    SMEM_EXIT_OK = 0,
    SMEM_EXIT_FAILED = 1,   /* a point failed, a sticky CUDA error, or an I/O error */
    SMEM_EXIT_USAGE = 2,    /* bad command line; nothing was run or written */
    SMEM_EXIT_NODEV = 3     /* no GPU (with --require-gpu, or a sweep that needs one) */
};

#define SMEM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* The one definition of a KiB (x1024); a MiB is SMEM_KIB * SMEM_KIB. */
#define SMEM_KIB 1024ull

/* Prints "smembench: <message>" on stderr. */
void smem_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "smembench: warning: <message>" on stderr. */
void smem_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* snprintf into a fixed buffer that never overflows and always terminates. */
void smem_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Appends to the string in buf: sep first unless buf is empty, then the formatted text; truncates. */
void smem_append(char *buf, size_t len, const char *sep, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* s with every byte that is not part of valid UTF-8 replaced by U+FFFD (malloc'd), and how many
 * were replaced in *replaced; NULL when there were none (or, *replaced > 0, when out of memory). */
char *smem_utf8_repair(const char *s, size_t *replaced);

/* The directory part of path into dir: "." without a slash, "/" for a file in the root. */
void smem_path_dir(const char *path, char *dir, size_t len);

#endif
