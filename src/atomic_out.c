/* The result file, written atomically: an unnamed temporary file (O_TMPFILE; a hidden named one where
 * the file system has none), fsync, then a link that never replaces, or a rename over a regular file
 * with --force. Nothing but a regular file is ever replaced; the ending signals wait while a named
 * temporary file exists, so it is named or removed. */
#define _GNU_SOURCE
#include "atomic_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"
#include "smem.h"

static bool stdout_was_closed;

void smem_output_guard_stdio(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        int n;
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);   /* the lowest free descriptor: fd itself */
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
        if (fd == STDOUT_FILENO)
            stdout_was_closed = true;
    }
}

bool smem_output_stdout_closed(void)
{
    return stdout_was_closed;
}

/* A path as a message shows it: a long one keeps its start and its end. */
const char *smem_output_shown(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);

    if (n <= 100)
        return path;
    smem_fmt(buf, len, "%.40s...%s", path, path + n - 40);
    return buf;
}

static const char *type_name(mode_t m)
{
    if (S_ISDIR(m))
        return "directory";
    if (S_ISCHR(m))
        return "character device";
    if (S_ISBLK(m))
        return "block device";
    if (S_ISFIFO(m))
        return "FIFO";
    if (S_ISSOCK(m))
        return "socket";
    if (S_ISLNK(m))
        return "symbolic link";
    return "special file";
}

static bool is_dev_null(const struct stat *st)
{
    struct stat null;

    return S_ISCHR(st->st_mode) && !stat("/dev/null", &null) && S_ISCHR(null.st_mode) && st->st_rdev == null.st_rdev;
}

/* A hidden temporary name whose length does not depend on the result's name, so any name the file
 * system takes can be written. */
static void temp_name(char *tmp, size_t len)
{
    static unsigned counter;
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    smem_fmt(tmp, len, ".smembench-%08x.tmp",
             ((unsigned)now.tv_nsec ^ (unsigned)getpid() * 2654435761u) + ++counter * 0x9e3779b9u);
}

