/* The launch description of a user's kernel and the little expression language its sizes are written
 * in. A description is checked completely before a device is known: every key, type, range, name and
 * expression, so that the one line a mistake gets names the file, the JSON path and what would be
 * right. Expressions are evaluated in double, which is exact for the integers a launch needs (up to
 * 2^53) and lets ceil(n / 256) mean what it says. */
#define _POSIX_C_SOURCE 200809L
#include "user_desc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "smem.h"

#define SCHEMA_ID "smembench-launch/1"
#define EXACT_MAX 9007199254740992.0   /* 2^53: doubles hold every integer up to here */
#define MAX_DEPTH 64                   /* nesting of parentheses and calls */
#define MAX_CALL_ARGS 8                /* arguments a call may be written with (to count the wrong ones) */
#define MAX_TEXT_BYTES (16u << 20)     /* a description is small; a bigger file is the wrong file */
#define MSG_LEN 1024

const char *const smem_user_device_vars[] = {
    "sm_count", "warp_size", "smem_per_block", "smem_per_block_optin", "smem_per_sm", "l2_bytes",
    "max_threads_per_block", NULL,
};

/* The built-in axes every user kernel has, in the order params list them. */
static const char *const builtin_axes[] = { "carveout_pct", "dyn_smem_bytes", "block", "cluster" };

/* Each type's name, size and the range of values a description may give it (the 64-bit types are
 * limited to +-2^53, where the description's numbers stop being exact). */
static const struct {
    const char *name;
    size_t size;
    bool is_float;
    double min, max;
} types[] = {
    [SMEM_USER_I8] = { "i8", 1, false, -128.0, 127.0 },
    [SMEM_USER_U8] = { "u8", 1, false, 0.0, 255.0 },
    [SMEM_USER_I16] = { "i16", 2, false, -32768.0, 32767.0 },
    [SMEM_USER_U16] = { "u16", 2, false, 0.0, 65535.0 },
    [SMEM_USER_I32] = { "i32", 4, false, -2147483648.0, 2147483647.0 },
    [SMEM_USER_U32] = { "u32", 4, false, 0.0, 4294967295.0 },
    [SMEM_USER_I64] = { "i64", 8, false, -EXACT_MAX, EXACT_MAX },
    [SMEM_USER_U64] = { "u64", 8, false, 0.0, EXACT_MAX },
    [SMEM_USER_F32] = { "f32", 4, true, -FLT_MAX, FLT_MAX },
    [SMEM_USER_F64] = { "f64", 8, true, -DBL_MAX, DBL_MAX },
};
#define TYPE_LIST "i8 u8 i16 u16 i32 u32 i64 u64 f32 f64"

/* C spellings users write for the types, to say which one they meant. */
static const struct {
    const char *c;
    enum smem_user_type t;
} type_aliases[] = {
    { "char", SMEM_USER_I8 },       { "signed char", SMEM_USER_I8 },    { "int8_t", SMEM_USER_I8 },
    { "unsigned char", SMEM_USER_U8 }, { "uint8_t", SMEM_USER_U8 },     { "short", SMEM_USER_I16 },
    { "int16_t", SMEM_USER_I16 },   { "unsigned short", SMEM_USER_U16 }, { "uint16_t", SMEM_USER_U16 },
    { "int", SMEM_USER_I32 },       { "int32_t", SMEM_USER_I32 },       { "unsigned", SMEM_USER_U32 },
    { "unsigned int", SMEM_USER_U32 }, { "uint32_t", SMEM_USER_U32 },   { "long", SMEM_USER_I64 },
    { "long long", SMEM_USER_I64 }, { "int64_t", SMEM_USER_I64 },       { "unsigned long", SMEM_USER_U64 },
    { "unsigned long long", SMEM_USER_U64 }, { "uint64_t", SMEM_USER_U64 }, { "size_t", SMEM_USER_U64 },
    { "float", SMEM_USER_F32 },     { "double", SMEM_USER_F64 },
};

size_t smem_user_type_size(enum smem_user_type t)
{
    return (unsigned)t < SMEM_ARRAY_LEN(types) ? types[t].size : 0;
}

const char *smem_user_type_name(enum smem_user_type t)
{
    return (unsigned)t < SMEM_ARRAY_LEN(types) ? types[t].name : "?";
}

bool smem_user_type_is_float(enum smem_user_type t)
{
    return (unsigned)t < SMEM_ARRAY_LEN(types) && types[t].is_float;
}

/* A number as a message shows it: integers up to 2^53 whole, others with two decimals unless that
 * would hide the fraction (then the shortest exact text: 5.001, 0.004), huge ones in %g. */
static void fmt_num(char *buf, size_t len, double v)
{
    if (v == 0)
        v = 0;   /* no "-0" */
    if (!isfinite(v) || (fabs(v) >= 1e15 && !(v == floor(v) && fabs(v) <= EXACT_MAX))) {
        smem_fmt(buf, len, "%g", v);
    } else if (v == floor(v)) {
        smem_fmt(buf, len, "%.0f", v);
    } else {
        smem_fmt(buf, len, "%.2f", v);
        /* the shortest text that gives v back */
        for (int prec = 1; strtod(buf, NULL) == floor(strtod(buf, NULL)) && prec <= 17; prec++)
            smem_fmt(buf, len, "%.*g", prec, v);
    }
}

/* src into dst with control characters written as \n, \t, \xNN: a message is one line even when
 * the description's text has a newline where a name should be. */
static void one_line(char *dst, size_t len, const char *src)
{
    size_t o = 0;

    if (!len)
        return;
    for (const unsigned char *s = (const unsigned char *)src; *s && o + 1 < len; s++) {
        char esc[8];

        if (*s >= 0x20 && *s != 0x7f) {
            dst[o++] = (char)*s;
            continue;
        }
        smem_fmt(esc, sizeof(esc), *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : *s == '\r' ? "\\r" : "\\x%02x", *s);
        for (const char *e = esc; *e && o + 1 < len; e++)
            dst[o++] = *e;
    }
    dst[o] = '\0';
}

/* ---- expressions ---------------------------------------------------------------------------- */

/* The functions an expression may call, with the argument count each takes. */
static const struct {
    const char *name;
    int argc;
    const char *usage;
} funcs[] = {
    { "ceil", 1, "ceil(x)" },   { "floor", 1, "floor(x)" },    { "min", 2, "min(a, b)" },
    { "max", 2, "max(a, b)" },  { "round_up", 2, "round_up(x, m)" }, { "log2", 1, "log2(x)" },
    { "pow", 2, "pow(a, b)" },
};
#define FUNC_LIST "ceil(x), floor(x), min(a, b), max(a, b), round_up(x, m), log2(x), pow(a, b)"

/* A value while parsing: known when every variable under it has a value (always, when evaluating;
 * only for constants, when checking names, so that "n / 0" is caught before a device is known). */
struct val {
    double v;
    bool known;
};

/* One parse of one expression; values NULL: syntax and names only. The first error wins. */
struct parser {
    const char *s;
    size_t pos;
    const char *what;
    const char *const *names;
    const double *values;
    size_t n;
    int depth;
    bool failed;
    char *why;
    size_t why_len;
};

/* Records the first error as 'what "expr": message'. */
static struct val fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static struct val fail(struct parser *p, const char *fmt, ...)
{
    char msg[MSG_LEN], line[2 * MSG_LEN];
    va_list ap;

    if (!p->failed) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        smem_fmt(line, sizeof(line), "%s \"%s\": %s", p->what, p->s, msg);
        one_line(p->why, p->why_len, line);
        p->failed = true;
    }
    return (struct val){ 0, false };
}

