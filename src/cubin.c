/* Kernel resources read from a code file with no GPU. The toolkit's cuobjdump says them:
 * --dump-resource-usage gives each function's registers, stack, shared and local memory; -elf gives
 * the symbol table (which functions are kernels), the section table and each kernel's .nv.info
 * attributes (the parameter layout, __launch_bounds__). PTX is first compiled by ptxas for the device.
 * The tools run without a shell, their output and the files they make (ptxas's cubin, a fatbin's PTX)
 * are anonymous files in memory that they reach as /proc/self/fd/N, so no folder or file is ever
 * made (a process killed at any moment, SIGKILL too, leaves nothing), and the wait is bounded: a
 * user's file is data, never a command line, and a hung tool cannot hang smembench.
 * The parsers rely on the text these tools print (toolkit 13), quoted above each one. */
#define _GNU_SOURCE
#include "cubin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smem.h"

/* the folder of the nvcc the build compiled with (meson.build); empty in a build without CUDA */
#ifndef SMEM_CUDA_BIN
#define SMEM_CUDA_BIN ""
#endif

/* A tool that runs longer is killed (SMEMBENCH_TOOL_TIMEOUT overrides both): cuobjdump takes
 * milliseconds, ptxas seconds on a large kernel. */
#define CUOBJDUMP_TIMEOUT_S 10.0
#define PTXAS_TIMEOUT_S 60.0
/* More output than this is not a listing of one file (cuobjdump -elf prints a few KiB per kernel). */
#define TOOL_OUTPUT_MAX (256 * SMEM_KIB * SMEM_KIB)
/* How much of a file smem_code_kind_of reads to tell PTX text by its .version directive. */
#define HEAD_BYTES (64 * 1024)
#define ELF_MACHINE_CUDA 190   /* EM_CUDA */
#define FATBIN_MAGIC 0xBA55ED50u
/* Code for sm_90 and later places the 1 KiB the driver reserves per block (reservedSharedMemPerBlock)
 * inside each function's .nv.shared section, and the module then has a .nv.shared.reserved section.
 * cuobjdump's SHARED counts the reservation; the driver's static size (cudaFuncGetAttributes'
 * sharedSizeBytes) does not, and the occupancy code adds the reservation itself. Seen on an H200
 * (results/day/nvidia-h200_20261130_quick.json): the static bench's 48 KiB array is SHARED:50176 in
 * cuobjdump and 49152 from the driver; the dynamic bench's kernel SHARED:1024 and 0. */
#define RESERVED_SMEM 1024
#define STO_CUDA_ENTRY 0x10    /* a symbol's st_other bit: the function is a kernel */

/* One call's state: the file as the user named it (for messages), its absolute path (for the tools),
 * the tools found and how long each may run. */
struct work {
    const char *shown;
    char abs[PATH_MAX];
    char cuobjdump[PATH_MAX];
    double cuobjdump_s, ptxas_s;
    int cc;
    char *why;
    size_t why_len;
};

/* A piece of a tool's output: not NUL-terminated. */
struct span {
    const char *p;
    size_t n;
};

const char *smem_code_kind_name(enum smem_code_kind k)
{
    switch (k) {
    case SMEM_CODE_CUBIN:
        return "cubin";
    case SMEM_CODE_FATBIN:
        return "fatbin";
    case SMEM_CODE_PTX:
        return "ptx";
    }
    return "unknown";
}

/* ---- spans: lines and tokens of a tool's output ---- */

/* The line that starts at *p (without its newline); advances *p past it. False at the end. */
static bool next_line(const char **p, const char *end, struct span *line)
{
    const char *nl;

    if (*p >= end)
        return false;
    nl = memchr(*p, '\n', (size_t)(end - *p));
    line->p = *p;
    line->n = (size_t)((nl ? nl : end) - *p);
    *p = nl ? nl + 1 : end;
    return true;
}

/* The whitespace-separated tokens of a line, at most max; returns how many. */
static size_t tokens(struct span line, struct span *tok, size_t max)
{
    size_t n = 0, i = 0;

    while (i < line.n && n < max) {
        while (i < line.n && (line.p[i] == ' ' || line.p[i] == '\t' || line.p[i] == '\r'))
            i++;
        if (i == line.n)
            break;
        tok[n].p = line.p + i;
        while (i < line.n && line.p[i] != ' ' && line.p[i] != '\t' && line.p[i] != '\r')
            i++;
        tok[n].n = (size_t)(line.p + i - tok[n].p);
        n++;
    }
    return n;
}

static bool span_eq(struct span s, const char *lit)
{
    return s.n == strlen(lit) && !memcmp(s.p, lit, s.n);
}

static bool span_starts(struct span s, const char *lit)
{
    size_t k = strlen(lit);

    return s.n >= k && !memcmp(s.p, lit, k);
}

/* The line without its leading blanks. */
static struct span trimmed(struct span s)
{
    while (s.n && (*s.p == ' ' || *s.p == '\t')) {
        s.p++;
        s.n--;
    }
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
        s.n--;
    return s;
}

/* A number in a span: base 0 (0x.. hex, else decimal) or 16. False unless the whole span is one. */
static bool span_num(struct span s, int base, int64_t *v)
{
    char buf[40], *end;

    if (!s.n || s.n >= sizeof(buf))
        return false;
    memcpy(buf, s.p, s.n);
    buf[s.n] = '\0';
    errno = 0;
    *v = strtoll(buf, &end, base);
    return !errno && *end == '\0';
}

/* The number after "key" and a colon in a line: "Offset  : 0x20" gives 32. */
static bool span_field(struct span line, const char *key, int64_t *v)
{
    const char *k = memmem(line.p, line.n, key, strlen(key));
    struct span rest, tok[1];

    if (!k)
        return false;
    rest.p = k + strlen(key);
    rest.n = (size_t)(line.p + line.n - rest.p);
    while (rest.n && (*rest.p == ' ' || *rest.p == '\t')) {
        rest.p++;
        rest.n--;
    }
    if (!rest.n || *rest.p != ':')
        return false;
    rest.p++;
    rest.n--;
    return tokens(rest, tok, 1) == 1 && span_num(tok[0], 0, v);
}

/* "sm_90a" (or "90a" when prefix is ""): the number and the letter after it ('\0' for none). */
static bool arch_of(struct span s, const char *prefix, int *arch, char *suffix)
{
    size_t i = strlen(prefix);
    int a = 0;

    if (!span_starts(s, prefix) || i >= s.n || s.p[i] < '0' || s.p[i] > '9')
        return false;
    for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9' && a < 100000; i++)
        a = a * 10 + (s.p[i] - '0');
    *suffix = i < s.n && (s.p[i] == 'a' || s.p[i] == 'f') ? s.p[i] : '\0';
    *arch = a;
    return true;
}

/* Whether a device of cc runs code (SASS) for sm_<arch><suffix>: the same major and not newer, and
 * for the architecture-specific sm_XXa exactly that cc. */
static bool sass_runs(int arch, char suffix, int cc)
{
    if (suffix == 'a')
        return arch == cc;
    return arch / 10 == cc / 10 && arch <= cc;
}

/* Whether ptxas can compile PTX for sm_<arch><suffix> to sm_<cc>: PTX runs on later devices, except
 * sm_XXa PTX (that cc only) and sm_XXf PTX (that family: the same major). */
