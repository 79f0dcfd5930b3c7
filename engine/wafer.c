#include "wafer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wafer_init(wafer *wf, int wafer_w, int wafer_h, int wafers_x, int wafers_y, wt_err *e)
{
    memset(wf, 0, sizeof *wf);
    if (wafer_w <= 0 || wafer_h <= 0 || wafers_x <= 0 || wafers_y <= 0)
        return wt_fail(e, "mesh sizes must be positive");
    long long w = (long long)wafer_w * wafers_x, h = (long long)wafer_h * wafers_y;
    if (w > WAFER_MAX_SIDE || h > WAFER_MAX_SIDE || w * h > WAFER_MAX_UNITS)
        return wt_fail(e, "mesh of %lld x %lld units is larger than wafertop handles (64 Mi units)", w, h);
    wf->wafer_w = wafer_w;
    wf->wafer_h = wafer_h;
    wf->wafers_x = wafers_x;
    wf->wafers_y = wafers_y;
    wf->w = (int)w;
    wf->h = (int)h;
    /* Defaults: a Dojo-D1-class die on a 2 TB/s mesh (docs/MODEL.md). */
    strcpy(wf->name, "unnamed");
    wf->peak_flops = 362e12;
    wf->efficiency = 0.8;
    wf->sram_bytes = 440e6;
    wf->link_bw = 2e12;
    wf->link_lat = 50e-9;
    wf->link_overhead = 1e-6;
    wf->chunk_overhead = 100e-9;
    wf->iw_bw = wf->link_bw * (wafer_w > wafer_h ? wafer_w : wafer_h);
    flit_cfg_defaults(&wf->router);
    wf->flit_bytes = WAFER_FLIT_BYTES;
    calib_default(&wf->calib);
    wf->iw_lat = wf->link_lat;
    wf->unit_dead = calloc(wafer_nunits(wf), 1);
    wf->link_dead = calloc(wafer_nlinks(wf), 1);
    if (!wf->unit_dead || !wf->link_dead) {
        wafer_free(wf);
        return wt_oom(e, "wafer");
    }
    return WT_OK;
}

void wafer_free(wafer *wf)
{
    free(wf->unit_dead);
    free(wf->link_dead);
    wf->unit_dead = wf->link_dead = NULL;
}

/* A copy of n flags: zeroed memory whose pages stay untouched where src
 * has no flag set (a healthy wafer's copies, a session's three, then cost
 * a read of src); NULL out of memory. */
static unsigned char *flags_copy(const unsigned char *src, size_t n)
{
    enum { BLOCK = 4096 };
    static const unsigned char zero[BLOCK];
    unsigned char *dst = calloc(n ? n : 1, 1);
    for (size_t at = 0; dst && at < n; at += BLOCK) {
        size_t len = n - at < BLOCK ? n - at : BLOCK;
        if (memcmp(src + at, zero, len))
            memcpy(dst + at, src + at, len);
    }
    return dst;
}

int wafer_copy(wafer *dst, const wafer *src, wt_err *e)
{
    *dst = *src;
    dst->unit_dead = flags_copy(src->unit_dead, wafer_nunits(src));
    dst->link_dead = flags_copy(src->link_dead, wafer_nlinks(src));
    if (!dst->unit_dead || !dst->link_dead) {
        wafer_free(dst);
        return wt_oom(e, "wafer copy");
    }
    return WT_OK;
}

int wafer_dir_opposite(int dir)
{
    return dir ^ 1;
}

char wafer_dir_char(int dir)
{
    return "EWNS"[dir & 3];
}