/* Creates a hidden temporary file in dirfd; its name goes to tmp. */
static int create_named(int dirfd, char *tmp, size_t len)
{
    for (int i = 0; i < 100; i++) {
        int fd;
        temp_name(tmp, len);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

static int output_open(struct smem_output *o, const char *path, bool numbered, bool force, bool probe_only, int depth)
{
    char a[112], b[112], dir[4096], tmp[32];
    const char *slash = strrchr(path, '/'), *base;
    size_t len = strlen(path), dlen;
    struct stat st, to;

    memset(o, 0, sizeof(*o));
    o->dirfd = o->fd = -1;
    o->numbered = numbered;
    o->force = force;
    if (!strcmp(path, "-")) {
        int fl = fcntl(STDOUT_FILENO, F_GETFL);
        o->kind = SMEM_OUTPUT_STDOUT;
        smem_fmt(o->path, sizeof(o->path), "-");
        if (!probe_only && (stdout_was_closed || fl < 0 || (fl & O_ACCMODE) == O_RDONLY)) {
            smem_error("cannot write the results to stdout: it is %s; give -o FILE",
                       stdout_was_closed || fl < 0 ? "closed" : "open only for reading");
            return SMEM_EIO;
        }
        return SMEM_OK;
    }
    if (!len || (slash && !slash[1])) {
        smem_error("invalid output path \"%s\"; expected a file name", smem_output_shown(path, a, sizeof(a)));
        return SMEM_EINVAL;
    }
    if (len >= sizeof(o->path)) {
        smem_error("cannot write \"%s\": the path is %zu bytes, the system allows %zu; choose a shorter -o",
                   smem_output_shown(path, a, sizeof(a)), len, sizeof(o->path) - 1);
        return SMEM_EINVAL;
    }
    memcpy(o->path, path, len + 1);
    dlen = slash ? (size_t)(slash - path) + 1 : 0;
    memcpy(o->prefix, path, dlen);
    o->prefix[dlen] = '\0';
    if (!dlen)
        smem_fmt(dir, sizeof(dir), ".");
    else
        smem_fmt(dir, sizeof(dir), "%.*s", (int)(dlen > 1 ? dlen - 1 : dlen), path);   /* "/x": "/" */
    base = path + dlen;

    o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->dirfd < 0) {
        if (errno == ENOENT)
            smem_error("cannot write \"%s\": directory \"%s\" does not exist", smem_output_shown(path, a, sizeof(a)), smem_output_shown(dir, b, sizeof(b)));
        else if (errno == ENOTDIR)
            smem_error("cannot write \"%s\": \"%s\" is not a directory", smem_output_shown(path, a, sizeof(a)), smem_output_shown(dir, b, sizeof(b)));
        else
            smem_error("cannot write \"%s\": directory \"%s\": %s", smem_output_shown(path, a, sizeof(a)), smem_output_shown(dir, b, sizeof(b)),
                       strerror(errno));
        goto invalid;
    }
    o->name_max = fpathconf(o->dirfd, _PC_NAME_MAX);
    if (o->name_max <= 0 || o->name_max >= (long)sizeof(o->name))
        o->name_max = (long)sizeof(o->name) - 1;
    if (strlen(base) > (size_t)o->name_max) {
        smem_error("cannot write \"%s\": the file name is %zu bytes, the file system allows %ld; choose a shorter -o",
                   smem_output_shown(path, a, sizeof(a)), strlen(base), o->name_max);
        goto invalid;
    }
    smem_fmt(o->name, sizeof(o->name), "%s", base);
    if (faccessat(o->dirfd, ".", W_OK | X_OK, AT_EACCESS)) {
        smem_error("cannot write \"%s\": directory \"%s\" is not writable", smem_output_shown(path, a, sizeof(a)), smem_output_shown(dir, b, sizeof(b)));
        goto invalid;
    }

    if (numbered) {
        /* whatever has this name stays: the result takes the first free of name, _2, _3, ... */
    } else if (!fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW)) {
        bool link = S_ISLNK(st.st_mode);
        const struct stat *t = link ? &to : &st;
        if (link && fstatat(o->dirfd, o->name, &to, 0)) {
            smem_error("cannot write \"%s\": it is a symbolic link to nothing; give a file name, - for stdout or /dev/null to discard",
                       smem_output_shown(path, a, sizeof(a)));
            goto invalid;
        }
        if (is_dev_null(t)) {
            o->kind = SMEM_OUTPUT_DISCARD;   /* written to, never replaced */
            goto done;
        }
        if (!S_ISREG(t->st_mode)) {
            smem_error("cannot write \"%s\": it is a %s%s%s; give a file name, - for stdout or /dev/null to discard",
                       smem_output_shown(path, a, sizeof(a)), link ? "symbolic link to a " : "", type_name(t->st_mode),
                       S_ISDIR(t->st_mode) ? "" : ", not a regular file");
            goto invalid;
        }
        if (!force) {
            smem_error("\"%s\" already exists; choose another -o or pass --force to replace it", smem_output_shown(path, a, sizeof(a)));
            goto invalid;
        }
        if (link) {
            /* --force through a link replaces the regular file it points to, not the link */
            char real[PATH_MAX];
            if (depth > 0 || !realpath(path, real)) {
                smem_error("cannot write \"%s\": cannot follow its symbolic link", smem_output_shown(path, a, sizeof(a)));
                goto invalid;
            }
            smem_output_close(o);
            return output_open(o, real, numbered, force, probe_only, depth + 1);
        }
    } else if (errno != ENOENT) {
        smem_error("cannot write \"%s\": %s", smem_output_shown(path, a, sizeof(a)), strerror(errno));
        goto invalid;
    }

    /* make the temporary now: what would refuse it (a read-only file system, an immutable directory,
     * a full quota) is found before the sweep */
    errno = EOPNOTSUPP;
    if (!smem_test_hooks.named_temp && !access("/proc/self/fd", X_OK))
        o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (o->fd < 0) {
        int fd = -1;
        if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) {
            /* no unnamed files here: prove that a named one can be made, and leave none */
            fd = create_named(o->dirfd, tmp, sizeof(tmp));
            if (fd >= 0) {
                close(fd);
                unlinkat(o->dirfd, tmp, 0);
            }
        }
        if (fd < 0) {
            smem_error("cannot write \"%s\": directory \"%s\" is not writable (%s)", smem_output_shown(path, a, sizeof(a)),
                       smem_output_shown(dir, b, sizeof(b)), strerror(errno));
            goto invalid;
        }
    }