static bool ptx_runs(int arch, char suffix, int cc)
{
    if (suffix == 'a')
        return arch == cc;
    if (suffix == 'f')
        return arch / 10 == cc / 10 && arch <= cc;
    return arch <= cc;
}

/* ---- the file's kind ---- */

/* What a message shows of a file's first bytes: text (up to its first line's end) in quotes, anything
 * else in hex. */
static void first_bytes(const unsigned char *b, size_t n, char *out, size_t len)
{
    size_t k = n < 16 ? n : 16, shown = 0;
    bool text = true;

    for (size_t i = 0; i < k; i++)
        if ((b[i] < 0x20 || b[i] > 0x7e) && b[i] != '\n' && b[i] != '\r' && b[i] != '\t')
            text = false;
    while (shown < k && b[shown] != '\n' && b[shown] != '\r')
        shown++;
    out[0] = '\0';
    if (text && shown) {
        smem_fmt(out, len, "\"%.*s\"", (int)shown, (const char *)b);
        return;
    }
    for (size_t i = 0; i < (n < 8 ? n : 8); i++)
        smem_append(out, len, " ", "%02x", b[i]);
}

/* PTX: text (no NUL byte) with a line that starts with the .version directive. */
static bool looks_like_ptx(const unsigned char *b, size_t n)
{
    const char *p = (const char *)b, *end = p + n;
    struct span line;

    if (memchr(b, '\0', n))
        return false;
    while (next_line(&p, end, &line))
        if (span_starts(trimmed(line), ".version"))
            return true;
    return false;
}