static void skip_ws(struct parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
        p->pos++;
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* What stands at pos, for "found ...": the character quoted, or "the end". */
static const char *found(const struct parser *p, char *buf, size_t len)
{
    unsigned char c = (unsigned char)p->s[p->pos];

    if (!c)
        return "the end";
    if (c < 0x20 || c > 0x7e)
        smem_fmt(buf, len, "byte 0x%02x", c);
    else
        smem_fmt(buf, len, "\"%c\"", c);
    return buf;
}

/* "syntax error at column k: expected X, found Y", at the current position. */
static struct val syntax(struct parser *p, const char *expected)
{
    char f[16];

    return fail(p, "syntax error at column %zu: expected %s, found %s", p->pos + 1, expected, found(p, f, sizeof(f)));
}

/* The known names, comma-separated, for an unknown variable's message. */
static void name_list(const struct parser *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < p->n; i++)
        smem_append(buf, len, ", ", "%s", p->names[i]);
    if (!buf[0])
        smem_fmt(buf, len, "none");
}

/* a op b at column col, checked: a result that is not a finite number is an error. */
static struct val finite(struct parser *p, double r, size_t col)
{
    if (!isfinite(r))
        return fail(p, "the value overflows at column %zu", col);
    return (struct val){ r, true };
}

/* The grammar, by recursive descent, one function a level:
 *   sum     = product { ("+" | "-") product }
 *   product = unary { ("*" | "/" | "%") unary }
 *   unary   = ("-" | "+") unary | primary
 *   primary = number | name | name "(" [ sum { "," sum } ] ")" | "(" sum ")" */
static struct val parse_sum(struct parser *p);

/* 12, 1.5, .5, 1e-3: digits, a fraction, an exponent (never hex, inf or nan, which strtod takes). */
static struct val parse_number(struct parser *p)
{
    size_t start = p->pos, col = p->pos + 1;
    char text[64];
    double v;

    while (is_digit(p->s[p->pos]))
        p->pos++;
    if (p->s[p->pos] == '.') {
        p->pos++;
        while (is_digit(p->s[p->pos]))
            p->pos++;
    }
    if (p->s[p->pos] == 'e' || p->s[p->pos] == 'E') {
        p->pos++;
        if (p->s[p->pos] == '+' || p->s[p->pos] == '-')
            p->pos++;
        if (!is_digit(p->s[p->pos]))
            return syntax(p, "the exponent's digits");
        while (is_digit(p->s[p->pos]))
            p->pos++;
    }
    if (p->pos - start >= sizeof(text))
        return fail(p, "the number at column %zu is %zu characters long; write it shorter (1e9)", col, p->pos - start);
    smem_fmt(text, sizeof(text), "%.*s", (int)(p->pos - start), p->s + start);
    v = strtod(text, NULL);
    if (!isfinite(v))
        return fail(p, "the number %s at column %zu is too large", text, col);
    return (struct val){ v, true };
}

/* name(args...): the call's arguments, counted even past what the function takes. */
static struct val parse_call(struct parser *p, const char *name, size_t name_len, size_t col)
{
    struct val a[MAX_CALL_ARGS] = { { 0, false } };
    int argc = 0, f = -1;
    bool known = true;
    double x, y, r;
    char n1[32], n2[32];

    for (size_t i = 0; i < SMEM_ARRAY_LEN(funcs); i++)
        if (strlen(funcs[i].name) == name_len && !strncmp(funcs[i].name, name, name_len))
            f = (int)i;
    if (f < 0)
        return fail(p, "unknown function \"%.*s\" at column %zu; functions: " FUNC_LIST, (int)name_len, name, col);
    if (++p->depth > MAX_DEPTH)
        return fail(p, "nested more than %d deep at column %zu; write it flatter", MAX_DEPTH, col);
    p->pos++;   /* the '(' */
    skip_ws(p);
    if (p->s[p->pos] != ')') {
        for (;;) {
            struct val v = parse_sum(p);

            if (p->failed)
                return v;
            if (argc < MAX_CALL_ARGS)
                a[argc] = v;
            argc++;
            known = known && v.known;
            skip_ws(p);
            if (p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->s[p->pos] != ')')
                return syntax(p, argc == 1 && funcs[f].argc == 1 ? "\")\"" : "\",\" or \")\"");
            break;
        }
    }
    p->pos++;   /* the ')' */
    p->depth--;
    if (argc != funcs[f].argc)
        return fail(p, "%s takes %d argument%s, not %d, at column %zu: %s", funcs[f].name, funcs[f].argc,
                    funcs[f].argc == 1 ? "" : "s", argc, col, funcs[f].usage);
    if (!known)
        return (struct val){ 0, false };
    x = a[0].v;
    y = argc > 1 ? a[1].v : 0;
    switch (f) {
    case 0: r = ceil(x); break;
    case 1: r = floor(x); break;
    case 2: r = fmin(x, y); break;
    case 3: r = fmax(x, y); break;
    case 4:
        if (!(y > 0)) {
            fmt_num(n1, sizeof(n1), y);
            return fail(p, "round_up(x, m) at column %zu needs m > 0, not %s", col, n1);
        }
        r = ceil(x / y) * y;
        break;
    case 5:
        if (!(x > 0)) {
            fmt_num(n1, sizeof(n1), x);
            return fail(p, "log2(%s) at column %zu is not defined: log2 needs x > 0", n1, col);
        }
        r = log2(x);
        break;
    default:
        r = pow(x, y);
        if (!isfinite(r)) {
            fmt_num(n1, sizeof(n1), x);
            fmt_num(n2, sizeof(n2), y);
            return fail(p, "pow(%s, %s) at column %zu is not a finite number", n1, n2, col);
        }
        break;
    }
    return finite(p, r, col);
}

/* A name: a call when "(" follows, else a variable, which must be one of the known names. */
static struct val parse_name(struct parser *p)
{
    size_t start = p->pos, col = p->pos + 1, len;
    const char *name = p->s + start;
    char known[MSG_LEN];

    while (is_ident(p->s[p->pos]))
        p->pos++;
    len = p->pos - start;
    skip_ws(p);
    if (p->s[p->pos] == '(')
        return parse_call(p, name, len, col);
    for (size_t i = 0; i < p->n; i++)
        if (strlen(p->names[i]) == len && !strncmp(p->names[i], name, len))
            return p->values ? (struct val){ p->values[i], true } : (struct val){ 0, false };
    for (size_t i = 0; i < SMEM_ARRAY_LEN(funcs); i++)
        if (strlen(funcs[i].name) == len && !strncmp(funcs[i].name, name, len))
            return fail(p, "%s at column %zu is a function: call it as %s", funcs[i].name, col, funcs[i].usage);
    name_list(p, known, sizeof(known));
    return fail(p, "unknown variable \"%.*s\" at column %zu; known variables: %s", (int)len, name, col, known);
}

/* A number, a name or a parenthesized sum. */
static struct val parse_primary(struct parser *p)
{
    struct val v;
    char c;

    skip_ws(p);
    c = p->s[p->pos];
    if (is_digit(c) || (c == '.' && is_digit(p->s[p->pos + 1])))
        return parse_number(p);
    if (is_ident_start(c))
        return parse_name(p);
    if (c != '(')
        return syntax(p, "a number, a variable, a function call or \"(\"");
    if (++p->depth > MAX_DEPTH)
        return fail(p, "nested more than %d deep at column %zu; write it flatter", MAX_DEPTH, p->pos + 1);
    p->pos++;
    v = parse_sum(p);
    p->depth--;
    if (p->failed)
        return v;
    skip_ws(p);
    if (p->s[p->pos] != ')')
        return syntax(p, "\")\"");
    p->pos++;
    return v;
}

/* Unary minus (and plus) bind tighter than * / %: -a * b is (-a) * b. */
static struct val parse_unary(struct parser *p)
{
    struct val v;
    char c;

    skip_ws(p);
    c = p->s[p->pos];
    if (c != '-' && c != '+')
        return parse_primary(p);
    if (++p->depth > MAX_DEPTH)
        return fail(p, "nested more than %d deep at column %zu; write it flatter", MAX_DEPTH, p->pos + 1);
    p->pos++;
    v = parse_unary(p);
    p->depth--;
    if (c == '-')
        v.v = -v.v;
    return v;
}

/* * / and % from left to right; / is real division, % is on integers (C's sign: the dividend's). */
static struct val parse_product(struct parser *p)
{
    struct val a = parse_unary(p);

