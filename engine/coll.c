#include "coll.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

static const char *const kind_names[] = {"tatp.rows", "tatp.cols", "tp", "sp", "dp", "pp", "store"};

const char *coll_kind_name(int kind)
{
    return kind_names[kind];
}

static const char *const pass_names[NPASS] = {"ring",  "bidir", "rows",     "cols",     "inner",
                                              "outer", "shift", "store_in", "store_out"};

const char *coll_pass_name(int pass)
{
    return pass_names[pass];
}

/* How a kind's members sit in rank space: member m of a group is the base
 * rank plus m_lo * stride_lo + m_hi * stride_hi, m = m_lo + n_lo * m_hi.
 * Only CG_DP has two parts (SP inner, DP outer). */
typedef struct kind_layout {
    int n_lo, stride_lo, n_hi, stride_hi;
} kind_layout;

static kind_layout layout_of(const plan *p, int kind)
{
    int stride[NDIM], s = 1;
    for (int d = 0; d < NDIM; d++) {
        stride[d] = s;
        s *= p->size[d];
    }
    switch (kind) {
    case CG_TATP_ROW: return (kind_layout){p->tatp_w, 1, 1, 0};
    case CG_TATP_COL: return (kind_layout){p->tatp_h, p->tatp_w, 1, 0};
    case CG_TP: return (kind_layout){p->size[DIM_TP], stride[DIM_TP], 1, 0};
    case CG_SP: return (kind_layout){p->size[DIM_SP], stride[DIM_SP], 1, 0};
    case CG_PP: return (kind_layout){p->size[DIM_PP], stride[DIM_PP], 1, 0};
    default: return (kind_layout){p->size[DIM_SP], stride[DIM_SP], p->size[DIM_DP], stride[DIM_DP]};
    }
}

/* 1 when some group has members on two wafers. */
static int spans_wafers(const coll_groups *g, const wafer *wf)
{
    for (int grp = 0; grp < g->ngroups; grp++) {
        const int *unit = g->unit + (size_t)grp * (size_t)g->size;
        int x0 = wafer_x(wf, unit[0]) / wf->wafer_w, y0 = wafer_y(wf, unit[0]) / wf->wafer_h;
        for (int m = 1; m < g->size; m++)
            if (wafer_x(wf, unit[m]) / wf->wafer_w != x0 || wafer_y(wf, unit[m]) / wf->wafer_h != y0)
                return 1;
    }
    return 0;
}

/* Grid cell of member m: the tiles layout, else a near-square split of rank order. */
static void member_cell(const coll_groups *g, const plan *p, int m, int *cx, int *cy)
{
    if (!p->tiled || g->kind == CG_TATP_ROW || g->kind == CG_TATP_COL) {
        *cx = m % g->gw;
        *cy = m / g->gw;
        return;
    }
    static const int dim_of[] = {DIM_TATP, DIM_TATP, DIM_TP, DIM_SP, DIM_DP, DIM_PP};
    if (g->kind != CG_DP) {
        place_tile_pos(p, dim_of[g->kind], m, cx, cy);
        return;
    }
    int sx, sy, dx, dy, nsp = p->size[DIM_SP];
    place_tile_pos(p, DIM_SP, m % nsp, &sx, &sy);
    place_tile_pos(p, DIM_DP, m / nsp, &dx, &dy);
    *cx = sx + p->tw[DIM_SP] * dx;
    *cy = sy + p->th[DIM_SP] * dy;
}

static void grid_shape(coll_groups *g, const plan *p)
{
    int n = g->size;
    if (g->kind == CG_TATP_ROW || g->kind == CG_TATP_COL) {
        g->gw = g->kind == CG_TATP_ROW ? n : 1;
        g->gh = g->kind == CG_TATP_ROW ? 1 : n;
    } else if (p->tiled) {
        static const int dim_of[] = {0, 0, DIM_TP, DIM_SP, DIM_DP, DIM_PP};
        int d = dim_of[g->kind];
        g->gw = p->tw[d] * (g->kind == CG_DP ? p->tw[DIM_SP] : 1);
        g->gh = p->th[d] * (g->kind == CG_DP ? p->th[DIM_SP] : 1);
    } else {
        /* Rows of consecutive ranks, as wide as the squarest split allows. */
        int w = (int)ceil(sqrt((double)n));
        while (n % w)
            w++;
        g->gw = w;
        g->gh = n / w;
    }
}

