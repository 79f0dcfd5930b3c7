/*
 * model_file.c - model_load: a preset name or a YAML model file.
 *
 *   name: tiny          # optional, default: the file name
 *   layers: 4
 *   hidden: 256
 *   heads: 8
 *   kv_heads: 8         # optional, default heads
 *   ffn: 1024           # optional, default 4 * hidden
 *   mlp: gelu           # gelu | swiglu, optional, default gelu
 *   vocab: 1000
 *   seq: 128
 *   batch: 16
 *   microbatch: 1       # optional, default 1
 *   tied_embeddings: true   # optional, default true
 */
#include <string.h>

#include "model.h"
#include "ydoc.h"

#define INT_FIELD(field, lo)                                                        \
    static int on_##field(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)            \
    {                                                                               \
        long x;                                                                     \
        int rc = ydoc_int(d, v, lo, 1L << 30, &x, e);                               \
        if (rc == WT_OK)                                                            \
            ((model *)ctx)->field = (int)x;                                         \
        return rc;                                                                  \
    }
INT_FIELD(layers, 1)
INT_FIELD(hidden, 1)
INT_FIELD(heads, 1)
INT_FIELD(kv_heads, 1)
INT_FIELD(ffn, 1)
INT_FIELD(vocab, 1)
INT_FIELD(seq, 1)
INT_FIELD(batch, 1)
INT_FIELD(microbatch, 1)
#undef INT_FIELD

static int on_name(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc != WT_OK)
        return rc;
    if (!*s || strlen(s) >= sizeof ((model *)ctx)->name)
        return ydoc_fail(d, v, e, "name must have 1 to %zu characters", sizeof ((model *)ctx)->name - 1);
    strcpy(((model *)ctx)->name, s);
    return WT_OK;
}

static int on_mlp(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc != WT_OK)
        return rc;
    if (strcmp(s, "gelu") == 0)
        ((model *)ctx)->mlp = MODEL_GELU;
    else if (strcmp(s, "swiglu") == 0)
        ((model *)ctx)->mlp = MODEL_SWIGLU;
    else
        return ydoc_fail(d, v, e, "mlp must be gelu or swiglu, not '%s'", s);
    return WT_OK;
}

static int on_tied(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc != WT_OK)
        return rc;
    if (strcmp(s, "true") == 0)
        ((model *)ctx)->tied_embeddings = 1;
    else if (strcmp(s, "false") == 0)
        ((model *)ctx)->tied_embeddings = 0;
    else
        return ydoc_fail(d, v, e, "tied_embeddings must be true or false, not '%s'", s);
    return WT_OK;
}

static const ydoc_key model_keys[] = {
    {"name", on_name, 0},         {"layers", on_layers, 1},   {"hidden", on_hidden, 1},
    {"heads", on_heads, 1},       {"kv_heads", on_kv_heads, 0}, {"ffn", on_ffn, 0},
    {"mlp", on_mlp, 0},           {"vocab", on_vocab, 1},     {"seq", on_seq, 1},
    {"batch", on_batch, 1},       {"microbatch", on_microbatch, 0},
    {"tied_embeddings", on_tied, 0}, {NULL, NULL, 0},
};

/* The file name without directories and extension, as the default name.
 * Only the last extension goes: "gpt3-6.7b.yaml" is "gpt3-6.7b". */
static void stem_of(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len >= n)
        len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

int model_load(const char *name_or_path, model *out, wt_err *e)
{
    if (model_preset(name_or_path, out) == 0)
        return WT_OK;
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".yaml") && !strstr(name_or_path, ".yml"))
        return wt_fail(e, "unknown model '%s': expected a preset (gpt3-6.7b, gpt3-13b, llama2-70b, "
                          "gpt3-175b, gopher-280b, or 6b 13b 70b 175b 280b) or a YAML file",
                       name_or_path);
    ydoc d;
    int rc = ydoc_load(&d, name_or_path, e);
    if (rc != WT_OK)
        return rc;
    model m = {.mlp = MODEL_GELU, .tied_embeddings = 1, .microbatch = 1};
    stem_of(name_or_path, m.name, sizeof m.name);
    rc = ydoc_map(&d, ydoc_root(&d), model_keys, &m, e);
    if (rc == WT_OK) {
        if (!m.kv_heads)
            m.kv_heads = m.heads;
        /* Keep the default within the range an explicit ffn may take (and
         * 4 * hidden from overflowing an int). */
        if (!m.ffn && m.hidden > (1 << 30) / 4)
            rc = ydoc_fail(&d, ydoc_root(&d), e,
                           "hidden %d is too large for the default ffn of 4 x hidden; give ffn", m.hidden);
        else if (!m.ffn)
            m.ffn = 4 * m.hidden;
    }
    if (rc == WT_OK) {
        wt_err why;
        if (model_check(&m, &why) != WT_OK)
            rc = ydoc_fail(&d, ydoc_root(&d), e, "%s", why.msg);
    }
    ydoc_free(&d);
    if (rc == WT_OK)
        *out = m;
    return rc;
}
