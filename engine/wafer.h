/*
 * wafer.h - the hardware: a global 2D mesh of units joined by directed links.
 *
 * Units are indices u = y * w + x over the global mesh (all wafers together);
 * x grows east, y grows south, as on the screen. Every unit owns four directed
 * link slots, index u * 4 + dir, for the link leaving it towards E, W, N
 * (y - 1) or S (y + 1). Slots that leave the mesh exist in the arrays but are
 * never usable. A link that crosses a wafer edge is an inter-wafer link: it
 * gets an even share of the edge's bandwidth and the crossing latency.
 *
 * All quantities are SI: bytes, seconds, FLOP/s, bytes/s.
 */
#ifndef WT_WAFER_H
#define WT_WAFER_H

#include <stddef.h>

#include "calib.h"
#include "err.h"
#include "flit.h"

enum wafer_dir { WAFER_E = 0, WAFER_W = 1, WAFER_N = 2, WAFER_S = 3 };
#define WAFER_NDIR 4

/* The largest mesh: units per side of the whole mesh (and of a wafer, and
 * wafers per side), and units in all (64 Mi, 256 Mi link slots, so a link
 * slot fits an int). */
#define WAFER_MAX_SIDE 65536
#define WAFER_MAX_UNITS (1L << 26)

typedef struct wafer {
    char name[64];
    int w, h;               /* global mesh in units */
    int wafer_w, wafer_h;   /* units per wafer */
    int wafers_x, wafers_y; /* grid of wafers */

    double peak_flops;      /* per unit, FLOP/s (bf16) */
    double efficiency;      /* fraction of peak a GEMM reaches, (0, 1] */
    double sram_bytes;      /* per unit */
    double dram_bytes;      /* per unit, 0 = none */
    double dram_bw;         /* bytes/s per unit, 0 = none */

    double link_bw;         /* on-wafer link, bytes/s per direction */
    double link_lat;        /* on-wafer hop latency, s */
    double link_overhead;   /* fixed cost of one collective step, s */
    double chunk_overhead;  /* fixed cost of one streamed chunk, s */
    double iw_bw;           /* per wafer edge and direction, bytes/s */
    double iw_lat;          /* per wafer-edge crossing, s */

    /* The off-wafer parameter store (weight streaming, docs/MODEL.md
     * "Weight streaming"); store_ports == 0: none. */
    double store_bytes;     /* capacity, bytes */
    double store_bw_in;     /* store -> wafer, bytes/s over all its ports */
    double store_bw_out;    /* wafer -> store, bytes/s */
    double store_lat;       /* one transfer's latency, s */
    unsigned store_ports;   /* bit WAFER_E/W/N/S: the mesh edges its I/O enters along */

    /* The routers the flit level runs (docs/MODEL.md, "The flit level"):
     * BookSim2's mesh defaults unless the layout's router: section says
     * otherwise; a link moves one flit of flit_bytes a cycle. */
    flit_cfg router;
    int flit_bytes;
    /* The flow model's factors per pattern class, from the calibration file
     * beside the layout (calib.h); all 1 without one. */
    calib calib;

    /* The strategy the layout recommends, as strategy_spec reads it
     * ("DP4,TATP16;exec=stream;..."), "" = none. */
    char strategy[256];
    int strategy_microbatch; /* the micro-batch it recommends, 0 = the model's */

    unsigned char *unit_dead; /* w * h flags, owned; set them with wafer_fail_unit */
    int dead_units;           /* how many are set */
    unsigned char *link_dead; /* w * h * 4 flags, owned; a failed link is dead both ways */
    int dead_links;           /* failed links, each counted once (set them with wafer_fail_link) */
} wafer;

/* A flit's bytes unless a layout says otherwise: 128-bit flits, common in
 * on-chip networks. */
#define WAFER_FLIT_BYTES 16

/* Allocates a healthy mesh of wafers_x x wafers_y wafers of wafer_w x wafer_h
 * units with the documented default hardware (see docs/MODEL.md). A mesh
 * beyond WAFER_MAX_SIDE or WAFER_MAX_UNITS is WT_EINPUT. */
int wafer_init(wafer *wf, int wafer_w, int wafer_h, int wafers_x, int wafers_y, wt_err *e);
void wafer_free(wafer *wf);
/* Deep copy; dst must not be initialised. */
int wafer_copy(wafer *dst, const wafer *src, wt_err *e);

static inline int wafer_unit(const wafer *wf, int x, int y) { return y * wf->w + x; }
static inline int wafer_x(const wafer *wf, int u) { return u % wf->w; }
static inline int wafer_y(const wafer *wf, int u) { return u / wf->w; }
static inline size_t wafer_nunits(const wafer *wf) { return (size_t)wf->w * (size_t)wf->h; }
static inline size_t wafer_nlinks(const wafer *wf) { return wafer_nunits(wf) * WAFER_NDIR; }