int smem_code_kind_of(const char *path, enum smem_code_kind *kind, char *why, size_t why_len)
{
    unsigned char *head;
    size_t n = 0;
    struct stat st;
    char shown[64];
    int fd, rc = SMEM_EINVAL;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            smem_fmt(why, why_len, "%s: no such file", path);
        else
            smem_fmt(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return SMEM_EINVAL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        smem_fmt(why, why_len, "%s is %s, not a cubin, fatbin or PTX file", path,
                 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        close(fd);
        return SMEM_EINVAL;
    }
    head = malloc(HEAD_BYTES);
    if (!head) {
        close(fd);
        smem_fmt(why, why_len, "out of host memory reading %s", path);
        return SMEM_ENOMEM;
    }
    while (n < HEAD_BYTES) {
        ssize_t r = read(fd, head + n, HEAD_BYTES - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            smem_fmt(why, why_len, "cannot read %s: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n >= 20 && !memcmp(head, "\177ELF", 4)) {
        /* e_machine: 16 bits at offset 18, in the byte order of e_ident[EI_DATA] */
        unsigned machine = head[5] == 2 ? (unsigned)head[18] << 8 | head[19] : (unsigned)head[19] << 8 | head[18];
        if (machine != ELF_MACHINE_CUDA) {
            smem_fmt(why, why_len, "%s is an ELF file for machine %u, not CUDA code (a cubin is machine %d): "
                     "compile with nvcc -cubin, -fatbin or -ptx", path, machine, ELF_MACHINE_CUDA);
            goto done;
        }
        *kind = SMEM_CODE_CUBIN;
        rc = SMEM_OK;
    } else if (n >= 4 && ((uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 |
                          (uint32_t)head[3] << 24) == FATBIN_MAGIC) {
        *kind = SMEM_CODE_FATBIN;
        rc = SMEM_OK;
    } else if (looks_like_ptx(head, n)) {
        *kind = SMEM_CODE_PTX;
        rc = SMEM_OK;
    } else {
        if (n)
            first_bytes(head, n, shown, sizeof(shown));
        smem_fmt(why, why_len, "%s is not a cubin, fatbin or PTX file (%s%s): compile with nvcc -cubin, -fatbin "
                 "or -ptx", path, n ? "its first bytes are " : "it is empty", n ? shown : "");
    }
done:
    free(head);
    close(fd);
    return rc;
}

/* ---- running the tools ---- */

/* dir/name when that is an executable file. */
static bool executable_at(const char *dir, size_t dir_len, const char *name, char *path, size_t len)
{
    struct stat st;
    int k;

    if (!dir_len)
        return false;
    k = snprintf(path, len, "%.*s/%s", (int)dir_len, dir, name);
    return k > 0 && (size_t)k < len && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A toolkit program: $CUDA_HOME/bin, then the folder of the build's nvcc, then PATH. */
static bool find_tool(const char *name, char *path, size_t len)
{
    const char *home = getenv("CUDA_HOME"), *dirs = getenv("PATH"), *p;
    char bin[PATH_MAX];

    if (home && *home) {
        smem_fmt(bin, sizeof(bin), "%s/bin", home);
        if (executable_at(bin, strlen(bin), name, path, len))
            return true;
    }
    if (executable_at(SMEM_CUDA_BIN, strlen(SMEM_CUDA_BIN), name, path, len))
        return true;
    for (p = dirs; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t k = colon ? (size_t)(colon - p) : strlen(p);
        if (executable_at(p, k, name, path, len))
            return true;
        p += k + (colon ? 1 : 0);
    }
    return false;
}

/* The whole of a file descriptor (from its start) into a malloc'd, NUL-terminated buffer, at most
 * TOOL_OUTPUT_MAX bytes. */
static int slurp(struct work *w, int fd, const char *what, char **buf, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *b;

    *buf = NULL;
    if (lseek(fd, 0, SEEK_SET) < 0) {
        smem_fmt(w->why, w->why_len, "cannot read what %s printed: %s", what, strerror(errno));
        return SMEM_EIO;
    }
    b = malloc(cap + 1);
    while (b) {
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(b);
            smem_fmt(w->why, w->why_len, "cannot read what %s printed: %s", what, strerror(errno));
            return SMEM_EIO;
        }
        n += (size_t)r;
        if (r == 0)
            break;
        if (n < cap)
            continue;
        if (cap >= TOOL_OUTPUT_MAX) {
            free(b);
            smem_fmt(w->why, w->why_len, "%s printed more than %llu MiB on %s: not a listing smembench can read",
                     what, TOOL_OUTPUT_MAX / SMEM_KIB / SMEM_KIB, w->shown);
            return SMEM_EINVAL;
        }
        char *grown = realloc(b, cap * 2 + 1);
        if (!grown) {
            free(b);
            b = NULL;
            break;
        }
        b = grown;
        cap *= 2;
    }
    if (!b) {
        smem_fmt(w->why, w->why_len, "out of host memory reading what %s printed", what);
        return SMEM_ENOMEM;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return SMEM_OK;
}

/* An anonymous file in memory (memfd): no name in any folder, so a process killed at any moment,
 * SIGKILL included, leaves nothing behind. -1 and why on failure. */
static int anon_file(struct work *w, const char *name)
{
    int fd = memfd_create(name, MFD_CLOEXEC);

    if (fd < 0)
        smem_fmt(w->why, w->why_len, "cannot read %s: cannot create an anonymous file in memory (memfd_create): %s",
                 w->shown, strerror(errno));
    return fd;
}

/* The seconds a tool may run: SMEMBENCH_TOOL_TIMEOUT (seconds, > 0) when set, else the default
 * (def_s); a value that is not a positive number is an error (SMEM_EINVAL, one line). */
static int tool_timeout(struct work *w, double def_s, double *out)
{
    const char *v = getenv("SMEMBENCH_TOOL_TIMEOUT");
    char *end;
    double s;

    *out = def_s;
    if (!v || !*v)
        return SMEM_OK;
    errno = 0;
    s = strtod(v, &end);
    if (errno || *end || !(s > 0) || s > 86400) {
        smem_fmt(w->why, w->why_len, "invalid value \"%s\" for SMEMBENCH_TOOL_TIMEOUT; expected seconds in (0, 86400]",
                 v);
        return SMEM_EINVAL;
    }
    *out = s;
    return SMEM_OK;
}

/* The first non-blank line of text, its runs of blanks squeezed to one space. */
static void first_line(const char *text, char *out, size_t len)
{
    const char *p = text, *end = text + strlen(text);
    struct span line;
    size_t k = 0;

    out[0] = '\0';
    while (next_line(&p, end, &line)) {
        line = trimmed(line);
        if (!line.n)
            continue;
        for (size_t i = 0; i < line.n && k + 1 < len; i++) {
            bool blank = line.p[i] == ' ' || line.p[i] == '\t';
            if (blank && k && out[k - 1] == ' ')
                continue;
            out[k++] = blank ? ' ' : line.p[i];
        }
        out[k] = '\0';
        return;
    }
}

/* Runs argv (argv[0] a full path) with stdin from /dev/null and stdout and stderr in anonymous
 * files, fd3 and fd4 (when >= 0) open in it as descriptors 3 and 4 (argv names them
 * /proc/self/fd/3 and /proc/self/fd/4), for at most timeout_s seconds; then kills it by its pid.
 * The tool dies with smembench (PR_SET_PDEATHSIG). *out: its stdout (malloc'd) when it exited 0;
 * otherwise SMEM_EINVAL and why has the first line it printed on stderr. */
static int run_tool(struct work *w, char *const argv[], int fd3, int fd4, double timeout_s, char **out,
                    size_t *out_len)
{
    const char *tool = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    char line[512] = "";
    struct timespec t0, now, nap = { 0, 2 * 1000 * 1000 };
    int fo = -1, fe = -1, fi = -1, status = 0, rc;
    char *err = NULL;
    size_t err_len;
    pid_t pid, parent = getpid();

    *out = NULL;
    if ((fo = anon_file(w, "smembench-stdout")) < 0 || (fe = anon_file(w, "smembench-stderr")) < 0) {
        rc = SMEM_EIO;
        goto close_files;
    }
    if ((fi = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        smem_fmt(w->why, w->why_len, "cannot run %s: cannot open /dev/null: %s", tool, strerror(errno));
        rc = SMEM_EIO;
        goto close_files;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid < 0) {
        smem_fmt(w->why, w->why_len, "cannot run %s: %s", tool, strerror(errno));
        rc = SMEM_EIO;
        goto close_files;
    }
    if (pid == 0) {
        /* the child: only async-signal-safe calls until execv */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        setpgid(0, 0);   /* its own group: a kill at the timeout reaches what it started too */
        /* smembench killed (even by SIGKILL) takes the tool with it */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(126);
        /* descriptors 3 and 4 first: the dup2 calls to 0, 1 and 2 must not close one of them */
        int a = fd3 >= 0 ? fcntl(fd3, F_DUPFD_CLOEXEC, 5) : -1, b = fd4 >= 0 ? fcntl(fd4, F_DUPFD_CLOEXEC, 5) : -1;
        if ((fd3 >= 0 && a < 0) || (fd4 >= 0 && b < 0))
            _exit(126);
        if (dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || (a >= 0 && dup2(a, 3) < 0) ||
            (b >= 0 && dup2(b, 4) < 0))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);   /* also here: the kill below may come before the child ran setpgid */
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            smem_fmt(w->why, w->why_len, "cannot wait for %s: %s", tool, strerror(errno));
            rc = SMEM_EIO;
            goto close_files;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 >= timeout_s) {
            if (kill(-pid, SIGKILL) != 0)
                kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            smem_fmt(w->why, w->why_len, "%s did not finish within %g s on %s: it was stopped (SMEMBENCH_TOOL_TIMEOUT "
                     "sets the limit in seconds)", tool, timeout_s, w->shown);
            rc = SMEM_EINVAL;
            goto close_files;
        }
        nanosleep(&nap, NULL);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rc = slurp(w, fo, tool, out, out_len);
        goto close_files;
    }
    /* what it said: stderr, else stdout (cuobjdump prints some errors there) */
    if (slurp(w, fe, tool, &err, &err_len) == SMEM_OK)
        first_line(err, line, sizeof(line));
    free(err);
    err = NULL;
    if (!line[0] && slurp(w, fo, tool, &err, &err_len) == SMEM_OK)
        first_line(err, line, sizeof(line));
    free(err);
    if (WIFSIGNALED(status))
        smem_fmt(w->why, w->why_len, "%s was killed by signal %d on %s%s%s", tool, WTERMSIG(status), w->shown,
                 line[0] ? ": " : "", line);
    else if (WEXITSTATUS(status) >= 126 && !line[0])
        smem_fmt(w->why, w->why_len, "cannot run %s (exit status %d)", argv[0], WEXITSTATUS(status));
    else
        smem_fmt(w->why, w->why_len, "%s failed on %s: %s", tool, w->shown, line[0] ? line : "no message");
    rc = SMEM_EINVAL;
close_files:
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    if (fi >= 0)
        close(fi);
    return rc;
}

/* Runs cuobjdump with one option on file (and an extra argument before it when arg is not NULL);
 * fd >= 0: the file is that descriptor, which the tool reads as /proc/self/fd/3. */
static int cuobjdump(struct work *w, const char *option, const char *arg, const char *file, int fd, char **out,
                     size_t *len)
{
    char *argv[5];
    int k = 0;

    argv[k++] = w->cuobjdump;
    argv[k++] = (char *)option;
    if (arg)
        argv[k++] = (char *)arg;
    argv[k++] = fd >= 0 ? "/proc/self/fd/3" : (char *)file;
    argv[k] = NULL;
    return run_tool(w, argv, fd, -1, w->cuobjdump_s, out, len);
}

/* ---- cuobjdump's listings ---- */

/* One function of a --dump-resource-usage block:
 *    Function sum_rows:
 *     REG:22 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0 */
struct usage {
    struct span name;
    int64_t regs, stack, shared, local;
};

/* A name compared with a span: both the whole name. */
static bool name_is(struct span a, struct span b)
{
    return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

/* The KEY:VALUE fields of a resource line into u; CONSTANT[3] (user __constant__ data, on the
 * "Common:" line) into *cbank3 when not NULL. */
static void usage_fields(struct span line, struct usage *u, int64_t *cbank3)
{
    struct span tok[32];
    size_t n = tokens(line, tok, SMEM_ARRAY_LEN(tok));

    for (size_t i = 0; i < n; i++) {
        const char *colon = memrchr(tok[i].p, ':', tok[i].n);
        struct span key, val;
        int64_t v;

        if (!colon)
            continue;
        key.p = tok[i].p;
        key.n = (size_t)(colon - tok[i].p);
        val.p = colon + 1;
        val.n = (size_t)(tok[i].p + tok[i].n - val.p);
        if (!span_num(val, 0, &v))
            continue;
        if (u && span_eq(key, "REG"))
            u->regs = v;
        else if (u && span_eq(key, "STACK"))
            u->stack = v;
        else if (u && span_eq(key, "SHARED"))
            u->shared = v;
        else if (u && span_eq(key, "LOCAL"))
            u->local = v;
        else if (cbank3 && span_eq(key, "CONSTANT[3]"))
            *cbank3 = v;
    }
}

/* The functions of one "Resource usage:" block [p, end), into a malloc'd array. */
static int read_usage(struct work *w, const char *p, const char *end, struct usage **out, size_t *n,
                      int64_t *cbank3)
{
    struct span line, tok[2];
    struct usage *u = NULL, *cur = NULL;
    size_t cap = 0;
    bool common = false;

    *n = 0;
    *cbank3 = 0;
    while (next_line(&p, end, &line)) {
        size_t k = tokens(line, tok, 2);
        if (k == 2 && span_eq(tok[0], "Function") && tok[1].n > 1 && tok[1].p[tok[1].n - 1] == ':') {
            if (*n == cap) {
                struct usage *grown = realloc(u, (cap ? cap * 2 : 16) * sizeof(*u));
                if (!grown) {
                    free(u);
                    smem_fmt(w->why, w->why_len, "out of host memory reading %s", w->shown);
                    return SMEM_ENOMEM;
                }
                u = grown;
                cap = cap ? cap * 2 : 16;
            }
            cur = &u[(*n)++];
            memset(cur, 0, sizeof(*cur));
            cur->name.p = tok[1].p;
            cur->name.n = tok[1].n - 1;
            cur->regs = -1;
            common = false;
        } else if (k == 1 && span_eq(tok[0], "Common:")) {
            cur = NULL;
            common = true;
        } else if (k && cur) {
            usage_fields(line, cur, NULL);
            cur = NULL;
        } else if (k && common) {
            usage_fields(line, NULL, cbank3);
            common = false;
        }
    }
    for (size_t i = 0; i < *n; i++)
        if (u[i].regs < 0) {
            smem_fmt(w->why, w->why_len, "cuobjdump --dump-resource-usage printed no REG: field for %.*s in %s: an "
                     "output format smembench does not know", (int)u[i].name.n, u[i].name.p, w->shown);
            free(u);
            return SMEM_EINVAL;
        }
    *out = u;
    return SMEM_OK;
}

/* One ELF file of cuobjdump -elf's output: [begin, end) from its header line
 *   64-bit ELF: type=ET_EXEC, ABI=8, sm=90a, toolkit=13.0, flags=0x6005a04 */
struct elf_text {
    const char *begin, *end;
    int arch;
    char suffix;
};

/* The ELF files of cuobjdump -elf's output, at most max of them kept; returns how many there are. */
static size_t split_elfs(const char *text, const char *end, struct elf_text *e, size_t max)
{
    const char *p = text;
    struct span line;
    size_t n = 0;

    while (next_line(&p, end, &line)) {
        struct span t = trimmed(line), tok[8];
        size_t k;

        if (!(span_starts(t, "64-bit ELF:") || span_starts(t, "32-bit ELF:")))
            continue;
        if (n && n <= max)
            e[n - 1].end = line.p;
        if (n < max) {
            e[n].begin = line.p;
            e[n].end = end;
            e[n].arch = 0;
            e[n].suffix = '\0';
            k = tokens(t, tok, SMEM_ARRAY_LEN(tok));
            for (size_t i = 0; i < k; i++)
                if (arch_of(tok[i], "sm=", &e[n].arch, &e[n].suffix))
                    break;
        }
        n++;
    }
    return n;
}

/* The "Resource usage:" blocks of --dump-resource-usage's output, in order; for a fatbin each follows
 * "arch = sm_80" in its "Fatbin elf code:" header (arch 0 where there is none: a cubin). */
struct usage_text {
    const char *begin, *end;
    int arch;
};

static size_t split_usage(const char *text, const char *end, struct usage_text *u, size_t max)
{
    const char *p = text;
    struct span line, tok[3];
    size_t n = 0;
    int arch = 0;
    char suffix;

    while (next_line(&p, end, &line)) {
        size_t k = tokens(line, tok, 3);
        if (k == 3 && span_eq(tok[0], "arch") && span_eq(tok[1], "=")) {
            if (!arch_of(tok[2], "sm_", &arch, &suffix))
                arch = 0;
        } else if (k == 2 && span_eq(tok[0], "Resource") && span_eq(tok[1], "usage:")) {
            if (n && n <= max)
                u[n - 1].end = line.p;
            if (n < max) {
                u[n].begin = p;
                u[n].end = end;
                u[n].arch = arch;
            }
            n++;
            arch = 0;
        } else if (k && span_eq(tok[0], "Fatbin") && n && n <= max && u[n - 1].end == end) {
            u[n - 1].end = line.p;
        }
    }
    return n;
}

/* What one pass over an ELF's dump finds, as spans into it:
 *   Index Offset   Size ES Align        Type    Flags Link     Info Name        (the section table)
 *      15   1b00    800  0  4         NOBITS       43    0       12 .nv.shared.sum_rows
 *   .section .symtab                                                      (cuobjdump 13.0 to 13.4)
 *    index           value           size      info    other  shndx    name
 *    0xf               0           0xc00     0x12     0x10   0x12     sum_rows
 *   .section .symtab                                                      (cuobjdump 13.5)
 *      Num    Value     Size  Type    Bind    Vis      Other    Ndx  Name
 *      0xf        0    0xc00  FUNC    GLOBAL  DEFAULT  ENTRY   0x12  sum_rows
 *   .nv.info.sum_rows                                                     (a kernel's attributes)
 *   	Attribute:	EIATTR_KPARAM_INFO
 *   	Value:	Index : 0x0	Ordinal : 0x2	Offset  : 0x10	Size    : 0x4
 * The functions whose symbol has STO_CUDA_ENTRY in st_other (ENTRY) are the kernels. */
struct elf_index {
    struct span *shared;        /* names of .nv.shared.<fn> sections, less the prefix */
    int64_t *shared_size;       /* and their sizes (NOBITS: what the function declares, with the reservation) */
    size_t n_shared;
    struct span *shared_syms;   /* .nv.shared.<fn> section symbols of the symbol table, less the prefix: a
                                 * function with one has a section of that name, or the file is damaged */
    size_t n_shared_syms;
    bool reserved;              /* a .nv.shared.reserved section: RESERVED_SMEM is in each function's */
    struct span *entries;       /* kernels */
    size_t n_entries;
    size_t n_funcs;             /* FUNC symbols: 0 means no symbol table was read */
    struct span *info_name;     /* .nv.info.<fn> dumps: the name and [begin, end) of the lines after it */
    const char **info_begin, **info_end;
    size_t n_info;
};

static void free_index(struct elf_index *x)
{
    free(x->shared);
    free(x->shared_size);
    free(x->shared_syms);
    free(x->entries);
    free(x->info_name);
    free(x->info_begin);
    free(x->info_end);
}

/* Appends a span to a growing array (cap doubles); false when out of memory. */
static bool push_span(struct span **a, size_t *n, size_t *cap, struct span s)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        struct span *g = realloc(*a, c * sizeof(**a));
        if (!g)
            return false;
        *a = g;
        *cap = c;
    }
    (*a)[(*n)++] = s;
    return true;
}

static int index_elf(struct work *w, const struct elf_text *e, struct elf_index *x)
{
    enum { NONE, SECTIONS, SYMBOLS, INFO } state = NONE;
    enum { NUMERIC, NAMED } symbols = NUMERIC;   /* the symbol table's columns: 13.0 or 13.5 */
    const char *p = e->begin;
    struct span line, tok[12];
    size_t cap_shared = 0, cap_entries = 0, cap_info = 0, cap_syms = 0;
    bool ok = true;

    memset(x, 0, sizeof(*x));
    while (ok && next_line(&p, e->end, &line)) {
        size_t k = tokens(line, tok, SMEM_ARRAY_LEN(tok));
        int64_t info, other;

        if (line.n && line.p[0] == '.') {
            /* a section's dump begins with its name (or ".section NAME") at the start of a line */
            struct span t = trimmed(line);
            if (state == INFO)
                x->info_end[x->n_info - 1] = line.p;
            state = NONE;
            if (span_eq(t, ".section .symtab")) {
                state = SYMBOLS;
            } else if (span_starts(t, ".nv.info.") && t.n > 9) {
                if (x->n_info == cap_info) {
                    size_t c = cap_info ? cap_info * 2 : 16;
                    struct span *gn = realloc(x->info_name, c * sizeof(*gn));
                    const char **gb = gn ? realloc(x->info_begin, c * sizeof(*gb)) : NULL;
                    const char **ge = gb ? realloc(x->info_end, c * sizeof(*ge)) : NULL;
                    if (gn)
                        x->info_name = gn;
                    if (gb)
                        x->info_begin = gb;
                    if (!ge) {
                        ok = false;
                        break;
                    }
                    x->info_end = ge;
                    cap_info = c;
                }
                x->info_name[x->n_info] = (struct span){ t.p + 9, t.n - 9 };
                x->info_begin[x->n_info] = p;
                x->info_end[x->n_info] = e->end;
                x->n_info++;
                state = INFO;
            }
            continue;
        }
        if (state == NONE && k >= 2 && span_eq(tok[0], "Index") && span_eq(tok[1], "Offset")) {
            state = SECTIONS;
        } else if (state == SECTIONS) {
            if (!k) {
                state = NONE;
            } else if (k >= 10 && span_starts(tok[k - 1], ".nv.shared.reserved")) {
                x->reserved = true;
            } else if (k >= 10 && span_starts(tok[k - 1], ".nv.shared.") && tok[k - 1].n > 11) {
                size_t had = cap_shared;
                int64_t size = -1;
                ok = push_span(&x->shared, &x->n_shared, &cap_shared,
                               (struct span){ tok[k - 1].p + 11, tok[k - 1].n - 11 });
                if (ok && cap_shared != had) {
                    int64_t *grown = realloc(x->shared_size, cap_shared * sizeof(*grown));
                    ok = grown != NULL;
                    if (ok)
                        x->shared_size = grown;
                }
                if (ok)
                    x->shared_size[x->n_shared - 1] = span_num(tok[2], 16, &size) ? size : -1;
            }
        } else if (state == SYMBOLS && k >= 2 && span_eq(tok[0], "Num") && span_eq(tok[k - 1], "Name")) {
            symbols = NAMED;
        } else if (state == SYMBOLS && symbols == NUMERIC && k == 7 && span_num(tok[3], 16, &info) &&
                   span_num(tok[4], 16, &other) && (info & 0xf) == 2) {
            /* STT_FUNC in st_info's low bits */
            x->n_funcs++;
            if (other & STO_CUDA_ENTRY)
                ok = push_span(&x->entries, &x->n_entries, &cap_entries, tok[6]);
        } else if (state == SYMBOLS && symbols == NUMERIC && k == 7 && span_num(tok[3], 16, &info) &&
                   (info & 0xf) == 3 && span_starts(tok[6], ".nv.shared.") && tok[6].n > 11 &&
                   !span_starts(tok[6], ".nv.shared.reserved")) {
            /* STT_SECTION: the section symbol of a function's shared memory */
            ok = push_span(&x->shared_syms, &x->n_shared_syms, &cap_syms, (struct span){ tok[6].p + 11, tok[6].n - 11 });
        } else if (state == SYMBOLS && symbols == NAMED && k >= 9 && span_eq(tok[3], "SECTION") &&
                   span_starts(tok[k - 1], ".nv.shared.") && tok[k - 1].n > 11 &&
                   !span_starts(tok[k - 1], ".nv.shared.reserved")) {
            ok = push_span(&x->shared_syms, &x->n_shared_syms, &cap_syms,
                           (struct span){ tok[k - 1].p + 11, tok[k - 1].n - 11 });
        } else if (state == SYMBOLS && symbols == NAMED && k >= 9 && span_eq(tok[3], "FUNC")) {
            /* Other: the words between Vis and Ndx */
            bool entry = false;
            x->n_funcs++;
            for (size_t i = 6; i + 2 < k; i++)
                entry = entry || memmem(tok[i].p, tok[i].n, "ENTRY", 5);
            if (entry)
                ok = push_span(&x->entries, &x->n_entries, &cap_entries, tok[k - 1]);
        }
    }
    if (!ok) {
        free_index(x);
        smem_fmt(w->why, w->why_len, "out of host memory reading %s", w->shown);
        return SMEM_ENOMEM;
    }
    return SMEM_OK;
}

/* Whether name is one of the n spans. */
static bool among(const struct span *a, size_t n, struct span name)
{
    for (size_t i = 0; i < n; i++)
        if (name_is(a[i], name))
            return true;
    return false;
}

/* A kernel's .nv.info.<fn> attributes: the parameters and the thread limits.
 *   	Attribute:	EIATTR_KPARAM_INFO
 *   	Value:	Index : 0x0	Ordinal : 0x2	Offset  : 0x10	Size    : 0x4
 *   	Attribute:	EIATTR_MAX_THREADS          (__launch_bounds__, .maxntid)
 *   	Value:	0x80 0x1 0x1
 *   	Attribute:	EIATTR_REQNTID              (.reqntid)
 *   	Value:	0x40 0x2 0x1
 * The parameters are known when the section is there (none listed: none taken) and every ordinal
 * from 0 up is listed once, at most SMEM_CUBIN_MAX_PARAMS. */
static void read_info(const struct elf_index *x, struct span fn, struct smem_cubin_kernel *k)
{
    struct span line, tok[8], attr = { "", 0 };
    bool found = false, bad = false, seen[SMEM_CUBIN_MAX_PARAMS] = { false };
    size_t top = 0, i;
    const char *p, *end;

    for (i = 0; i < x->n_info && !found; i++)
        found = name_is(x->info_name[i], fn);
    if (!found) {
        k->params_known = false;
        k->n_params = 0;
        return;
    }
    for (p = x->info_begin[i - 1], end = x->info_end[i - 1]; next_line(&p, end, &line);) {
        size_t n = tokens(line, tok, SMEM_ARRAY_LEN(tok));
        int64_t ord, off, size, a, b, c;

        if (n == 2 && span_eq(tok[0], "Attribute:")) {
            attr = tok[1];
            continue;
        }
        if (!n || !span_eq(tok[0], "Value:"))
            continue;
        if (span_eq(attr, "EIATTR_KPARAM_INFO")) {
            if (!span_field(line, "Ordinal", &ord) || !span_field(line, "Offset", &off) ||
                !span_field(line, "Size", &size) || ord < 0 || ord >= SMEM_CUBIN_MAX_PARAMS || seen[ord]) {
                bad = true;
                continue;
            }
            seen[ord] = true;
            k->param_offset[ord] = off;
            k->param_size[ord] = size;
            if ((size_t)ord + 1 > top)
                top = (size_t)ord + 1;
        } else if ((span_eq(attr, "EIATTR_MAX_THREADS") || span_eq(attr, "EIATTR_REQNTID")) && n == 4 &&
                   span_num(tok[1], 0, &a) && span_num(tok[2], 0, &b) && span_num(tok[3], 0, &c) && a > 0 &&
                   b > 0 && c > 0 && a * b * c <= INT32_MAX) {
            if (!k->max_threads || a * b * c < k->max_threads)
                k->max_threads = (int)(a * b * c);
        }
        attr.n = 0;
    }
    for (i = 0; i < top; i++)
        bad = bad || !seen[i];
    k->params_known = !bad;
    k->n_params = bad ? 0 : top;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct smem_cubin_kernel *)a)->name, ((const struct smem_cubin_kernel *)b)->name);
}