    while (!p->failed) {
        struct val b;
        size_t col;
        char op, n1[32], n2[32];

        skip_ws(p);
        op = p->s[p->pos];
        if (op != '*' && op != '/' && op != '%')
            break;
        col = p->pos + 1;
        p->pos++;
        b = parse_unary(p);
        if (p->failed)
            break;
        if (op != '*' && b.known && b.v == 0)
            return fail(p, "division by zero at column %zu", col);
        if (!a.known || !b.known) {
            a = (struct val){ 0, false };
            continue;
        }
        if (op == '*') {
            a = finite(p, a.v * b.v, col);
        } else if (op == '/') {
            a = finite(p, a.v / b.v, col);
        } else {
            if (a.v != floor(a.v) || b.v != floor(b.v)) {
                fmt_num(n1, sizeof(n1), a.v);
                fmt_num(n2, sizeof(n2), b.v);
                return fail(p, "%% at column %zu is on integers, not %s %% %s: wrap its operands in ceil() or floor()",
                            col, n1, n2);
            }
            a = (struct val){ fmod(a.v, b.v), true };
        }
    }
    return a;
}

/* + and - from left to right. */
static struct val parse_sum(struct parser *p)
{
    struct val a = parse_product(p);

    while (!p->failed) {
        struct val b;
        size_t col;
        char op;

        skip_ws(p);
        op = p->s[p->pos];
        if (op != '+' && op != '-')
            break;
        col = p->pos + 1;
        p->pos++;
        b = parse_product(p);
        if (p->failed)
            break;
        if (!a.known || !b.known)
            a = (struct val){ 0, false };
        else
            a = finite(p, op == '+' ? a.v + b.v : a.v - b.v, col);
    }
    return a;
}

/* The whole of expr, or SMEM_EINVAL with why filled; values NULL: syntax and names only, and *known
 * says whether *out is the value all the same (an expression of constants). */
static int parse_all(const char *expr, const char *what, const char *const *names, const double *values, size_t n,
                     double *out, bool *known, char *why, size_t why_len)
{
    struct parser p = { .s = expr ? expr : "", .what = what ? what : "expression", .names = names,
                        .values = values, .n = n, .why = why, .why_len = why_len };
    struct val v;
    size_t i = 0;

    while (p.s[i] == ' ' || p.s[i] == '\t')
        i++;
    if (!p.s[i]) {
        fail(&p, "is empty; expected an expression such as \"rows\" or \"ceil(n / 256)\"");
        return SMEM_EINVAL;
    }
    v = parse_sum(&p);
    if (!p.failed) {
        skip_ws(&p);
        if (p.s[p.pos])
            syntax(&p, "an operator or the end");
    }
    if (p.failed)
        return SMEM_EINVAL;
    if (out)
        *out = v.v;
    if (known)
        *known = v.known;
    return SMEM_OK;
}

/* Evaluating with no variables still evaluates: values NULL would mean checking names only. */
static const double no_values[1];

int smem_user_eval(const char *expr, const struct smem_user_vars *v, double *out, char *why, size_t why_len)
{
    return parse_all(expr, NULL, v ? v->names : NULL, v && v->values ? v->values : no_values, v && v->values ? v->n : 0,
                     out, NULL, why, why_len);
}

int smem_user_eval_int(const char *expr, const char *what, const struct smem_user_vars *v, int64_t lo, int64_t hi,
                       int64_t *out, char *why, size_t why_len)
{
    const char *name = what ? what : "expression";
    char num[32], range[64];
    double r;
    int rc;

    rc = parse_all(expr, what, v ? v->names : NULL, v && v->values ? v->values : no_values, v && v->values ? v->n : 0,
                   &r, NULL, why, why_len);
    if (rc)
        return rc;
    fmt_num(num, sizeof(num), r);
    if ((double)hi >= EXACT_MAX)
        smem_fmt(range, sizeof(range), "an integer of at least %lld", (long long)lo);
    else
        smem_fmt(range, sizeof(range), "an integer %lld..%lld", (long long)lo, (long long)hi);
    if (r != floor(r)) {
        smem_fmt(why, why_len, "%s = %s is %s, not an integer: wrap it in ceil() or floor()", name, expr, num);
        return SMEM_EINVAL;
    }
    if (fabs(r) > EXACT_MAX) {
        smem_fmt(why, why_len, "%s = %s is %s, past 2^53 where doubles stop being exact; expected %s", name, expr, num,
                 range);
        return SMEM_EINVAL;
    }
    if (r < (double)lo || r > (double)hi) {
        smem_fmt(why, why_len, "%s = %s is %s; expected %s", name, expr, num, range);
        return SMEM_EINVAL;
    }
    *out = (int64_t)r;
    return SMEM_OK;
}

int smem_user_expr_check(const char *expr, const char *what, const char *const *names, size_t n, char *why,
                         size_t why_len)
{
    return parse_all(expr, what, names, NULL, n, NULL, NULL, why, why_len);
}

/* ---- the description ------------------------------------------------------------------------ */

/* One description being read: its file for messages, the names its expressions may use. */
struct ctx {
    const char *file;
    struct smem_user_desc *d;
    const char *names[SMEM_USER_MAX_AXES + SMEM_ARRAY_LEN(builtin_axes) + 16];
    size_t n_names;
    char *why;
    size_t why_len;
};

/* "<file>: message", SMEM_EINVAL. */
static int bad(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ctx *c, const char *fmt, ...)
{
    char msg[MSG_LEN], line[MSG_LEN + 4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    smem_fmt(line, sizeof(line), "%s: %s", c->file, msg);
    one_line(c->why, c->why_len, line);
    return SMEM_EINVAL;
}

/* A JSON value as a message shows it: "text", 12, true, an array, an object. */
static const char *shown(const cJSON *j, char *buf, size_t len)
{
    if (cJSON_IsString(j)) {
        size_t l = strlen(j->valuestring);

        smem_fmt(buf, len, "\"%.*s%s\"", l > 40 ? 37 : (int)l, j->valuestring, l > 40 ? "..." : "");
    } else if (cJSON_IsNumber(j)) {
        fmt_num(buf, len, j->valuedouble);
    } else if (cJSON_IsBool(j)) {
        smem_fmt(buf, len, "%s", cJSON_IsTrue(j) ? "true" : "false");
    } else if (cJSON_IsNull(j)) {
        smem_fmt(buf, len, "null");
    } else {
        smem_fmt(buf, len, "%s", cJSON_IsArray(j) ? "an array" : "an object");
    }
    return buf;
}

/* Every key of obj is one of known and appears once. where: "launch", "args[1]"; NULL: the top level. */
static int keys(struct ctx *c, const cJSON *obj, const char *where, const char *const *known, size_t n)
{
    char list[MSG_LEN] = "", in[128];

    if (where)
        smem_fmt(in, sizeof(in), "in %s", where);
    else
        smem_fmt(in, sizeof(in), "at the top level");
    for (const cJSON *k = obj->child; k; k = k->next) {
        bool ok = false;

        for (size_t i = 0; i < n; i++)
            ok = ok || !strcmp(k->string, known[i]);
        if (!ok) {
            for (size_t i = 0; i < n; i++)
                smem_append(list, sizeof(list), ", ", "%s", known[i]);
            return bad(c, "unknown key \"%s\" %s; known keys: %s", k->string, in, list);
        }
        for (const cJSON *e = obj->child; e != k; e = e->next)
            if (!strcmp(e->string, k->string))
                return bad(c, "key \"%s\" appears twice %s; give it once", k->string, in);
    }
    return SMEM_OK;
}

/* An object's member by its exact key, NULL when absent. */
static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* j must be an integer in [lo, hi]; hi of 2^53 reads "at least lo". */
static int get_int(struct ctx *c, const cJSON *j, const char *path, double lo, double hi, int64_t *out)
{
    char v[64], range[96];

    if (lo <= -EXACT_MAX && hi >= EXACT_MAX)
        smem_fmt(range, sizeof(range), "an integer within +-2^53");
    else if (hi >= EXACT_MAX)
        smem_fmt(range, sizeof(range), "an integer of at least %.0f", lo);
    else
        smem_fmt(range, sizeof(range), "an integer %.0f..%.0f", lo, hi);
    if (!cJSON_IsNumber(j))
        return bad(c, "%s is %s; expected %s", path, shown(j, v, sizeof(v)), range);
    if (j->valuedouble != floor(j->valuedouble))
        return bad(c, "%s %s is not an integer; expected %s", path, shown(j, v, sizeof(v)), range);
    if (j->valuedouble < lo || j->valuedouble > hi)
        return bad(c, "%s %s is out of range; expected %s", path, shown(j, v, sizeof(v)), range);
    *out = (int64_t)j->valuedouble;
    return SMEM_OK;
}

/* j must be a finite number >= 0 (a tolerance). */
static int get_tol(struct ctx *c, const cJSON *j, const char *path, double *out)
{
    char v[64];

    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || j->valuedouble < 0)
        return bad(c, "%s is %s; expected a number >= 0 (0: bit for bit)", path, shown(j, v, sizeof(v)));
    *out = j->valuedouble;
    return SMEM_OK;
}