char *wafer_link_format(const wafer *wf, long l, char *buf, size_t n)
{
    if (l < 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    int u = (int)(l / WAFER_NDIR);
    snprintf(buf, n, "%d,%d,%c", wafer_x(wf, u), wafer_y(wf, u), wafer_dir_char((int)(l % WAFER_NDIR)));
    return buf;
}

int wafer_dir_parse(char c)
{
    switch (c) {
    case 'E': case 'e': return WAFER_E;
    case 'W': case 'w': return WAFER_W;
    case 'N': case 'n': return WAFER_N;
    case 'S': case 's': return WAFER_S;
    default: return -1;
    }
}

/* A whole number of at most 9 digits (a '-' allowed) after blanks. */
static int scan_int(const char **p, int *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    int neg = *s == '-', v = 0, nd = 0;
    for (s += neg; *s >= '0' && *s <= '9'; s++, nd++) {
        if (nd == 9)
            return 0;
        v = v * 10 + (*s - '0');
    }
    while (*s == ' ' || *s == '\t')
        s++;
    *out = neg ? -v : v;
    *p = s;
    return nd > 0;
}

int wafer_parse_fault(const char *s, int *x, int *y, int *dir, char *bad)
{
    *dir = -1;
    if (!scan_int(&s, x) || *s++ != ',' || !scan_int(&s, y))
        return -1;
    if (!*s)
        return 0;
    if (*s++ != ',')
        return -1;
    while (*s == ' ' || *s == '\t')
        s++;
    char c = *s;
    if (!c)
        return -1;
    for (s++; *s == ' ' || *s == '\t'; s++)
        ;
    if (*s)
        return -1;
    *dir = wafer_dir_parse(c);
    if (*dir < 0) {
        *bad = c;
        return -2;
    }
    return 0;
}

/* The live unit nearest to (x, y) on the edge of direction d, walking along
 * the edge from the unit facing (x, y); *along gets how far it walked, -1
 * when the whole edge is dead. */
static int live_on_edge(const wafer *wf, int d, int x, int y, int *along)
{
    int on_ns = d == WAFER_N || d == WAFER_S; /* the edge runs along x */
    int ex = d == WAFER_E ? wf->w - 1 : d == WAFER_W ? 0 : x;
    int ey = d == WAFER_N ? 0 : d == WAFER_S ? wf->h - 1 : y;
    int pos = on_ns ? ex : ey, len = on_ns ? wf->w : wf->h;
    for (int k = 0; k < len; k++)
        for (int sign = 1; sign >= -1; sign -= 2) {
            int p = pos + sign * k;
            if (p < 0 || p >= len)
                continue;
            int v = on_ns ? wafer_unit(wf, p, ey) : wafer_unit(wf, ex, p);
            if (!wf->unit_dead[v]) {
                *along = k;
                return v;
            }
        }
    return -1;
}

int wafer_store_port(const wafer *wf, int u)
{
    int x = wafer_x(wf, u), y = wafer_y(wf, u), best = -1, best_d = 0;
    const int dist[WAFER_NDIR] = {wf->w - 1 - x, x, y, wf->h - 1 - y}; /* to each edge */
    for (int d = 0; d < WAFER_NDIR; d++) {
        int along = 0, port = (wf->store_ports >> d & 1u) ? live_on_edge(wf, d, x, y, &along) : -1;
        if (port >= 0 && (best < 0 || dist[d] + along < best_d)) {
            best = port;
            best_d = dist[d] + along;
        }
    }
    return best;
}

int wafer_live_units(const wafer *wf)
{
    return (int)wafer_nunits(wf) - wf->dead_units;
}

double wafer_unit_capacity(const wafer *wf)
{
    return wf->sram_bytes + wf->dram_bytes;
}

int wafer_fail_unit(wafer *wf, int x, int y, wt_err *e)
{
    if (x < 0 || y < 0 || x >= wf->w || y >= wf->h)
        return wt_fail(e, "unit %d,%d is outside the %dx%d mesh", x, y, wf->w, wf->h);
    unsigned char *dead = &wf->unit_dead[wafer_unit(wf, x, y)];
    wf->dead_units += !*dead;
    *dead = 1;
    return WT_OK;
}

int wafer_fail_link(wafer *wf, int x, int y, int dir, wt_err *e)
{
    if (x < 0 || y < 0 || x >= wf->w || y >= wf->h)
        return wt_fail(e, "link %d,%d,%c starts outside the %dx%d mesh", x, y, wafer_dir_char(dir),
                       wf->w, wf->h);
    int u = wafer_unit(wf, x, y);
    int v = wafer_neighbor(wf, u, dir);
    if (v < 0)
        return wt_fail(e, "link %d,%d,%c leaves the %dx%d mesh", x, y, wafer_dir_char(dir), wf->w, wf->h);
    unsigned char *dead = &wf->link_dead[(size_t)u * WAFER_NDIR + (size_t)dir];
    wf->dead_links += !*dead;
    *dead = 1;
    wf->link_dead[(size_t)v * WAFER_NDIR + (size_t)wafer_dir_opposite(dir)] = 1;
    return WT_OK;
}