/* The unit the link (u, dir) leads to, or -1 when it leaves the mesh. */
static inline int wafer_neighbor(const wafer *wf, int u, int dir)
{
    int x = u % wf->w, y = u / wf->w;
    switch (dir) {
    case WAFER_E: return x + 1 < wf->w ? u + 1 : -1;
    case WAFER_W: return x > 0 ? u - 1 : -1;
    case WAFER_N: return y > 0 ? u - wf->w : -1;
    case WAFER_S: return y + 1 < wf->h ? u + wf->w : -1;
    default: return -1;
    }
}
/* The direction that undoes dir (E <-> W, N <-> S). */
int wafer_dir_opposite(int dir);
/* 'E', 'W', 'N' or 'S'; and back (-1 for anything else, case-insensitive). */
char wafer_dir_char(int dir);
/* "x,y,DIR" of link slot l into buf (as faults and --fail write it); "-"
 * for l < 0. Returns buf. */
char *wafer_link_format(const wafer *wf, long l, char *buf, size_t n);
int wafer_dir_parse(char c);

/* A fault as text: "x,y" (a unit, *dir = -1) or "x,y,D" (its link towards
 * D), blanks allowed around each part. Returns 0, -1 when the text is
 * neither form, or -2 when D is not a direction (*bad holds it). The
 * coordinates are not checked against a mesh. */
int wafer_parse_fault(const char *s, int *x, int *y, int *dir, char *bad);

/* 1 when no unit and no link of the mesh has failed: every link between
 * two units is usable, and no flag needs reading. */
static inline int wafer_healthy(const wafer *wf)
{
    return !wf->dead_units && !wf->dead_links;
}

/* 1 when the link exists, is not failed and both of its ends are alive. */
static inline int wafer_link_usable(const wafer *wf, int u, int dir)
{
    int v = wafer_neighbor(wf, u, dir);
    if (wafer_healthy(wf))
        return v >= 0;
    return v >= 0 && !wf->link_dead[(size_t)u * WAFER_NDIR + (size_t)dir] && !wf->unit_dead[u] &&
           !wf->unit_dead[v];
}

/* Bit dir set for each usable link leaving unit (x, y): the same answer as
 * wafer_link_usable for the four directions, without divisions. */
static inline unsigned wafer_usable_mask(const wafer *wf, int x, int y)
{
    if (wafer_healthy(wf)) /* its edges alone */
        return (x + 1 < wf->w) << WAFER_E | (x > 0) << WAFER_W | (y > 0) << WAFER_N | (y + 1 < wf->h) << WAFER_S;
    int u = y * wf->w + x;
    if (wf->unit_dead[u])
        return 0;
    const unsigned char *dead = wf->link_dead + (size_t)u * WAFER_NDIR;
    unsigned m = 0;
    if (x + 1 < wf->w && !dead[WAFER_E] && !wf->unit_dead[u + 1])
        m |= 1u << WAFER_E;
    if (x > 0 && !dead[WAFER_W] && !wf->unit_dead[u - 1])
        m |= 1u << WAFER_W;
    if (y > 0 && !dead[WAFER_N] && !wf->unit_dead[u - wf->w])
        m |= 1u << WAFER_N;
    if (y + 1 < wf->h && !dead[WAFER_S] && !wf->unit_dead[u + wf->w])
        m |= 1u << WAFER_S;
    return m;
}

/* 1 when the link crosses a wafer edge. */
static inline int wafer_link_crosses(const wafer *wf, int u, int dir)
{
    int x = u % wf->w, y = u / wf->w;
    switch (dir) {
    case WAFER_E: return x + 1 < wf->w && (x + 1) % wf->wafer_w == 0;
    case WAFER_W: return x > 0 && x % wf->wafer_w == 0;
    case WAFER_N: return y > 0 && y % wf->wafer_h == 0;
    case WAFER_S: return y + 1 < wf->h && (y + 1) % wf->wafer_h == 0;
    default: return 0;
    }
}

/* Bandwidth of a link, bytes/s: an inter-wafer link gets an even share of
 * its wafer edge (an E/W crossing is one of wafer_h links on that edge). */
static inline double wafer_link_bw(const wafer *wf, int u, int dir)
{
    if (!wafer_link_crosses(wf, u, dir))
        return wf->link_bw;
    return wf->iw_bw / ((dir == WAFER_E || dir == WAFER_W) ? wf->wafer_h : wf->wafer_w);
}

/* Latency of one hop over the link, s. */
static inline double wafer_link_lat(const wafer *wf, int u, int dir)
{
    return wafer_link_crosses(wf, u, dir) ? wf->iw_lat : wf->link_lat;
}

/* The unit where the store's I/O reaches unit u: the nearest live unit on
 * an edge with ports (ties: E, W, N, S in that order, then the way
 * south or east along the edge); -1 without a store or when every unit on
 * those edges is dead. */
int wafer_store_port(const wafer *wf, int u);

int wafer_live_units(const wafer *wf);
/* Memory a unit can hold: SRAM plus DRAM. */
double wafer_unit_capacity(const wafer *wf);

/* Faults. Coordinates are checked; a failed link is dead in both directions. */
int wafer_fail_unit(wafer *wf, int x, int y, wt_err *e);
int wafer_fail_link(wafer *wf, int x, int y, int dir, wt_err *e);

#endif