/* j must be a string that fits len; example says what one looks like. */
static int get_str(struct ctx *c, const cJSON *j, const char *path, char *buf, size_t len, bool empty_ok,
                   const char *example)
{
    char v[64];

    if (!cJSON_IsString(j))
        return bad(c, "%s is %s; expected a string (%s)", path, shown(j, v, sizeof(v)), example);
    if (!empty_ok && !j->valuestring[0])
        return bad(c, "%s is empty; expected %s", path, example);
    if (strlen(j->valuestring) >= len)
        return bad(c, "%s is %zu characters long; at most %zu", path, strlen(j->valuestring), len - 1);
    smem_fmt(buf, len, "%s", j->valuestring);
    return SMEM_OK;
}

/* A JSON number as the text of an expression, short and exact: 1024, 0.5, 0.10000000000000001. */
static void number_text(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) <= EXACT_MAX) {
        smem_fmt(buf, len, "%.0f", v == 0 ? 0 : v);
        return;
    }
    smem_fmt(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        smem_fmt(buf, len, "%.17g", v);
}

/* An expression (a string, or a JSON number kept as its text) whose syntax and names are checked;
 * *known: it is a constant, *value. label gets what a message about its value starts with:
 * 'launch.grid 0' or 'launch.grid "2 - 2" = 0'. */
static int get_expr(struct ctx *c, const cJSON *j, const char *path, char *buf, const char *example, bool *known,
                    double *value, char *label, size_t label_len)
{
    char v[64], msg[MSG_LEN];

    *known = false;
    if (cJSON_IsNumber(j)) {
        if (!isfinite(j->valuedouble))
            return bad(c, "%s is %s; expected a finite number or an expression (%s)", path, shown(j, v, sizeof(v)),
                       example);
        number_text(j->valuedouble, buf, SMEM_USER_EXPR_LEN);
        *known = true;
        *value = j->valuedouble;
        smem_fmt(label, label_len, "%s %s", path, shown(j, v, sizeof(v)));
        return SMEM_OK;
    }
    if (!cJSON_IsString(j))
        return bad(c, "%s is %s; expected an expression (%s)", path, shown(j, v, sizeof(v)), example);
    if (strlen(j->valuestring) >= SMEM_USER_EXPR_LEN)
        return bad(c, "%s is %zu characters long; an expression is at most %d", path, strlen(j->valuestring),
                   SMEM_USER_EXPR_LEN - 1);
    if (parse_all(j->valuestring, path, c->names, NULL, c->n_names, value, known, msg, sizeof(msg)))
        return bad(c, "%s", msg);
    smem_fmt(buf, SMEM_USER_EXPR_LEN, "%s", j->valuestring);
    fmt_num(v, sizeof(v), *value);
    smem_fmt(label, label_len, "%s \"%s\" = %s", path, j->valuestring, v);
    return SMEM_OK;
}

/* A launch expression or a count: checked for its syntax and names, and when it is a constant, for
 * being an integer in [lo, hi] (hi of 2^53 reads "at least lo"). */
static int get_int_expr(struct ctx *c, const cJSON *j, const char *path, char *buf, const char *example, double lo,
                        double hi)
{
    char label[MSG_LEN], range[96];
    bool known;
    double v;
    int rc;

    if ((rc = get_expr(c, j, path, buf, example, &known, &v, label, sizeof(label))) || !known)
        return rc;
    if (hi >= EXACT_MAX)
        smem_fmt(range, sizeof(range), "an integer of at least %.0f", lo);
    else
        smem_fmt(range, sizeof(range), "an integer %.0f..%.0f", lo, hi);
    if (v != floor(v))
        return bad(c, "%s is not an integer: wrap it in ceil() or floor(); expected %s", label, range);
    if (v < lo || v > hi)
        return bad(c, "%s is out of range; expected %s", label, range);
    return SMEM_OK;
}

/* rel against the description's folder into out (4096 bytes); it must be a readable regular file. */
static int get_file(struct ctx *c, const cJSON *j, const char *path, char *out)
{
    char rel[4096];
    struct stat st;
    FILE *f;
    int rc;

    if ((rc = get_str(c, j, path, rel, sizeof(rel), false, "a file name such as \"x.bin\"")))
        return rc;
    if (rel[0] == '/' || !strcmp(c->d->dir, "."))
        smem_fmt(out, 4096, "%s", rel);
    else if (strlen(c->d->dir) + 1 + strlen(rel) >= 4096)
        return bad(c, "%s \"%s\" in %s is a path of more than 4095 characters", path, rel, c->d->dir);
    else
        smem_fmt(out, 4096, "%s/%s", c->d->dir, rel);
    if (stat(out, &st))
        return bad(c, "%s \"%s\" cannot be read (%s: %s); name a file of raw little-endian elements, relative to "
                      "the description's folder", path, rel, out, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return bad(c, "%s \"%s\" (%s) is not a regular file; name a file of raw little-endian elements", path, rel,
                   out);
    if (!(f = fopen(out, "rb")))
        return bad(c, "%s \"%s\" cannot be read (%s: %s)", path, rel, out, strerror(errno));
    fclose(f);
    return SMEM_OK;
}

/* What name already is, when it is a built-in axis, a device variable or a function; NULL: free. */
static const char *reserved(const char *name)
{
    for (size_t i = 0; i < SMEM_ARRAY_LEN(builtin_axes); i++)
        if (!strcmp(name, builtin_axes[i]))
            return "a built-in axis (carveout_pct, dyn_smem_bytes, block, cluster: set its base value in defaults)";
    for (size_t i = 0; smem_user_device_vars[i]; i++)
        if (!strcmp(name, smem_user_device_vars[i]))
            return "a device variable (sm_count, warp_size, smem_per_block, smem_per_block_optin, smem_per_sm, "
                   "l2_bytes, max_threads_per_block)";
    for (size_t i = 0; i < SMEM_ARRAY_LEN(funcs); i++)
        if (!strcmp(name, funcs[i].name))
            return "a function of the expressions (" FUNC_LIST ")";
    return NULL;
}

/* An axis name: [a-z_][a-z0-9_]*. */
static bool axis_name_ok(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z')))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || is_digit(*s)))
            return false;
    return true;
}

/* A parameter name: a C identifier. */
static bool arg_name_ok(const char *s)
{
    if (!is_ident_start(*s))
        return false;
    for (; *s; s++)
        if (!is_ident(*s))
            return false;
    return true;
}

/* One user axis: a free name and its distinct integer values, as a list or {"values": [...], "unit": ...}. */
static int parse_axis(struct ctx *c, const cJSON *j, struct smem_user_axis *ax)
{
    static const char *const known[] = { "values", "unit" };
    const char *kind;
    char path[128], vpath[160], v[64];
    const cJSON *list = j;
    size_t i = 0;
    int rc;

    smem_fmt(path, sizeof(path), "axes.%s", j->string);
    if (strlen(j->string) >= SMEM_USER_NAME_LEN)
        return bad(c, "axes: the name \"%.40s...\" is %zu characters long; at most %d", j->string, strlen(j->string),
                   SMEM_USER_NAME_LEN - 1);
    if (!axis_name_ok(j->string))
        return bad(c, "axes: \"%s\" is not an axis name; expected lowercase letters, digits and _ ([a-z_][a-z0-9_]*)",
                   j->string);
    if ((kind = reserved(j->string)))
        return bad(c, "axes: \"%s\" is %s; give the axis another name", j->string, kind);
    smem_fmt(ax->name, sizeof(ax->name), "%s", j->string);
    if (cJSON_IsObject(j)) {
        if ((rc = keys(c, j, path, known, SMEM_ARRAY_LEN(known))))
            return rc;
        smem_fmt(vpath, sizeof(vpath), "%s.unit", path);
        if (member(j, "unit") &&
            (rc = get_str(c, member(j, "unit"), vpath, ax->unit, sizeof(ax->unit), true, "\"elements\"")))
            return rc;
        if (!(list = member(j, "values")))
            return bad(c, "%s.values is missing; expected the axis's values ({\"values\": [1024, 4096]})", path);
        smem_append(path, sizeof(path), "", ".values");
    }
    if (!cJSON_IsArray(list))
        return bad(c, "%s is %s; expected a list of integers ([1024, 4096]) or {\"values\": [...], \"unit\": \"...\"}",
                   path, shown(list, v, sizeof(v)));
    if (!cJSON_GetArraySize(list))
        return bad(c, "%s is empty; an axis needs at least one value", path);
    if ((size_t)cJSON_GetArraySize(list) > SMEM_USER_MAX_VALUES)
        return bad(c, "%s has %d values; at most %d", path, cJSON_GetArraySize(list), SMEM_USER_MAX_VALUES);
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        smem_fmt(vpath, sizeof(vpath), "%s[%zu]", path, i);
        if ((rc = get_int(c, e, vpath, -EXACT_MAX, EXACT_MAX, &ax->values[i])))
            return rc;
        for (size_t k = 0; k < i; k++)
            if (ax->values[k] == ax->values[i])
                return bad(c, "%s %lld repeats %s[%zu]; give each value once", vpath, (long long)ax->values[i], path, k);
    }
    ax->n = i;
    return SMEM_OK;
}