/* The kernels of one ELF file into *out (sorted by name): resources from its usage block, params and
 * limits from its dump. */
/* A damaged file can read as a kernel without static shared memory: the section table no longer
 * names the function's .nv.shared section (its symbol still does), or says a size the resource
 * listing does not count. SMEM_EINVAL with one line then. */
static int shared_consistent(struct work *w, const struct elf_index *x, struct span name, int64_t shared)
{
    for (size_t i = 0; i < x->n_shared; i++)
        if (name_is(x->shared[i], name)) {
            if (x->shared_size[i] > 0 && shared == 0) {
                smem_fmt(w->why, w->why_len, "%s is damaged: %.*s's .nv.shared section has %lld bytes, which cuobjdump "
                         "reads as 0 bytes of static shared memory; rebuild the file", w->shown, (int)name.n, name.p,
                         (long long)x->shared_size[i]);
                return SMEM_EINVAL;
            }
            return SMEM_OK;
        }
    if (among(x->shared_syms, x->n_shared_syms, name)) {
        smem_fmt(w->why, w->why_len, "%s is damaged: its symbol table names %.*s's .nv.shared section, which its section "
                 "table does not have, so its static shared memory cannot be read; rebuild the file", w->shown,
                 (int)name.n, name.p);
        return SMEM_EINVAL;
    }
    return SMEM_OK;
}

