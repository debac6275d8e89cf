/* Text helpers: messages in git's manner ("smembench: " then the problem, lowercase, no trailing
 * period), bounded formatting and appending, and the directory of a path. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 when the bytes there are not one:
 * a stray continuation byte, a sequence cut short, an overlong form, a surrogate or a code point
 * above U+10FFFF (RFC 3629). */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

char *smem_utf8_repair(const char *s, size_t *replaced)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), bad = 0, k, out = 0;
    char *r;

    for (size_t i = 0; i < n; i += k ? k : 1)
        if (!(k = utf8_sequence(p + i, n - i)))
            bad++;
    if (replaced)
        *replaced = bad;
    if (!bad)
        return NULL;
    if (!(r = malloc(n + 2 * bad + 1)))
        return NULL;
    for (size_t i = 0; i < n; i += k ? k : 1) {
        if ((k = utf8_sequence(p + i, n - i))) {
            memcpy(r + out, s + i, k);
            out += k;
        } else {
            memcpy(r + out, "\xef\xbf\xbd", 3);   /* U+FFFD REPLACEMENT CHARACTER */
            out += 3;
        }
    }
    r[out] = '\0';
    return r;
}