/* The user axes, at most SMEM_USER_MAX_AXES, in the description's order. */
static int parse_axes(struct ctx *c, const cJSON *axes)
{
    struct smem_user_desc *d = c->d;
    char v[64];
    int rc;

    if (!axes)
        return SMEM_OK;
    if (!cJSON_IsObject(axes))
        return bad(c, "axes is %s; expected an object of name -> values ({\"rows\": [16384]})",
                   shown(axes, v, sizeof(v)));
    if ((size_t)cJSON_GetArraySize(axes) > SMEM_USER_MAX_AXES)
        return bad(c, "axes has %d axes; at most %d user axes (with the 4 built-ins, %d in all)",
                   cJSON_GetArraySize(axes), SMEM_USER_MAX_AXES, SMEM_USER_MAX_AXES + 4);
    for (const cJSON *a = axes->child; a; a = a->next) {
        for (size_t i = 0; i < d->n_axes; i++)
            if (!strcmp(d->axes[i].name, a->string))
                return bad(c, "key \"%s\" appears twice in axes; give it once", a->string);
        if ((rc = parse_axis(c, a, &d->axes[d->n_axes])))
            return rc;
        d->n_axes++;
    }
    return SMEM_OK;
}

/* The built-in axes' base values, each in the range every device has. */
static int parse_defaults(struct ctx *c, const cJSON *j)
{
    static const char *const known[] = { "block", "dyn_smem_bytes", "carveout_pct", "cluster" };
    struct smem_user_desc *d = c->d;
    char v[64];
    int rc;

    if (!j)
        return SMEM_OK;
    if (!cJSON_IsObject(j))
        return bad(c, "defaults is %s; expected an object ({\"block\": 256, \"dyn_smem_bytes\": 0, "
                      "\"carveout_pct\": -1, \"cluster\": 0})", shown(j, v, sizeof(v)));
    if ((rc = keys(c, j, "defaults", known, SMEM_ARRAY_LEN(known))))
        return rc;
    if (member(j, "block") && (rc = get_int(c, member(j, "block"), "defaults.block", 1, 1024, &d->def_block)))
        return rc;
    if (member(j, "dyn_smem_bytes") &&
        (rc = get_int(c, member(j, "dyn_smem_bytes"), "defaults.dyn_smem_bytes", 0, EXACT_MAX, &d->def_dyn_smem)))
        return rc;
    if (member(j, "carveout_pct") &&
        (rc = get_int(c, member(j, "carveout_pct"), "defaults.carveout_pct", -1, 100, &d->def_carveout)))
        return rc;
    if (member(j, "cluster") && (rc = get_int(c, member(j, "cluster"), "defaults.cluster", 0, 16, &d->def_cluster)))
        return rc;
    return SMEM_OK;
}

/* The launch's geometry: grid required, the others default to their built-in axes. */
static int parse_launch(struct ctx *c, const cJSON *j)
{
    static const char *const known[] = { "grid", "block", "cluster", "dynamic_smem" };
    struct smem_user_desc *d = c->d;
    char v[64];
    int rc;

    if (!j)
        return bad(c, "launch is missing; expected the launch's geometry ({\"grid\": \"rows\"}, and optionally "
                      "block, cluster, dynamic_smem)");
    if (!cJSON_IsObject(j))
        return bad(c, "launch is %s; expected an object ({\"grid\": \"rows\"})", shown(j, v, sizeof(v)));
    if ((rc = keys(c, j, "launch", known, SMEM_ARRAY_LEN(known))))
        return rc;
    if (!member(j, "grid"))
        return bad(c, "launch.grid is missing; expected the number of blocks as an expression (\"grid\": "
                      "\"ceil(n / block)\")");
    /* constants must be in the ranges every device has (a grid's x of at most 2^31 - 1 blocks) */
    if ((rc = get_int_expr(c, member(j, "grid"), "launch.grid", d->grid, "\"ceil(n / block)\"", 1, 2147483647.0)))
        return rc;
    if (member(j, "block") &&
        (rc = get_int_expr(c, member(j, "block"), "launch.block", d->block, "\"block\"", 1, 1024)))
        return rc;
    if (member(j, "cluster") &&
        (rc = get_int_expr(c, member(j, "cluster"), "launch.cluster", d->cluster, "\"cluster\"", 0, 16)))
        return rc;
    if (member(j, "dynamic_smem") &&
        (rc = get_int_expr(c, member(j, "dynamic_smem"), "launch.dynamic_smem", d->dynamic_smem,
                           "\"max(dyn_smem_bytes, block * 4)\"", 0, EXACT_MAX)))
        return rc;
    return SMEM_OK;
}

/* {"abs": a, "rel": r}, either optional: what is absent keeps its value in abs_out / rel_out. */
static int parse_tolerance(struct ctx *c, const cJSON *j, const char *path, double *abs_out, double *rel_out)
{
    static const char *const known[] = { "abs", "rel" };
    char p[128], v[64];
    int rc;

    if (!cJSON_IsObject(j))
        return bad(c, "%s is %s; expected {\"abs\": 1e-6, \"rel\": 1e-5}", path, shown(j, v, sizeof(v)));
    if ((rc = keys(c, j, path, known, SMEM_ARRAY_LEN(known))))
        return rc;
    smem_fmt(p, sizeof(p), "%s.abs", path);
    if (member(j, "abs") && (rc = get_tol(c, member(j, "abs"), p, abs_out)))
        return rc;
    smem_fmt(p, sizeof(p), "%s.rel", path);
    if (member(j, "rel") && (rc = get_tol(c, member(j, "rel"), p, rel_out)))
        return rc;
    return SMEM_OK;
}