static int kernels_of(struct work *w, const struct elf_text *e, const struct usage_text *ut,
                      struct smem_cubin_kernel **out, size_t *n)
{
    struct smem_cubin_kernel *k = NULL;
    struct elf_index x;
    struct usage *u = NULL;
    size_t nu = 0, nk = 0;
    int64_t cbank3 = 0;
    int rc = read_usage(w, ut->begin, ut->end, &u, &nu, &cbank3);

    if (rc)
        return rc;
    rc = index_elf(w, e, &x);
    if (rc) {
        free(u);
        return rc;
    }
    if (nu && !x.n_funcs) {
        smem_fmt(w->why, w->why_len, "cuobjdump -elf printed no symbol table smembench can read for %s: an output "
                 "format smembench does not know", w->shown);
        rc = SMEM_EINVAL;
        goto done;
    }
    k = calloc(nu ? nu : 1, sizeof(*k));
    if (!k) {
        smem_fmt(w->why, w->why_len, "out of host memory reading %s", w->shown);
        rc = SMEM_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < nu; i++) {
        struct smem_cubin_kernel *y = &k[nk];

        if (!among(x.entries, x.n_entries, u[i].name))
            continue;   /* a device function */
        /* a longer (C++ template) name is cut: the listing still shows it */
        smem_fmt(y->name, sizeof(y->name), "%.*s", (int)u[i].name.n, u[i].name.p);
        y->arch = e->arch;
        y->regs = (int)u[i].regs;
        y->static_smem = u[i].shared;
        if ((rc = shared_consistent(w, &x, u[i].name, u[i].shared))) {
            free(k);
            goto done;
        }
        if (x.reserved && among(x.shared, x.n_shared, u[i].name))
            y->static_smem = y->static_smem > RESERVED_SMEM ? y->static_smem - RESERVED_SMEM : 0;
        /* the driver's local size is the per-thread stack frame (spills, local arrays) */
        y->local_bytes = u[i].stack + u[i].local;
        y->const_bytes = cbank3;
        read_info(&x, u[i].name, y);
        nk++;
    }
    qsort(k, nk, sizeof(*k), by_name);
    if (!nk) {
        free(k);
        k = NULL;
    }
    *out = k;
    *n = nk;
done:
    free(u);
    free_index(&x);
    return rc;
}

