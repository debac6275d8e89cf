/* Text helpers: messages in git's manner ("smembench: " then the problem, lowercase, no trailing
 * period), bounded formatting and appending, and the directory of a path. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "smem.h"

void smem_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("smembench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void smem_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("smembench: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void smem_append(char *buf, size_t len, const char *sep, const char *fmt, ...)
{
    size_t used = strnlen(buf, len);
    va_list ap;

    if (used + 1 >= len)
        return;
    if (used) {
        snprintf(buf + used, len - used, "%s", sep);
        used = strnlen(buf, len);
    }
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

void smem_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

void smem_path_dir(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');

    if (slash)
        smem_fmt(dir, len, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else
        smem_fmt(dir, len, ".");
}