/* "f32", "u8*": the type and whether it is a buffer; a C spelling gets its name in the message. */
static int parse_type(struct ctx *c, const cJSON *j, const char *path, struct smem_user_arg *a)
{
    char name[64], v[64], hint[96] = "";
    size_t len;
    int rc;

    if ((rc = get_str(c, j, path, name, sizeof(name), false, "one of " TYPE_LIST ", with * for a buffer")))
        return rc;
    len = strlen(name);
    a->pointer = len > 1 && name[len - 1] == '*';
    if (a->pointer)
        name[--len] = '\0';
    for (size_t i = 0; i < SMEM_ARRAY_LEN(types); i++)
        if (!strcmp(name, types[i].name)) {
            a->type = (enum smem_user_type)i;
            return SMEM_OK;
        }
    for (size_t i = 0; i < SMEM_ARRAY_LEN(type_aliases); i++)
        if (!strcmp(name, type_aliases[i].c))
            smem_fmt(hint, sizeof(hint), " (%s%s is %s%s)", name, a->pointer ? "*" : "",
                     types[type_aliases[i].t].name, a->pointer ? "*" : "");
    if (!strcmp(name, "half") || !strcmp(name, "__half") || !strcmp(name, "bf16") || !strcmp(name, "__nv_bfloat16"))
        smem_fmt(hint, sizeof(hint), " (16-bit floats: pass them as u16%s)", a->pointer ? "*" : "");
    return bad(c, "%s %s is not a type; types: " TYPE_LIST ", with * for a buffer%s", path, shown(j, v, sizeof(v)),
               hint);
}

/* x must fit a's type: an integer in range for the integer types, in range for the floats; upper_open:
 * x is an exclusive bound (a random fill's max). label starts the message: "args[0].value 300". */
static int check_typed(struct ctx *c, double x, const char *label, const struct smem_user_arg *a, bool upper_open)
{
    double hi = types[a->type].max + (upper_open && !types[a->type].is_float ? 1 : 0);
    char lo_s[32], hi_s[32];

    if (!types[a->type].is_float && x != floor(x))
        return bad(c, "%s is not an integer; %s holds integers", label, types[a->type].name);
    if (!isfinite(x) || x < types[a->type].min || x > hi) {
        fmt_num(lo_s, sizeof(lo_s), types[a->type].min);
        fmt_num(hi_s, sizeof(hi_s), hi);
        return bad(c, "%s is out of range for %s; expected %s..%s", label, types[a->type].name, lo_s, hi_s);
    }
    return SMEM_OK;
}

/* "path 1.50": the start of a message about a number of the description. */
static const char *num_label(char *buf, size_t len, const char *path, double x)
{
    char v[64];

    fmt_num(v, sizeof(v), x);
    smem_fmt(buf, len, "%s %s", path, v);
    return buf;
}

#define FILL_FORMS "\"zeros\", \"random\", {\"random\": {\"min\": a, \"max\": b}}, {\"constant\": v} or {\"file\": \"x.bin\"}"

/* One of the fills; a random range and a constant must fit the buffer's type. */
static int parse_fill(struct ctx *c, const cJSON *j, const char *path, struct smem_user_arg *a)
{
    static const char *const range_keys[] = { "min", "max" };
    char p[160], v[256];
    const cJSON *k;
    int rc;

    if (cJSON_IsString(j) && !strcmp(j->valuestring, "zeros")) {
        a->fill = SMEM_USER_FILL_ZEROS;
        return SMEM_OK;
    }
    if (cJSON_IsString(j) && !strcmp(j->valuestring, "random")) {
        a->fill = SMEM_USER_FILL_RANDOM;
        return SMEM_OK;
    }
    if (!cJSON_IsObject(j))
        return bad(c, "%s %s is not a fill; expected " FILL_FORMS, path, shown(j, v, sizeof(v)));
    if (cJSON_GetArraySize(j) != 1 ||
        (strcmp(j->child->string, "random") && strcmp(j->child->string, "constant") && strcmp(j->child->string, "file"))) {
        char list[256] = "";

        for (const cJSON *k = j->child; k; k = k->next)
            smem_append(list, sizeof(list), ", ", "\"%s\"", k->string);
        return bad(c, "%s is an object with %s %s; expected " FILL_FORMS, path,
                   cJSON_GetArraySize(j) == 1 ? "the key" : "the keys", list[0] ? list : "none");
    }
    k = j->child;
    smem_fmt(p, sizeof(p), "%s.%s", path, k->string);
    if (!strcmp(k->string, "file")) {
        a->fill = SMEM_USER_FILL_FILE;
        return get_file(c, k, p, a->file);
    }
    if (!strcmp(k->string, "constant")) {
        a->fill = SMEM_USER_FILL_CONSTANT;
        if (!cJSON_IsNumber(k))
            return bad(c, "%s is %s; expected a number ({\"constant\": 1.5})", p, shown(k, v, sizeof(v)));
        a->constant = k->valuedouble;
        return check_typed(c, a->constant, num_label(v, sizeof(v), p, a->constant), a, false);
    }
    a->fill = SMEM_USER_FILL_RANDOM;
    if (!cJSON_IsObject(k))
        return bad(c, "%s is %s; expected {\"min\": a, \"max\": b} (uniform in [a, b))", p, shown(k, v, sizeof(v)));
    if ((rc = keys(c, k, p, range_keys, SMEM_ARRAY_LEN(range_keys))))
        return rc;
    for (int i = 0; i < 2; i++) {
        const cJSON *e = member(k, range_keys[i]);
        char ep[192];

        if (!e)
            continue;
        smem_fmt(ep, sizeof(ep), "%s.%s", p, range_keys[i]);
        if (!cJSON_IsNumber(e))
            return bad(c, "%s is %s; expected a number", ep, shown(e, v, sizeof(v)));
        if ((rc = check_typed(c, e->valuedouble, num_label(v, sizeof(v), ep, e->valuedouble), a, i == 1)))
            return rc;
        *(i ? &a->hi : &a->lo) = e->valuedouble;
    }
    if (!(a->lo < a->hi)) {
        char lo_s[32], hi_s[32];

        fmt_num(lo_s, sizeof(lo_s), a->lo);
        fmt_num(hi_s, sizeof(hi_s), a->hi);
        return bad(c, "%s: min %s is not below max %s; the values are uniform in [min, max)", p, lo_s, hi_s);
    }
    return SMEM_OK;
}