/* "9.0" for cc 90. */
static const char *cc_text(int cc, char *buf, size_t len)
{
    smem_fmt(buf, len, "%d.%d", cc / 10, cc % 10);
    return buf;
}

static int read_ptx(struct work *w, const char *ptx, int ptx_fd, struct smem_cubin_kernel **out, size_t *n);

/* The PTX of section index (1-based) of cuobjdump -ptx's listing of a fatbin, into *body:
 *     Fatbin ptx code:
 *     ================
 *     arch = sm_90
 *     code version = [9,0]
 *     ...
 *     ptxasOptions =
 *
 *     .version 9.0
 *     .target sm_90
 * (the PTX from its first line that starts with "." or "/" to the next "Fatbin" line). False when
 * there is no such section or its arch is not sm (the name's "sm_90"). */
static bool ptx_section(const char *text, size_t len, long index, struct span sm, struct span *body)
{
    const char *p = text, *end = text + len;
    struct span line;
    long k = 0;
    bool arch_ok = false;

    body->p = NULL;
    while (next_line(&p, end, &line)) {
        struct span t = trimmed(line), tok[3];
        if (span_starts(t, "Fatbin ")) {
            if (k == index && body->p)
                break;
            k += span_eq(t, "Fatbin ptx code:");
            body->p = NULL;
            arch_ok = false;
            continue;
        }
        if (k != index)
            continue;
        if (!body->p && tokens(t, tok, 3) == 3 && span_eq(tok[0], "arch") && span_eq(tok[1], "="))
            arch_ok = tok[2].n == sm.n && !memcmp(tok[2].p, sm.p, sm.n);
        else if (!body->p && t.n && (t.p[0] == '.' || t.p[0] == '/'))
            body->p = line.p;
        if (body->p)
            body->n = (size_t)(line.p + line.n - body->p);
    }
    return arch_ok && body->p;
}

/* A fatbin's PTX (cuobjdump --list-ptx: "PTX file    1: kp.1.sm_90.ptx"): the newest a cc device can
 * compile, taken from cuobjdump -ptx's listing into an anonymous file and compiled by ptxas, when no
 * code (SASS) in it runs there, as the driver would. Its names go to have (for the message when none
 * fits). */
