/* The launch description of a user's kernel (smembench --kernel FILE --launch desc.json): its
 * arguments with their fills, its grid, block, cluster and dynamic shared memory as expressions of
 * axes, and its check. Everything that can be checked without a device is checked when it is read,
 * so a typo fails in a millisecond with its JSON path, not after the GPU is set up. No CUDA here;
 * the format's JSON Schema is results/launch.schema.json. */
#ifndef SMEM_USER_DESC_H
#define SMEM_USER_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMEM_USER_MAX_ARGS 32
#define SMEM_USER_MAX_AXES 4          /* user axes; with the 4 built-ins = SMEM_MAX_AXES (8) */
#define SMEM_USER_MAX_VALUES 256
#define SMEM_USER_EXPR_LEN 256
#define SMEM_USER_NAME_LEN 64

/* The element types of arguments, scalar or (with "*") a buffer's elements. */
enum smem_user_type { SMEM_USER_I8, SMEM_USER_U8, SMEM_USER_I16, SMEM_USER_U16, SMEM_USER_I32, SMEM_USER_U32,
                      SMEM_USER_I64, SMEM_USER_U64, SMEM_USER_F32, SMEM_USER_F64 };
/* How an in or inout buffer is filled before the first configuration. */
enum smem_user_fill { SMEM_USER_FILL_ZEROS, SMEM_USER_FILL_RANDOM, SMEM_USER_FILL_CONSTANT, SMEM_USER_FILL_FILE };
/* What the kernel does with a buffer: out buffers are poisoned and compared, in buffers filled. */
enum smem_user_access { SMEM_USER_IN, SMEM_USER_OUT, SMEM_USER_INOUT };

/* One kernel parameter, in the kernel's order. */
struct smem_user_arg {
    char name[SMEM_USER_NAME_LEN];
    enum smem_user_type type;
    bool pointer;                     /* "f32*": a device buffer of count elements */
    char count[SMEM_USER_EXPR_LEN];   /* pointer: element count (expression) */
    char value[SMEM_USER_EXPR_LEN];   /* scalar: its value (expression; a JSON number is kept as text) */
    enum smem_user_access access;
    enum smem_user_fill fill;
    double lo, hi;                    /* random: [lo, hi) */
    double constant;
    char file[4096];                  /* fill from file: resolved against the description's folder */
    double tol_abs, tol_rel;          /* the check's tolerance for this output (description's default) */
};

/* One user axis and the values it takes. */
struct smem_user_axis {
    char name[SMEM_USER_NAME_LEN];
    char unit[16];                    /* "" when not given */
    int64_t values[SMEM_USER_MAX_VALUES];
    size_t n;
};

/* A checked launch description; release with smem_user_desc_free. */
struct smem_user_desc {
    char path[4096];                  /* the description file as given */
    char dir[4096];                   /* its folder, for relative file names */
    char function[256];
    char summary[256];
    struct smem_user_axis axes[SMEM_USER_MAX_AXES];
    size_t n_axes;
    char grid[SMEM_USER_EXPR_LEN], block[SMEM_USER_EXPR_LEN], cluster[SMEM_USER_EXPR_LEN],
         dynamic_smem[SMEM_USER_EXPR_LEN];
    int64_t def_block, def_dyn_smem, def_carveout, def_cluster;   /* the built-in axes' base values */
    struct smem_user_arg args[SMEM_USER_MAX_ARGS];
    size_t n_args;
    double tol_abs, tol_rel;
    int reference_arg;                /* index into args, -1: no reference */
    char reference_file[4096];        /* resolved */
    uint64_t seed;
    char *json;                       /* the description's text as read (malloc'd), for the result file */
};

/* Reads and checks path: every key known, every type, access, fill and expression valid (expressions
 * are checked for syntax and known variable names: the axes' names plus the device names listed
 * above). SMEM_EINVAL with one line in why ("softmax.json: args[1].type \"float*\" is not a type;
 * types: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64, with * for a buffer"); SMEM_ENOMEM. */
int smem_user_desc_load(const char *path, struct smem_user_desc *d, char *why, size_t why_len);
/* The same from text already read (the tests use it); path names the file in messages. */
int smem_user_desc_parse(const char *text, const char *path, struct smem_user_desc *d, char *why, size_t why_len);
/* Frees what d holds (its json); d may be NULL or already freed. */
void smem_user_desc_free(struct smem_user_desc *d);

/* The names an expression may use besides the axes (sm_count, warp_size, ...), NULL-terminated. */
extern const char *const smem_user_device_vars[];

/* Variables for evaluation: names[i] has value values[i]. */
struct smem_user_vars { const char *const *names; const double *values; size_t n; };

/* Evaluates expr; SMEM_EINVAL with one line in why naming the expression and what is wrong. */
int smem_user_eval(const char *expr, const struct smem_user_vars *v, double *out, char *why, size_t why_len);
/* The same, and the value must be an integer in [lo, hi] ("what" names it in the message: "grid"). */
int smem_user_eval_int(const char *expr, const char *what, const struct smem_user_vars *v, int64_t lo, int64_t hi,
                       int64_t *out, char *why, size_t why_len);
/* Syntax and names only (no values): for checking a description before a device is known. */
int smem_user_expr_check(const char *expr, const char *what, const char *const *names, size_t n, char *why,
                         size_t why_len);

/* Bytes of one element of t. */
size_t smem_user_type_size(enum smem_user_type t);
/* The type's name in the description: "f32". */
const char *smem_user_type_name(enum smem_user_type t);
/* f32 and f64: compared within the tolerance; the integer types are compared exactly. */
bool smem_user_type_is_float(enum smem_user_type t);

#endif