/* args[i]: a scalar takes value alone; a buffer count, access, fill and tolerance. */
static int parse_arg(struct ctx *c, const cJSON *j, size_t i)
{
    static const char *const known[] = { "name", "type", "count", "access", "fill", "value", "tolerance" };
    struct smem_user_desc *d = c->d;
    struct smem_user_arg *a = &d->args[i];
    char path[32], p[64], v[64], what[96], label[MSG_LEN];
    const cJSON *e;
    bool constant;
    double x;
    int rc;

    smem_fmt(path, sizeof(path), "args[%zu]", i);
    if (!cJSON_IsObject(j))
        return bad(c, "%s is %s; expected an object ({\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\"})", path,
                   shown(j, v, sizeof(v)));
    if ((rc = keys(c, j, path, known, SMEM_ARRAY_LEN(known))))
        return rc;
    smem_fmt(p, sizeof(p), "%s.name", path);
    if (!(e = member(j, "name")))
        return bad(c, "%s is missing; expected the parameter's name (\"name\": \"x\")", p);
    if ((rc = get_str(c, e, p, a->name, sizeof(a->name), false, "the parameter's name, \"x\"")))
        return rc;
    if (!arg_name_ok(a->name))
        return bad(c, "%s \"%s\" is not a name; expected letters, digits and _ as in C", p, a->name);
    for (size_t k = 0; k < i; k++)
        if (!strcmp(d->args[k].name, a->name))
            return bad(c, "%s \"%s\" is also args[%zu]'s name; each parameter needs its own", p, a->name, k);
    smem_fmt(p, sizeof(p), "%s.type", path);
    if (!(e = member(j, "type")))
        return bad(c, "%s is missing; expected one of " TYPE_LIST ", with * for a buffer (\"type\": \"f32*\")", p);
    if ((rc = parse_type(c, e, p, a)))
        return rc;
    smem_fmt(what, sizeof(what), "%s (%s%s)", a->name, types[a->type].name, a->pointer ? "*" : "");
    a->tol_abs = d->tol_abs;
    a->tol_rel = d->tol_rel;
    if (!a->pointer) {
        static const char *const buffer_only[] = { "count", "access", "fill", "tolerance" };

        for (size_t k = 0; k < SMEM_ARRAY_LEN(buffer_only); k++)
            if (member(j, buffer_only[k]))
                return bad(c, "%s.%s: %s is a scalar; %s belongs to a buffer (\"type\": \"%s*\")", path,
                           buffer_only[k], what, buffer_only[k], types[a->type].name);
        smem_fmt(p, sizeof(p), "%s.value", path);
        if (!(e = member(j, "value")))
            return bad(c, "%s is missing; the scalar %s needs its value (\"value\": \"n\" or a number)", p, what);
        if ((rc = get_expr(c, e, p, a->value, "\"n\" or a number", &constant, &x, label, sizeof(label))))
            return rc;
        return constant ? check_typed(c, x, label, a, false) : SMEM_OK;
    }
    if (member(j, "value"))
        return bad(c, "%s.value: %s is a buffer; its elements come from fill, and value belongs to a scalar", path,
                   what);
    smem_fmt(p, sizeof(p), "%s.count", path);
    if (!(e = member(j, "count")))
        return bad(c, "%s is missing; the buffer %s needs its element count (\"count\": \"rows * cols\")", p, what);
    if ((rc = get_int_expr(c, e, p, a->count, "\"rows * cols\"", 0, EXACT_MAX)))
        return rc;
    smem_fmt(p, sizeof(p), "%s.access", path);
    a->access = SMEM_USER_IN;
    if ((e = member(j, "access"))) {
        if (cJSON_IsString(e) && !strcmp(e->valuestring, "out"))
            a->access = SMEM_USER_OUT;
        else if (cJSON_IsString(e) && !strcmp(e->valuestring, "inout"))
            a->access = SMEM_USER_INOUT;
        else if (!cJSON_IsString(e) || strcmp(e->valuestring, "in"))
            return bad(c, "%s %s is not an access; expected \"in\", \"out\" or \"inout\"", p, shown(e, v, sizeof(v)));
    }
    /* the default random range: floats in [-1, 1), integers in [0, 256) */
    a->lo = types[a->type].is_float ? -1.0 : 0.0;
    a->hi = types[a->type].is_float ? 1.0 : 256.0;
    if (a->type == SMEM_USER_I8)
        a->hi = 128.0;
    a->fill = SMEM_USER_FILL_ZEROS;
    smem_fmt(p, sizeof(p), "%s.fill", path);
    if ((e = member(j, "fill"))) {
        if (a->access == SMEM_USER_OUT)
            return bad(c, "%s: %s is an out buffer, poisoned (0xFF bytes) before each configuration, not filled; drop "
                          "fill or make it \"access\": \"inout\"", p, a->name);
        if ((rc = parse_fill(c, e, p, a)))
            return rc;
    }
    smem_fmt(p, sizeof(p), "%s.tolerance", path);
    if ((e = member(j, "tolerance"))) {
        if (a->access == SMEM_USER_IN)
            return bad(c, "%s: %s is an in buffer, never compared; a tolerance belongs to an out or inout buffer", p,
                       a->name);
        if (!types[a->type].is_float)
            return bad(c, "%s: %s holds %s integers, compared exactly; a tolerance belongs to an f32 or f64 buffer", p,
                       a->name, types[a->type].name);
        if ((rc = parse_tolerance(c, e, p, &a->tol_abs, &a->tol_rel)))
            return rc;
    }
    return SMEM_OK;
}

/* The kernel's parameters in order, at most SMEM_USER_MAX_ARGS. */
static int parse_args(struct ctx *c, const cJSON *j)
{
    char v[64];
    size_t i = 0;
    int rc;

    if (!j)
        return SMEM_OK;
    if (!cJSON_IsArray(j))
        return bad(c, "args is %s; expected the kernel's parameters in order ([{\"name\": \"x\", \"type\": \"f32*\", "
                      "...}])", shown(j, v, sizeof(v)));
    if ((size_t)cJSON_GetArraySize(j) > SMEM_USER_MAX_ARGS)
        return bad(c, "args has %d parameters; at most %d", cJSON_GetArraySize(j), SMEM_USER_MAX_ARGS);
    for (const cJSON *e = j->child; e; e = e->next, i++)
        if ((rc = parse_arg(c, e, i)))
            return rc;
    c->d->n_args = i;
    return SMEM_OK;
}

/* check.reference: {arg, file}; arg an out or inout buffer, file readable. */
static int parse_reference(struct ctx *c, const cJSON *j)
{
    static const char *const known[] = { "arg", "file" };
    struct smem_user_desc *d = c->d;
    char name[SMEM_USER_NAME_LEN], outs[MSG_LEN] = "", v[64];
    const struct smem_user_arg *a = NULL;
    int rc;

    if (!cJSON_IsObject(j))
        return bad(c, "check.reference is %s; expected {\"arg\": \"y\", \"file\": \"y_ref.bin\"}", shown(j, v, sizeof(v)));
    if ((rc = keys(c, j, "check.reference", known, SMEM_ARRAY_LEN(known))))
        return rc;
    for (size_t i = 0; i < d->n_args; i++)
        if (d->args[i].pointer && d->args[i].access != SMEM_USER_IN)
            smem_append(outs, sizeof(outs), ", ", "%s", d->args[i].name);
    if (!outs[0])
        smem_fmt(outs, sizeof(outs), "none: give one \"access\": \"out\"");
    if (!member(j, "arg"))
        return bad(c, "check.reference.arg is missing; expected the output to compare (%s)", outs);
    if ((rc = get_str(c, member(j, "arg"), "check.reference.arg", name, sizeof(name), false, "\"y\"")))
        return rc;
    for (size_t i = 0; i < d->n_args; i++)
        if (!strcmp(d->args[i].name, name)) {
            d->reference_arg = (int)i;
            a = &d->args[i];
        }
    if (!a)
        return bad(c, "check.reference.arg \"%s\" names no parameter; expected an out or inout buffer (%s)", name,
                   outs);
    if (!a->pointer || a->access == SMEM_USER_IN)
        return bad(c, "check.reference.arg \"%s\" is %s, not an output; expected an out or inout buffer (%s)", name,
                   a->pointer ? "an in buffer" : "a scalar", outs);
    if (!member(j, "file"))
        return bad(c, "check.reference.file is missing; expected the file of %s's expected elements "
                      "(\"file\": \"%s_ref.bin\")", name, name);
    return get_file(c, member(j, "file"), "check.reference.file", d->reference_file);
}

/* check.tolerance, before the args take it as their default; the reference comes after them. */
static int parse_check(struct ctx *c, const cJSON *j, bool reference)
{
    static const char *const known[] = { "tolerance", "reference" };
    char v[64];
    int rc;

    if (!j)
        return SMEM_OK;
    if (reference)
        return member(j, "reference") ? parse_reference(c, member(j, "reference")) : SMEM_OK;
    if (!cJSON_IsObject(j))
        return bad(c, "check is %s; expected {\"tolerance\": {\"abs\": 1e-6, \"rel\": 1e-5}, \"reference\": {...}}",
                   shown(j, v, sizeof(v)));
    if ((rc = keys(c, j, "check", known, SMEM_ARRAY_LEN(known))))
        return rc;
    if (member(j, "tolerance") &&
        (rc = parse_tolerance(c, member(j, "tolerance"), "check.tolerance", &c->d->tol_abs, &c->d->tol_rel)))
        return rc;
    return SMEM_OK;
}