static int fatbin_ptx(struct work *w, char *have, size_t have_len, struct smem_cubin_kernel **out, size_t *n,
                      bool *found)
{
    char *text = NULL, best[64] = "";
    const char *p, *end;
    struct span line, tok[4], body = { NULL, 0 };
    size_t len;
    int rc, best_arch = -1, fd;
    long best_index = 0;

    *found = false;
    rc = cuobjdump(w, "--list-ptx", NULL, w->abs, -1, &text, &len);
    if (rc)
        return rc;
    for (p = text, end = text + len; next_line(&p, end, &line);) {
        int arch;
        char suffix;
        int64_t index;
        if (tokens(line, tok, 4) != 4 || !span_eq(tok[0], "PTX") || !span_eq(tok[1], "file") || tok[2].n < 2 ||
            tok[2].p[tok[2].n - 1] != ':' || !span_num((struct span){ tok[2].p, tok[2].n - 1 }, 10, &index))
            continue;
        /* the name ends in .sm_XX.ptx: the architecture it is PTX for */
        const char *dot = NULL;
        for (const char *q = tok[3].p; q + 3 < tok[3].p + tok[3].n; q++)
            if (!memcmp(q, ".sm_", 4))
                dot = q;
        if (!dot || !arch_of((struct span){ dot + 1, (size_t)(tok[3].p + tok[3].n - dot - 1) }, "sm_", &arch, &suffix))
            continue;
        smem_append(have, have_len, ", ", "compute_%d%s", arch, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "");
        if (ptx_runs(arch, suffix, w->cc) && arch > best_arch) {
            best_arch = arch;
            best_index = (long)index;
            smem_fmt(best, sizeof(best), "sm_%d%s", arch, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "");
        }
    }
    free(text);
    if (best_arch < 0)
        return SMEM_OK;
    *found = true;
    rc = cuobjdump(w, "-ptx", NULL, w->abs, -1, &text, &len);
    if (rc)
        return rc;
    if (!ptx_section(text, len, best_index, (struct span){ best, strlen(best) }, &body)) {
        free(text);
        smem_fmt(w->why, w->why_len, "cuobjdump -ptx printed no %s PTX for %s (PTX file %ld of --list-ptx): an output "
                 "format smembench does not know", best, w->shown, best_index);
        return SMEM_EINVAL;
    }
    if ((fd = anon_file(w, "smembench-ptx")) < 0) {
        free(text);
        return SMEM_EIO;
    }
    for (size_t done = 0; done < body.n;) {
        ssize_t k = write(fd, body.p + done, body.n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            smem_fmt(w->why, w->why_len, "cannot keep the PTX of %s in memory: %s", w->shown, strerror(errno));
            free(text);
            close(fd);
            return SMEM_EIO;
        }
        done += (size_t)k;
    }
    free(text);
    rc = read_ptx(w, NULL, fd, out, n);
    close(fd);
    return rc;
}

/* Whether sm_<arch><suffix> is in have ("sm_80, sm_90a") already. */
static bool listed(const char *have, int arch, char suffix)
{
    char name[32];
    size_t k;

    k = (size_t)snprintf(name, sizeof(name), "sm_%d%s", arch, suffix == 'a' ? "a" : "");
    for (const char *p = have; (p = strstr(p, name)); p += k)
        if ((p == have || p[-1] == ' ') && (p[k] == ',' || p[k] == 0))
            return true;
    return false;
}

/* Adds the kernels of one ELF (kernels_of's, sorted by name) to *all (sorted by name): a kernel
 * already there stays unless this ELF's code is for a later architecture. */
static int merge_kernels(struct work *w, struct smem_cubin_kernel *k, size_t nk, struct smem_cubin_kernel **all,
                         size_t *n)
{
    struct smem_cubin_kernel *m;
    size_t i = 0, j = 0, t = 0;

    if (!nk)
        return SMEM_OK;
    m = malloc((*n + nk) * sizeof(*m));
    if (!m) {
        smem_fmt(w->why, w->why_len, "out of host memory reading %s", w->shown);
        return SMEM_ENOMEM;
    }
    while (i < *n || j < nk) {
        int c = i == *n ? 1 : j == nk ? -1 : strcmp((*all)[i].name, k[j].name);
        if (c < 0)
            m[t++] = (*all)[i++];
        else if (c > 0)
            m[t++] = k[j++];
        else {
            m[t++] = k[j].arch > (*all)[i].arch ? k[j] : (*all)[i];
            i++;
            j++;
        }
    }
    free(*all);
    *all = m;
    *n = t;
    return SMEM_OK;
}

/* The kernels of a cubin, a fatbin or a program (file: what cuobjdump reads; the user's file, a cubin
 * ptxas wrote, or a program's own executable; fd >= 0: that descriptor instead). Every ELF whose code a cc device runs is read: a fatbin
 * has one per architecture, a program one per translation unit and architecture; each kernel comes
 * from the latest architecture that has it. */
static int read_code(struct work *w, const char *file, int fd, bool fatbin, struct smem_cubin_kernel **out,
                     size_t *n)
{
    enum { MAX_ELFS = 4096 };
    struct elf_text *elf = malloc(MAX_ELFS * sizeof(*elf));
    struct usage_text *use = malloc(MAX_ELFS * sizeof(*use));
    char *usage = NULL, *dump = NULL, have[256] = "", ptx[256] = "", cct[16];
    size_t usage_len, dump_len, ne, nu;
    int rc;
    bool found, runs = false;

    *out = NULL;
    *n = 0;
    if (!elf || !use) {
        smem_fmt(w->why, w->why_len, "out of host memory reading %s", w->shown);
        rc = SMEM_ENOMEM;
        goto done;
    }
    rc = cuobjdump(w, "--dump-resource-usage", NULL, file, fd, &usage, &usage_len);
    if (!rc)
        rc = cuobjdump(w, "-elf", NULL, file, fd, &dump, &dump_len);
    if (rc)
        goto done;
    ne = split_elfs(dump, dump + dump_len, elf, MAX_ELFS);
    nu = split_usage(usage, usage + usage_len, use, MAX_ELFS);
    if (ne > MAX_ELFS) {
        smem_fmt(w->why, w->why_len, "%s holds %zu ELF files; smembench reads at most %d: keep the architectures "
                 "you run (nvcc -gencode)", w->shown, ne, MAX_ELFS);
        rc = SMEM_EINVAL;
        goto done;
    }
    if (ne != nu) {
        smem_fmt(w->why, w->why_len, "cuobjdump lists %zu ELF files in %s with -elf and %zu with "
                 "--dump-resource-usage: an output format smembench does not know", ne, w->shown, nu);
        rc = SMEM_EINVAL;
        goto done;
    }
    for (size_t i = 0; i < ne; i++) {
        if (use[i].arch && use[i].arch != elf[i].arch) {
            smem_fmt(w->why, w->why_len, "cuobjdump lists the ELF files of %s in different orders (sm_%d, sm_%d): an "
                     "output format smembench does not know", w->shown, elf[i].arch, use[i].arch);
            rc = SMEM_EINVAL;
            goto done;
        }
        if (!listed(have, elf[i].arch, elf[i].suffix))
            smem_append(have, sizeof(have), ", ", "sm_%d%s", elf[i].arch, elf[i].suffix == 'a' ? "a" : "");
    }
    for (size_t i = 0; i < ne && !rc; i++) {
        struct smem_cubin_kernel *k = NULL;
        size_t nk = 0;
        if (!sass_runs(elf[i].arch, elf[i].suffix, w->cc))
            continue;
        runs = true;
        rc = kernels_of(w, &elf[i], &use[i], &k, &nk);
        if (!rc)
            rc = merge_kernels(w, k, nk, out, n);
        free(k);
    }
    if (rc || runs)
        goto done;
    if (fatbin) {
        rc = fatbin_ptx(w, ptx, sizeof(ptx), out, n, &found);
        if (rc || found)
            goto done;
    }
    cc_text(w->cc, cct, sizeof(cct));
    if (!have[0] && !ptx[0])
        smem_fmt(w->why, w->why_len, "%s holds no device code: compile with nvcc -cubin, -fatbin or -ptx", w->shown);
    else if (!ptx[0])
        smem_fmt(w->why, w->why_len, "%s holds %s code only; a compute capability %s device cannot run it", w->shown, have, cct);
    else if (!have[0])
        smem_fmt(w->why, w->why_len, "%s holds %s PTX only; a compute capability %s device cannot run it", w->shown, ptx, cct);
    else
        smem_fmt(w->why, w->why_len, "%s holds %s code and %s PTX only; a compute capability %s device cannot run it", w->shown, have,
                 ptx, cct);
    rc = SMEM_EINVAL;
done:
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    free(usage);
    free(dump);
    free(elf);
    free(use);
    return rc;
}