/* Appends the cells of a line of n cells, folded: 0, 2, 4, ..., 5, 3, 1. */
static int fold_line(int n, int *order)
{
    int k = 0;
    for (int i = 0; i < n; i += 2)
        order[k++] = i;
    for (int i = (n % 2 ? n - 2 : n - 1); i >= 1; i -= 2)
        order[k++] = i;
    return k;
}

/* A Hamiltonian cycle on a w x h grid with h even and w >= 2, as cell indices. */
static void hamiltonian(int w, int h, int transpose, int gw, int *order)
{
    int k = 0;
#define CELL(x, y) (transpose ? (y) + (x) * gw : (x) + (y) * gw)
    for (int x = 0; x < w; x++)
        order[k++] = CELL(x, 0);
    for (int y = 1; y < h; y++)
        for (int i = 1; i < w; i++)
            order[k++] = CELL((y & 1) ? w - i : i, y);
    for (int y = h - 1; y >= 1; y--)
        order[k++] = CELL(0, y);
#undef CELL
}

/* Ring order of the grid cells (see the header). */
static void ring_cells(const coll_groups *g, int tiled, int *order)
{
    int w = g->gw, h = g->gh, n = w * h;
    if (!tiled || n <= 2) {
        for (int i = 0; i < n; i++)
            order[i] = i;
    } else if (w == 1 || h == 1) {
        fold_line(n, order);
    } else if (h % 2 == 0) {
        hamiltonian(w, h, 0, w, order);
    } else if (w % 2 == 0) {
        hamiltonian(h, w, 1, w, order);
    } else {
        for (int y = 0, k = 0; y < h; y++)
            for (int i = 0; i < w; i++)
                order[k++] = ((y & 1) ? w - 1 - i : i) + y * w;
    }
}

int coll_groups_size(int kind, const plan *p)
{
    kind_layout kl = layout_of(p, kind);
    return kl.n_lo * kl.n_hi;
}

/* The units of groups gathered by ranges of groups on the cores at once:
 * group k's base rank (member digit 0) is the (k mod stride_lo)-th of
 * block k / stride_lo, and member m is offset[m] ranks above it. Each part
 * also tells whether its groups all keep the first group's step. */
typedef struct gather_job {
    coll_groups *g;
    const plan *p;
    const int *offset;
    int block, stride_lo, step, nparts;
    int apart[PAR_MAX];
} gather_job;

static void gather_range(void *ctx, int part)
{
    gather_job *j = ctx;
    coll_groups *g = j->g;
    size_t k0, k1;
    par_range((size_t)g->ngroups, part, j->nparts, &k0, &k1);
    int apart = 0, n = g->size, step = j->step;
    for (size_t k = k0; k < k1; k++) {
        int r = (int)(k / (size_t)j->stride_lo) * j->block + (int)(k % (size_t)j->stride_lo);
        int *unit = g->unit + k * (size_t)n;
        unit[0] = j->p->unit[r + j->offset[0]];
        for (int m = 1; m < n; m++) {
            unit[m] = j->p->unit[r + j->offset[m]];
            apart |= unit[m] - unit[m - 1] != step;
        }
    }
    j->apart[part] = apart;
}