done:
    if (probe_only)
        smem_output_close(o);
    return SMEM_OK;
invalid:
    smem_output_close(o);
    return SMEM_EINVAL;
}

int smem_output_open(struct smem_output *o, const char *path, bool numbered, bool force)
{
    return output_open(o, path, numbered, force, false, 0);
}

int smem_output_check(const char *path, bool force)
{
    struct smem_output o;

    return output_open(&o, path, false, force, true, 0);
}

void smem_output_close(struct smem_output *o)
{
    if (o->fd >= 0)
        close(o->fd);
    if (o->dirfd >= 0)
        close(o->dirfd);
    o->fd = o->dirfd = -1;
}

static int write_text(int fd, const char *s, size_t len)
{
    /* the signal tests write in slow motion, in small steps */
    size_t step = smem_test_hooks.write_delay_ms ? 4096 : len;

    while (len) {
        ssize_t w = write(fd, s, len < step ? len : step);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!w)
                errno = EIO;
            return -1;
        }
        s += w;
        len -= (size_t)w;
        if (smem_test_hooks.write_delay_ms)
            smem_test_sleep(smem_test_hooks.write_delay_ms);
    }
    return 0;
}

/* The k-th name tried (k >= 1): the name itself, then <stem>_2.json, ... cut to fit the directory. */
static void candidate(const struct smem_output *o, int k, char *out, size_t len)
{
    size_t n = strlen(o->name), stem, room;
    const char *ext = n > 5 && !strcmp(o->name + n - 5, ".json") ? ".json" : "";
    char num[16];

    if (k == 1) {
        smem_fmt(out, len, "%s", o->name);
        return;
    }
    smem_fmt(num, sizeof(num), "_%d", k);
    stem = n - strlen(ext);
    room = (size_t)o->name_max - strlen(num) - strlen(ext);
    smem_fmt(out, len, "%.*s%s%s", (int)(stem < room ? stem : room), o->name, num, ext);
}

/* Gives the finished temporary (the named tmp, or else the unnamed o->fd) the name `to`, never
 * replacing anything: 0, or -1 with errno (EEXIST: taken). *moved: tmp no longer exists. */
static int link_new(const struct smem_output *o, const char *tmp, const char *to, bool *moved)
{
    char proc[64];

    *moved = false;
    if (tmp) {
        if (!renameat2(o->dirfd, tmp, o->dirfd, to, RENAME_NOREPLACE)) {
            *moved = true;
            return 0;
        }
        if (errno != EINVAL && errno != ENOSYS)
            return -1;
        /* no RENAME_NOREPLACE on this file system: link() refuses to replace too */
        return linkat(o->dirfd, tmp, o->dirfd, to, 0);
    }
    smem_fmt(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
    if (!linkat(AT_FDCWD, proc, o->dirfd, to, AT_SYMLINK_FOLLOW))
        return 0;
    if (errno == EEXIST)
        return -1;
    return linkat(o->fd, "", o->dirfd, to, AT_EMPTY_PATH);
}

enum { PUBLISH_RETRY_NAMED = 1 };

/* Names the written temporary: over o->name (--force, a regular file there or nothing), or as o->name
 * or the first free numbered name. tmp (the named temporary, "" for the unnamed one) is emptied once
 * it no longer exists under that name. */
static int publish(struct smem_output *o, char *tmp, size_t tmp_len)
{
    char a[112], b[112], final[256], changed[64] = "";
    struct stat st;
    bool moved;
    int k;

    if (o->force) {
        /* checked again now: only a regular file (or nothing) is ever replaced */
        if (!fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode)) {
            smem_fmt(changed, sizeof(changed), "a %s", type_name(st.st_mode));
        } else {
            if (!tmp[0]) {
                /* rename() needs a name: the unnamed file gets a hidden one for that moment */
                for (int i = 0;; i++) {
                    temp_name(tmp, tmp_len);
                    if (!link_new(o, NULL, tmp, &moved))
                        break;
                    if (errno != EEXIST || i == 100) {
                        tmp[0] = '\0';
                        return PUBLISH_RETRY_NAMED;
                    }
                }
            }
            if (renameat(o->dirfd, tmp, o->dirfd, o->name)) {
                smem_error("cannot write \"%s\": %s", smem_output_shown(o->path, a, sizeof(a)), strerror(errno));
                return SMEM_EIO;
            }
            tmp[0] = '\0';
            return SMEM_OK;
        }
    }
    for (k = changed[0] ? 2 : 1; k < 10000; k++) {
        candidate(o, k, final, sizeof(final));
        if (!link_new(o, tmp[0] ? tmp : NULL, final, &moved))
            break;
        if (errno == EEXIST)
            continue;
        if (!tmp[0])
            return PUBLISH_RETRY_NAMED;   /* this system cannot name an unnamed file */
        smem_error("cannot write \"%s%s\": %s", o->prefix, smem_output_shown(final, a, sizeof(a)), strerror(errno));
        return SMEM_EIO;
    }
    if (k == 10000) {
        smem_error("cannot write \"%s\": it and every numbered name up to _9999 exist", smem_output_shown(o->path, a, sizeof(a)));
        return SMEM_EIO;
    }
    if (moved)
        tmp[0] = '\0';
    smem_fmt(b, sizeof(b), "%s", smem_output_shown(o->path, a, sizeof(a)));
    smem_fmt(o->path, sizeof(o->path), "%s%s", o->prefix, final);
    if (k > 1 && !o->numbered) {
        /* the name asked for was taken while the run went on: the results are kept, in sight */
        smem_error("\"%s\" %s%s while the run went on; the results are in \"%s\"", b, changed[0] ? "became " : "appeared",
                   changed, smem_output_shown(o->path, a, sizeof(a)));
        return SMEM_EIO;
    }
    return SMEM_OK;
}