/* The .target of PTX text ("  .target sm_90a" or ".target sm_90, texmode_independent"), from the first
 * HEAD_BYTES bytes of the file ptx (fd >= 0: of that descriptor); false when there is none. */
static bool ptx_target(const char *ptx, int fd, int *arch, char *suffix)
{
    char *head = malloc(HEAD_BYTES);
    int f = fd >= 0 ? fd : open(ptx, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t n = 0;
    bool ok = false;

    if (head && f >= 0 && (n = pread(f, head, HEAD_BYTES, 0)) > 0) {
        const char *p = head, *end;
        struct span line, tok[2];
        for (end = head + n; !ok && next_line(&p, end, &line);)
            if (tokens(line, tok, 2) == 2 && span_eq(tok[0], ".target"))
                ok = arch_of(tok[1], "sm_", arch, suffix);
    }
    free(head);
    if (f >= 0 && fd < 0)
        close(f);
    return ok;
}

/* PTX (the file ptx, or the descriptor ptx_fd >= 0): compiled by ptxas for sm_<cc> (sm_<cc>a for
 * sm_XXa PTX) into an anonymous file, then read as that cubin. */
static int read_ptx(struct work *w, const char *ptx, int ptx_fd, struct smem_cubin_kernel **out, size_t *n)
{
    char ptxas[PATH_MAX], gpu[32], cct[16], *text = NULL;
    char *argv[6];
    size_t len;
    int arch, rc, cubin;
    char suffix;

    if (!ptx_target(ptx, ptx_fd, &arch, &suffix)) {
        smem_fmt(w->why, w->why_len, "%s has no .target sm_XX directive: PTX as nvcc -ptx writes it has one",
                 w->shown);
        return SMEM_EINVAL;
    }
    if (!ptx_runs(arch, suffix, w->cc)) {
        cc_text(w->cc, cct, sizeof(cct));
        if (suffix == 'a')
            smem_fmt(w->why, w->why_len, "%s is PTX for sm_%da, which only a %d.%d device runs; a %s device "
                     "cannot run it", w->shown, arch, arch / 10, arch % 10, cct);
        else if (suffix == 'f')
            smem_fmt(w->why, w->why_len, "%s is PTX for sm_%df, which %d.x devices from %d.%d run; a %s device cannot "
                     "run it", w->shown, arch, arch / 10, arch / 10, arch % 10, cct);
        else
            smem_fmt(w->why, w->why_len, "%s is PTX for sm_%d and later; a compute capability %s device cannot run it", w->shown, arch,
                     cct);
        return SMEM_EINVAL;
    }
    if (!find_tool("ptxas", ptxas, sizeof(ptxas))) {
        smem_fmt(w->why, w->why_len, "needs the CUDA toolkit's ptxas to compile %s (not found in $CUDA_HOME/bin, "
                 "the build's toolkit or PATH)", w->shown);
        return SMEM_EINVAL;
    }
    if ((cubin = anon_file(w, "smembench-cubin")) < 0)
        return SMEM_EIO;
    smem_fmt(gpu, sizeof(gpu), "-arch=sm_%d%s", w->cc, suffix == 'a' ? "a" : "");
    argv[0] = ptxas;
    argv[1] = gpu;
    argv[2] = "-o";
    argv[3] = "/proc/self/fd/4";
    argv[4] = ptx_fd >= 0 ? "/proc/self/fd/3" : (char *)ptx;
    argv[5] = NULL;
    rc = run_tool(w, argv, ptx_fd, cubin, w->ptxas_s, &text, &len);
    free(text);
    if (!rc)
        rc = read_code(w, NULL, cubin, false, out, n);
    close(cubin);
    return rc;
}

/* Whether path is a program's own file (libsmembench reads a registered kernel's code there): an ELF
 * executable or shared object of the host, not a cubin (EM_CUDA), with the fatbins nvcc embeds. Its
 * code is read as a fatbin's ELF files are, without the PTX fallback (a program holds PTX per
 * translation unit, which the driver JIT-compiles only where no code runs). */
static bool host_program(const char *path)
{
    unsigned char head[20];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block: it is refused below */
    ssize_t got = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) ? pread(fd, head, sizeof(head), 0) : 0;

    if (fd >= 0)
        close(fd);
    if (got < (ssize_t)sizeof(head) || memcmp(head, "\177ELF", 4))
        return false;
    return (head[5] == 2 ? (unsigned)head[18] << 8 | head[19] : (unsigned)head[19] << 8 | head[18]) !=
           ELF_MACHINE_CUDA;
}

int smem_cubin_resources(const char *path, int cc, struct smem_cubin_kernel **out, size_t *n, char *why,
                         size_t why_len)
{
    struct work w = { .shown = path, .cc = cc, .why = why, .why_len = why_len };
    enum smem_code_kind kind = SMEM_CODE_CUBIN;
    bool program;
    int rc;

    *out = NULL;
    *n = 0;
    if (cc < 10 || cc > 999) {
        smem_fmt(why, why_len, "compute capability %d is not major * 10 + minor (90 for 9.0)", cc);
        return SMEM_EINVAL;
    }
    program = host_program(path);
    if (!program && (rc = smem_code_kind_of(path, &kind, why, why_len)))
        return rc;
    if (!realpath(path, w.abs)) {
        smem_fmt(why, why_len, "cannot resolve %s: %s", path, strerror(errno));
        return SMEM_EINVAL;
    }
    /* PTX too: the cubin ptxas makes of it is read the same way */
    if (!find_tool("cuobjdump", w.cuobjdump, sizeof(w.cuobjdump))) {
        smem_fmt(why, why_len, "reading %s needs the CUDA toolkit's cuobjdump (not found in $CUDA_HOME/bin, the "
                 "build's toolkit or PATH)", path);
        return SMEM_EINVAL;
    }
    if ((rc = tool_timeout(&w, CUOBJDUMP_TIMEOUT_S, &w.cuobjdump_s)) || (rc = tool_timeout(&w, PTXAS_TIMEOUT_S, &w.ptxas_s)))
        return rc;
    if (program)
        rc = read_code(&w, w.abs, -1, false, out, n);
    else if (kind == SMEM_CODE_PTX)
        rc = read_ptx(&w, w.abs, -1, out, n);
    else
        rc = read_code(&w, w.abs, -1, kind == SMEM_CODE_FATBIN, out, n);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