int coll_groups_build(coll_groups *g, int kind, const plan *p, const wafer *wf, wt_err *e)
{
    memset(g, 0, sizeof *g);
    kind_layout kl = layout_of(p, kind);
    g->kind = kind;
    g->size = kl.n_lo * kl.n_hi;
    g->ngroups = p->nranks / g->size;
    grid_shape(g, p);
    g->unit = malloc(sizeof *g->unit * (size_t)p->nranks);
    g->cell = malloc(sizeof *g->cell * (size_t)g->size);
    g->ring = malloc(sizeof *g->ring * (size_t)g->size);
    int *offset = malloc(sizeof *offset * (size_t)g->size);
    if (!g->unit || !g->cell || !g->ring || !offset) {
        free(offset);
        coll_groups_free(g);
        return wt_oom(e, "groups");
    }
    for (int m = 0; m < g->size; m++)
        offset[m] = (m % kl.n_lo) * kl.stride_lo + (m / kl.n_lo) * kl.stride_hi;
    /* Base ranks have member digit 0: the first stride_lo ranks of every
     * block of stride_lo * n_lo, and for DP x SP only below the DP stride. */
    int block = kl.stride_lo * kl.n_lo, limit = kl.n_hi > 1 ? kl.stride_hi : p->nranks;
    assert((limit + block - 1) / block * kl.stride_lo == g->ngroups);
    /* the step of line groups, found while the units are in the cache */
    gather_job j = {g, p, offset, block, kl.stride_lo, g->size > 1 ? p->unit[offset[1]] - p->unit[offset[0]] : 0,
                    par_parts((size_t)p->nranks), {0}};
    par_run(j.nparts, gather_range, &j);
    g->step = j.step;
    for (int k = 0; k < j.nparts; k++)
        g->step = j.apart[k] ? 0 : g->step;
    free(offset);
    if (wf->wafers_x * wf->wafers_y > 1)
        g->wafers = spans_wafers(g, wf);
    for (int m = 0; m < g->size; m++) {
        int cx, cy;
        member_cell(g, p, m, &cx, &cy);
        g->cell[cx + cy * g->gw] = m;
    }
    g->tiled = p->tiled && kind != CG_PP;
    ring_cells(g, g->tiled, g->ring);
    for (int i = 0; i < g->size; i++)
        g->ring[i] = g->cell[g->ring[i]];
    return WT_OK;
}

int coll_groups_step(const coll_groups *g)
{
    return g->step;
}

void coll_groups_free(coll_groups *g)
{
    free(g->unit);
    free(g->cell);
    free(g->ring);
    g->unit = g->cell = g->ring = NULL;
}

/* Links each sequence seq[0..n) into a cycle of next[] (offset base). */
static void close_cycle(int *next, int base, const int *seq, int n)
{
    for (int i = 0; i + 1 < n; i++)
        next[base + seq[i]] = seq[i + 1];
    if (n > 0)
        next[base + seq[n - 1]] = seq[0];
}

/* Subgroup of unit u: its aligned sub_w x sub_h window, or its wafer. */
static int subgroup_of(const wafer *wf, int u, int by_wafer, int sub_w, int sub_h)
{
    int x = wafer_x(wf, u), y = wafer_y(wf, u);
    int sw = by_wafer ? wf->wafer_w : sub_w, sh = by_wafer ? wf->wafer_h : sub_h;
    int per_row = wf->w / sw + (wf->w % sw != 0); /* rounded up; w + sw - 1 overflows for a huge sw */
    return (x / sw) + (y / sh) * per_row;
}

/* Splits each group, in ring order, into subgroups of equal size q and links
 * the inner rings (same subgroup) or outer rings (same rank within the
 * subgroup). Returns q, or -1 when a split is uneven or trivial. Linear in
 * the members: subgroup ids index a table (reset after each group) and the
 * members are bucketed by subgroup, keeping ring order inside each. */