/* The line and column of pos in text, and a few characters from there, for a JSON syntax error. cJSON
 * stops past a line's last token ({"grid": 1,} stops after the "}"): there, the token is shown. */
static int bad_json(struct ctx *c, const char *text, const char *pos)
{
    size_t line = 1, col = 1, n = 0;
    const char *rest;
    char near[32];

    if (!pos || pos < text)
        pos = text;
    for (rest = pos; *rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r'; rest++)
        ;
    if (*rest && (*pos == '\n' || *pos == '\r')) {
        while (pos > text && (pos[-1] == ' ' || pos[-1] == '\t' || pos[-1] == '\n' || pos[-1] == '\r'))
            pos--;
        if (pos > text)
            pos--;
    }
    for (const char *s = text; s < pos && *s; s++) {
        col++;
        if (*s == '\n') {
            line++;
            col = 1;
        }
    }
    while (pos[n] && pos[n] != '\n' && pos[n] != '\r' && n < 20)
        n++;
    if (!*rest)
        smem_fmt(near, sizeof(near), "the end of the file");
    else if (!n)
        smem_fmt(near, sizeof(near), "the end of the line");
    else
        smem_fmt(near, sizeof(near), "\"%.*s\"", (int)n, pos);
    return bad(c, "not valid JSON at line %zu, column %zu (near %s); check the commas, quotes and brackets there and "
                  "just before", line, col, near);
}

/* Parses text, which d takes (d->json): the checks in the order that gives names before they are used. */
static int parse_owned(char *text, const char *path, struct smem_user_desc *d, char *why, size_t why_len)
{
    static const char *const known[] = { "schema", "kernel", "summary", "axes", "launch", "defaults", "args", "check",
                                         "seed" };
    struct ctx c = { .file = path ? path : "(description)", .d = d, .why = why, .why_len = why_len };
    const char *end = NULL;
    cJSON *root;
    const cJSON *j;
    char v[64];
    int rc = SMEM_EINVAL;

    memset(d, 0, sizeof(*d));
    d->json = text;
    d->reference_arg = -1;
    d->seed = 1;
    d->def_block = 256;
    d->def_carveout = -1;
    smem_fmt(d->block, sizeof(d->block), "block");
    smem_fmt(d->cluster, sizeof(d->cluster), "cluster");
    smem_fmt(d->dynamic_smem, sizeof(d->dynamic_smem), "dyn_smem_bytes");
    if (strlen(c.file) >= sizeof(d->path)) {
        bad(&c, "the description's path is longer than %zu characters", sizeof(d->path) - 1);
        goto fail;
    }
    smem_fmt(d->path, sizeof(d->path), "%s", c.file);
    smem_path_dir(d->path, d->dir, sizeof(d->dir));
    if (!(root = cJSON_ParseWithOpts(text, &end, 1))) {
        bad_json(&c, text, end);
        goto fail;
    }
    if (!cJSON_IsObject(root)) {
        bad(&c, "the description is %s; expected an object ({\"kernel\": \"name\", \"launch\": {\"grid\": ...}, ...})",
            shown(root, v, sizeof(v)));
        goto fail_json;
    }
    if ((rc = keys(&c, root, NULL, known, SMEM_ARRAY_LEN(known))))
        goto fail_json;
    rc = SMEM_EINVAL;
    if ((j = member(root, "schema")) && (!cJSON_IsString(j) || strcmp(j->valuestring, SCHEMA_ID))) {
        bad(&c, "schema %s is not a launch description's; expected \"" SCHEMA_ID "\"", shown(j, v, sizeof(v)));
        goto fail_json;
    }
    if (!(j = member(root, "kernel"))) {
        bad(&c, "kernel is missing; expected the function's name in the file, extern \"C\" or mangled "
                "(\"kernel\": \"row_softmax\")");
        goto fail_json;
    }
    if ((rc = get_str(&c, j, "kernel", d->function, sizeof(d->function), false,
                      "the function's name in the file, \"row_softmax\"")))
        goto fail_json;
    if ((j = member(root, "summary")) &&
        (rc = get_str(&c, j, "summary", d->summary, sizeof(d->summary), true, "one line on what the kernel does")))
        goto fail_json;
    if ((rc = parse_axes(&c, member(root, "axes"))))
        goto fail_json;
    for (size_t i = 0; i < d->n_axes; i++)
        c.names[c.n_names++] = d->axes[i].name;
    for (size_t i = 0; i < SMEM_ARRAY_LEN(builtin_axes); i++)
        c.names[c.n_names++] = builtin_axes[i];
    for (size_t i = 0; smem_user_device_vars[i]; i++)
        c.names[c.n_names++] = smem_user_device_vars[i];
    if ((rc = parse_defaults(&c, member(root, "defaults"))) || (rc = parse_launch(&c, member(root, "launch"))) ||
        (rc = parse_check(&c, member(root, "check"), false)) || (rc = parse_args(&c, member(root, "args"))) ||
        (rc = parse_check(&c, member(root, "check"), true)))
        goto fail_json;
    if ((j = member(root, "seed"))) {
        int64_t seed;

        if ((rc = get_int(&c, j, "seed", 0, EXACT_MAX, &seed)))
            goto fail_json;
        d->seed = (uint64_t)seed;
    }
    cJSON_Delete(root);
    return SMEM_OK;

fail_json:
    cJSON_Delete(root);
fail:
    smem_user_desc_free(d);
    return rc ? rc : SMEM_EINVAL;
}

int smem_user_desc_parse(const char *text, const char *path, struct smem_user_desc *d, char *why, size_t why_len)
{
    char *copy = strdup(text ? text : "");

    if (!copy) {
        memset(d, 0, sizeof(*d));
        smem_fmt(why, why_len, "%s: cannot allocate a copy of the description", path ? path : "(description)");
        return SMEM_ENOMEM;
    }
    return parse_owned(copy, path, d, why, why_len);
}

int smem_user_desc_load(const char *path, struct smem_user_desc *d, char *why, size_t why_len)
{
    size_t len = 0, cap = 4096;
    char *text = NULL, *grown;
    FILE *f;

    struct stat st;
    int fd;

    memset(d, 0, sizeof(*d));
    /* without blocking: a FIFO or a terminal would wait for a writer forever; only a file is read */
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
        smem_fmt(why, why_len, "cannot open %s: %s; give the launch description's path", path, strerror(errno));
        return SMEM_EINVAL;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        smem_fmt(why, why_len, "%s is %s, not a launch description; give the path of its JSON file", path,
                 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file");
        close(fd);
        return SMEM_EINVAL;
    }
    if (!(f = fdopen(fd, "rb"))) {
        smem_fmt(why, why_len, "cannot open %s: %s; give the launch description's path", path, strerror(errno));
        close(fd);
        return SMEM_EINVAL;
    }
    for (;;) {
        if (!(grown = realloc(text, cap + 1))) {
            free(text);
            fclose(f);
            smem_fmt(why, why_len, "%s: cannot allocate %zu bytes to read it", path, cap + 1);
            return SMEM_ENOMEM;
        }
        text = grown;
        len += fread(text + len, 1, cap - len, f);
        if (len < cap || len > MAX_TEXT_BYTES)
            break;
        cap *= 2;
    }
    text[len] = '\0';
    if (ferror(f)) {
        smem_fmt(why, why_len, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    if (len > MAX_TEXT_BYTES) {
        smem_fmt(why, why_len, "%s is more than %u MiB; a launch description is a small JSON file: is it the right "
                               "file?", path, MAX_TEXT_BYTES >> 20);
        goto fail;
    }
    if (strlen(text) != len) {
        smem_fmt(why, why_len, "%s has a NUL byte at offset %zu; a launch description is JSON text", path, strlen(text));
        goto fail;
    }
    fclose(f);
    return parse_owned(text, path, d, why, why_len);

fail:
    fclose(f);
    free(text);
    return SMEM_EINVAL;
}

void smem_user_desc_free(struct smem_user_desc *d)
{
    if (!d)
        return;
    free(d->json);
    d->json = NULL;
}