static int commit_file(struct smem_output *o, const char *text, size_t len)
{
    char a[112], tmp[32] = "";
    sigset_t stop, old;
    bool named = o->fd < 0;
    int fd = o->fd, rc = SMEM_EIO;

    /* while a named temporary exists, the signals that would end the program wait, so it gets its
     * name or is removed; an unnamed one needs no such care until it is named */
    sigemptyset(&stop);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGQUIT);
    sigaddset(&stop, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop, &old);
    if (!named)
        sigprocmask(SIG_SETMASK, &old, NULL);
    for (;;) {
        if (named && (fd = create_named(o->dirfd, tmp, sizeof(tmp))) < 0) {
            smem_error("cannot write \"%s\": %s", smem_output_shown(o->path, a, sizeof(a)), strerror(errno));
            break;
        }
        if (write_text(fd, text, len) || write_text(fd, "\n", 1) || fsync(fd)) {
            smem_error("cannot write \"%s\": %s%s", smem_output_shown(o->path, a, sizeof(a)), strerror(errno),
                       errno == EFBIG ? " (a file-size limit, ulimit -f)" : "");
            break;
        }
        if (!named)
            sigprocmask(SIG_BLOCK, &stop, NULL);
        rc = publish(o, tmp, sizeof(tmp));
        if (rc != PUBLISH_RETRY_NAMED)
            break;
        /* the unnamed file cannot be given a name here: write a named one instead */
        close(o->fd);
        o->fd = fd = -1;
        named = true;
        rc = SMEM_EIO;
    }
    if (named && fd >= 0)
        close(fd);
    if (tmp[0])
        unlinkat(o->dirfd, tmp, 0);
    if (!rc || rc == SMEM_EIO)
        fsync(o->dirfd);   /* the new name survives a crash too */
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int smem_output_write(struct smem_output *o, const char *text, size_t len)
{
    char a[112];
    int rc = SMEM_OK, fd;

    if (smem_test_hooks.announce)
        fputs("smembench-test: write\n", stderr);
    switch (o->kind) {
    case SMEM_OUTPUT_STDOUT:
        if (write_text(STDOUT_FILENO, text, len) || write_text(STDOUT_FILENO, "\n", 1)) {
            smem_error("cannot write the results to stdout: %s", strerror(errno));
            rc = SMEM_EIO;
        }
        break;
    case SMEM_OUTPUT_DISCARD:
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write_text(fd, text, len)) {
            smem_error("cannot write \"%s\": %s", smem_output_shown(o->path, a, sizeof(a)), strerror(errno));
            rc = SMEM_EIO;
        }
        if (fd >= 0)
            close(fd);
        break;
    case SMEM_OUTPUT_FILE:
        rc = commit_file(o, text, len);
        break;
    }
    return rc;
}