static int hier_next(const coll_groups *g, int outer, const wafer *wf, int sub_w, int sub_h, int *next)
{
    int n = g->size, q = -1, rc = -1;
    int sw = g->wafers ? wf->wafer_w : sub_w, sh = g->wafers ? wf->wafer_h : sub_h;
    size_t nids = (size_t)(wf->w / sw + (wf->w % sw != 0)) * (size_t)(wf->h / sh + (wf->h % sh != 0));
    int *sub = malloc(sizeof *sub * (size_t)n), *seq = malloc(sizeof *seq * (size_t)n);
    int *first = malloc(sizeof *first * (size_t)n), *fill = malloc(sizeof *fill * (size_t)n);
    int *slot = malloc(sizeof *slot * nids);
    if (!sub || !seq || !first || !fill || !slot) {
        rc = -2; /* out of memory, never read as an uneven split */
        goto out;
    }
    for (size_t i = 0; i < nids; i++)
        slot[i] = -1;
    for (int grp = 0; grp < g->ngroups; grp++) {
        const int *unit = g->unit + (size_t)grp * n;
        /* Subgroups in order of first appearance along the ring. */
        int nsub = 0;
        for (int i = 0; i < n; i++) {
            int id = subgroup_of(wf, unit[g->ring[i]], g->wafers, sub_w, sub_h);
            if (slot[id] < 0) {
                slot[id] = nsub;
                first[nsub] = id;
                fill[nsub++] = 0;
            }
            sub[i] = slot[id];
        }
        for (int s = 0; s < nsub; s++)
            slot[first[s]] = -1;
        /* q 1 (every member a subgroup of its own) is as trivial as one
         * subgroup: the answer is -1 whatever the other groups hold, so
         * they are not walked (a wafer's DP groups of 4 are 200,000) */
        if (nsub < 2 || nsub == n || n % nsub || (q > 0 && n / nsub != q))
            goto out;
        q = n / nsub;
        /* bucket s holds seq[s q .. s q + q - 1], in ring order */
        for (int i = 0; i < n; i++) {
            if (fill[sub[i]] == q)
                goto out; /* a subgroup larger than the others */
            seq[sub[i] * q + fill[sub[i]]++] = g->ring[i];
        }
        int base = grp * n;
        if (!outer) {
            for (int s = 0; s < nsub; s++)
                close_cycle(next, base, seq + (size_t)s * q, q);
        } else {
            for (int j = 0; j < q; j++) {
                for (int s = 0; s < nsub; s++)
                    first[s] = seq[s * q + j]; /* rank j of each subgroup */
                close_cycle(next, base, first, nsub);
            }
        }
    }
    rc = q > 1 ? q : -1;
out:
    free(sub);
    free(seq);
    free(first);
    free(fill);
    free(slot);
    return rc;
}

int coll_pass_next(const coll_groups *g, int pass, const wafer *wf, int sub_w, int sub_h, int *next)
{
    int n = g->size;
    if (pass == PASS_INNER || pass == PASS_OUTER) {
        for (int grp = 0; grp < g->ngroups; grp++)
            for (int m = 0; m < n; m++)
                next[grp * n + m] = m;
        return hier_next(g, pass == PASS_OUTER, wf, sub_w, sub_h, next);
    }
    if (g->ngroups < 1)
        return 0;
    /* The other passes follow the members' grid alone, the same in every
     * group: the first group's next[] is copied to the others. */
    int *seq = malloc(sizeof *seq * 2 * (size_t)(n + g->gw + g->gh));
    if (!seq)
        return -2;
    for (int m = 0; m < n; m++)
        next[m] = m;
    switch (pass) {
    case PASS_RING:
    case PASS_BIDIR:
        close_cycle(next, 0, g->ring, n);
        break;
    case PASS_ROWS: /* rings along grid rows (or columns), folded on tiles */
    case PASS_COLS: {
        int rows = pass == PASS_ROWS, len = rows ? g->gw : g->gh, lines = rows ? g->gh : g->gw;
        int *folded = seq, *cells = seq + len;
        if (g->tiled)
            fold_line(len, folded);
        else
            for (int i = 0; i < len; i++)
                folded[i] = i;
        for (int l = 0; l < lines; l++) {
            for (int i = 0; i < len; i++)
                cells[i] = rows ? g->cell[folded[i] + l * g->gw] : g->cell[l + folded[i] * g->gw];
            close_cycle(next, 0, cells, len);
        }
        break;
    }
    case PASS_SHIFT:
        for (int m = 0; m + 1 < n; m++)
            next[m] = m + 1;
        break;
    default:
        break;
    }
    free(seq);
    for (int grp = 1; grp < g->ngroups; grp++)
        memcpy(next + (size_t)grp * (size_t)n, next, (size_t)n * sizeof *next);
    return 0;
}

int coll_pass_two_way(int pass)
{
    return pass == PASS_BIDIR || pass == PASS_SHIFT;
}
