/*
 * flit.c - the mesh at flit level (contract and timing in flit.h).
 *
 * One cycle: the events due (flits written into buffers, credits back,
 * flits consumed by terminals), then every terminal injects, then every
 * router with work allocates VCs and then the switch. Everything a
 * decision sends lands at least a cycle later, through a calendar of
 * event lists, so the order routers are visited in a cycle does not
 * matter. Indices: router r, port p (wafer.h's four directions, then
 * LOCAL), VC v; an input VC is iv = (r * NPORTS + p) * V + v, the output
 * VC it feeds downstream has the same index at the upstream router's
 * port; a terminal's VCs into its router's local port follow the routers'
 * output VCs (SRC_OV).
 */
#include "flit.h"

#include <stdlib.h>
#include <string.h>

#include "wafer.h"

/* A router's ports in BookSim2's order (+x, -x, +y, -y, local), which its
 * round-robin pointers follow; q ^ 1 is a mesh port's opposite. */
enum { PORT_E = 0, PORT_W, PORT_S, PORT_N, LOCAL, NPORTS };
enum { VC_IDLE = 0, VC_ALLOC, VC_ACTIVE };
enum { EV_FLIT, EV_EJECT, EV_CREDIT };

typedef struct fl_ev {
    int at;                /* EV_FLIT: input VC; EV_EJECT, EV_CREDIT: output VC */
    int pkt;               /* EV_FLIT, EV_EJECT: the flit's packet and its place in it */
    unsigned short seq;
    unsigned char kind;
    unsigned char tail;    /* the packet's last flit (EV_CREDIT: its credit) */
} fl_ev;

typedef struct fl_bucket {
    fl_ev *ev;
    int n, cap;
} fl_bucket;

/* A flit in a buffer: its packet, its place in it, whether it is the last
 * (the switch need not read the packet for body flits). */
typedef struct fl_slot {
    int pkt;
    unsigned short seq;
    unsigned char tail;
} fl_slot;

/* A port: its input VCs' masks, its output VCs' and its switch pointers. */
typedef struct fl_port {
    unsigned va;    /* input VCs bidding for an output VC */
    unsigned act;   /* active input VCs holding flits */
    unsigned cred;  /* active input VCs whose output VC has a credit */
    unsigned busy;  /* output VCs held by a packet */
    unsigned fresh; /* active input VCs that may not bid for the switch yet (ready later) */
    int sa_g;       /* switch grant pointer, over input ports (as an output) */
    int sa_a, sa_rr; /* switch accept pointer over output ports, VC round robin (as an input) */
} fl_port;

/* The flits a router port's buffers hold: now, at most, and their integral
 * over time up to cycle last. */
typedef struct fl_occ {
    int now, peak;
    long long last;
    double area;
} fl_occ;

/* An input VC. */
typedef struct fl_vc {
    long long ready;           /* first cycle it may bid (for a VC or the switch) */
    int hd, cnt;               /* its buffer's ring: the front, flits held */
    int outvc;                 /* the output VC it holds when active */
    unsigned char state;       /* VC_* */
    unsigned char cls;         /* its packet's route, the VC class it may take downstream */
} fl_vc;

typedef struct fl_net {
    int w, h, R, V, B;
    const double *rate;  /* per link slot, flits a cycle, or NULL (all 1) */
    double *link_free;   /* with rate: per link slot, the cycle from which it may take a flit */
    unsigned all;        /* the mask of a port's V VCs */
    unsigned cls_mask[2];/* the VCs XY and YX packets may take: all, or a half each */
    flit_cfg c;
    flit_packet *p;
    /* input VCs */
    fl_slot *buf;        /* R * NPORTS * V * B */
    fl_vc *vc;           /* R * NPORTS * V */
    unsigned char *outp; /* per input VC: the port its packet leaves by (dense: the switch reads it every cycle) */
    fl_port *port;       /* routers' ports (R * NPORTS), then the terminals' (R) */
    /* output VCs: routers' (R * NPORTS * V), then the terminals' (R * V) */
    int *credits;
    int *owner;          /* the input VC an output VC's packet is crossing from, or -1 */
    /* iSLIP pointers */
    int *va_g, *va_a;    /* per output VC (over a router's input VCs), per input VC (its output VCs) */
    /* terminals */
    int *order, *qpos, *qend;
    int *cur, *cur_seq, *cur_vc, *src_rr;
    /* buffer occupancy per router port, for the stats */
    fl_occ *occ;
    long long *sent;     /* per link slot: flits sent */
    /* the calendar */
    fl_bucket *cal;
    int ncal;
    int remaining;
    /* what is in flight: events not yet delivered, flits in buffers,
     * terminals part way through a packet (all 0: the mesh is idle) */
    long long pending, held;
    int injecting;
} fl_net;

void flit_cfg_defaults(flit_cfg *c)
{
    *c = (flit_cfg){.num_vcs = 16,
                    .vc_buf_size = 8,
                    .wait_for_tail_credit = 1,
                    .alloc_iters = 2,
                    .credit_delay = 2,
                    .routing_delay = 0,
                    .vc_alloc_delay = 1,
                    .sw_alloc_delay = 1,
                    .st_final_delay = 1,
                    .link_latency = 1};
}

int flit_cfg_check(const flit_cfg *c, wt_err *e)
{
    static const struct {
        const char *name;
        size_t off;
        int lo, hi;
    } f[] = {
#define FLIT_FIELD(name, lo, hi) {#name, offsetof(flit_cfg, name), lo, hi},
        FLIT_CFG_FIELDS(FLIT_FIELD)
#undef FLIT_FIELD
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int v;
        memcpy(&v, (const char *)c + f[i].off, sizeof v);
        if (v < f[i].lo || v > f[i].hi)
            return wt_fail(e, "%s %d: must be %d to %d", f[i].name, v, f[i].lo, f[i].hi);
    }
    return WT_OK;
}

/* The wafer direction (wafer.h) of mesh port q. */
static int fl_dir(int q) { return q == PORT_S ? WAFER_S : q == PORT_N ? WAFER_N : q; }

/* The router next to r through port d on a mesh w wide (the mesh is
 * whole: routes lead only to units that exist). */
static int fl_next(int w, int r, int d)
{
    switch (d) {
    case PORT_E: return r + 1;
    case PORT_W: return r - 1;
    case PORT_N: return r - w;
    default: return r + w;
    }
}

/* The port a packet for dst leaves router r by: dimension order, X first
 * unless yx. */
static int fl_route(int w, int yx, int r, int dst)
{
    int x = r % w, y = r / w, dx = dst % w, dy = dst / w;
    int px = dx > x ? PORT_E : dx < x ? PORT_W : -1;
    int py = dy > y ? PORT_S : dy < y ? PORT_N : -1;
    int first = yx ? py : px, second = yx ? px : py;
    return first >= 0 ? first : second >= 0 ? second : LOCAL;
}

void flit_route_add(int w, int yx, int src, int dst, double amount, double *load)
{
    for (int r = src, q; (q = fl_route(w, yx, r, dst)) != LOCAL; r = fl_next(w, r, q))
        load[(size_t)r * WAFER_NDIR + (size_t)fl_dir(q)] += amount;
}

/* Output VC ov is free for another packet. */
static void fl_release(fl_net *n, int ov) { n->port[ov / n->V].busy &= ~(1u << (ov % n->V)); }

static int fl_src_ov(const fl_net *n, int r, int v) { return n->R * NPORTS * n->V + r * n->V + v; }

static int fl_push(fl_net *n, long long t, fl_ev ev)
{
    fl_bucket *b = &n->cal[t % n->ncal];
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        fl_ev *grown = realloc(b->ev, (size_t)cap * sizeof *grown);
        if (!grown)
            return WT_EINTERNAL;
        b->ev = grown;
        b->cap = cap;
    }
    b->ev[b->n++] = ev;
    n->pending++;
    return WT_OK;
}

/* Router port rp's buffers now hold delta flits more, from cycle t. */
static void fl_occupy(fl_net *n, int rp, long long t, int delta)
{
    fl_occ *o = &n->occ[rp];
    o->area += (double)o->now * (double)(t - o->last);
    o->last = t;
    o->now += delta;
    if (o->now > o->peak)
        o->peak = o->now;
}

/* The head now at the front of input VC iv bids for a VC from cycle at. */
static void fl_to_alloc(fl_net *n, int rp, int v, long long at)
{
    int iv = rp * n->V + v;
    const fl_slot *s = &n->buf[(size_t)iv * n->B + n->vc[iv].hd];
    const flit_packet *p = &n->p[s->pkt];
    n->vc[iv].state = VC_ALLOC;
    n->vc[iv].cls = (unsigned char)p->yx;
    n->outp[iv] = (unsigned char)fl_route(n->w, p->yx, rp / NPORTS, p->dst);
    n->vc[iv].ready = at + n->c.routing_delay;
    n->port[rp].va |= 1u << v;
}

static void fl_write(fl_net *n, int iv, int pkt, int seq, int tail, long long t)
{
    int rp = iv / n->V, v = iv % n->V;
    int slot = n->vc[iv].hd + n->vc[iv].cnt;
    if (slot >= n->B)
        slot -= n->B;
    n->buf[(size_t)iv * n->B + slot] = (fl_slot){pkt, (unsigned short)seq, (unsigned char)tail};
    n->vc[iv].cnt++;
    n->held++;
    fl_occupy(n, rp, t, 1);
    if (n->vc[iv].state == VC_IDLE)
        fl_to_alloc(n, rp, v, t);
    else if (n->vc[iv].state == VC_ACTIVE)
        n->port[rp].act |= 1u << v;
}

static int fl_deliver(fl_net *n, long long t)
{
    fl_bucket *b = &n->cal[t % n->ncal];
    int rc = WT_OK;
    /* a credit's event may add to this list only for a later cycle */
    for (int i = 0; i < b->n && rc == WT_OK; i++) {
        fl_ev ev = b->ev[i];
        if (ev.kind == EV_FLIT) {
            fl_write(n, ev.at, ev.pkt, ev.seq, ev.tail, t);
        } else if (ev.kind == EV_EJECT) {
            rc = fl_push(n, t + n->c.link_latency + 1 + n->c.credit_delay,
                         (fl_ev){.kind = EV_CREDIT, .at = ev.at, .tail = ev.tail});
            if (ev.tail) {
                n->p[ev.pkt].arrived = t;
                n->remaining--;
            }
        } else {
            if (n->credits[ev.at]++ == 0 && n->owner[ev.at] >= 0) {
                int iv = n->owner[ev.at];
                n->port[iv / n->V].cred |= 1u << (iv % n->V);
            }
            if (ev.tail && n->c.wait_for_tail_credit)
                fl_release(n, ev.at);
        }
    }
    n->pending -= b->n;
    b->n = 0;
    return rc;
}

/* Terminal r sends the next flit of its packet, or starts its next packet
 * on a free VC with a credit, when one was created by cycle t. */
static int fl_inject(fl_net *n, int r, long long t)
{
    if (n->cur[r] < 0) {
        if (n->qpos[r] == n->qend[r] || n->p[n->order[n->qpos[r]]].created > t)
            return WT_OK;
        unsigned cls = n->cls_mask[n->p[n->order[n->qpos[r]]].yx];
        for (int k = 0; k < n->V; k++) {
            int v = (n->src_rr[r] + k) % n->V, ov = fl_src_ov(n, r, v);
            if ((cls >> v & 1) && !(n->port[ov / n->V].busy >> v & 1) && n->credits[ov] > 0) {
                n->port[ov / n->V].busy |= 1u << v;
                n->src_rr[r] = (v + 1) % n->V;
                n->cur[r] = n->order[n->qpos[r]++];
                n->injecting++;
                n->cur_seq[r] = 0;
                n->cur_vc[r] = v;
                break;
            }
        }
        if (n->cur[r] < 0)
            return WT_OK;
    }
    int v = n->cur_vc[r], ov = fl_src_ov(n, r, v), pkt = n->cur[r], seq = n->cur_seq[r];
    if (n->credits[ov] <= 0)
        return WT_OK;
    n->credits[ov]--;
    if (seq == 0)
        n->p[pkt].injected = t;
    int iv = (r * NPORTS + LOCAL) * n->V + v;
    fl_ev ev = {.kind = EV_FLIT, .at = iv, .pkt = pkt, .seq = (unsigned short)seq,
                .tail = seq == n->p[pkt].flits - 1};
    if (fl_push(n, t + n->c.link_latency + 1, ev) != WT_OK)
        return WT_EINTERNAL;
    if (++n->cur_seq[r] == n->p[pkt].flits) {
        n->cur[r] = -1;
        n->injecting--;
        if (!n->c.wait_for_tail_credit)
            fl_release(n, ov);
    }
    return WT_OK;
}

/* The lowest set bit of m at or after bit ptr (< 32), else the lowest,
 * else -1: a round-robin pointer's pick. */
static int fl_first_from(unsigned m, int ptr)
{
    unsigned hi = m & (~0u << ptr);
    return hi ? __builtin_ctz(hi) : m ? __builtin_ctz(m) : -1;
}

#define FL_MAX_REQ (NPORTS * FLIT_MAX_VCS)
#define FL_WORDS ((FL_MAX_REQ + 63) / 64)

/* A set of requesters (positions < FL_MAX_REQ). */
typedef struct fl_set {
    unsigned long long w[FL_WORDS];
} fl_set;

/* The first member of a AND b at or after position ptr, else the first,
 * else -1 (sets of `words` words). */
static int fl_set_first(const fl_set *a, const fl_set *b, int words, int ptr)
{
    for (int k = ptr >> 6; k < words; k++) {
        unsigned long long m = a->w[k] & b->w[k];
        if (k == ptr >> 6)
            m &= ~0ull << (ptr & 63);
        if (m)
            return k * 64 + __builtin_ctzll(m);
    }
    for (int k = 0; k < words; k++)
        if (a->w[k] & b->w[k])
            return k * 64 + __builtin_ctzll(a->w[k] & b->w[k]);
    return -1;
}

/* One iSLIP allocation (McKeown's) of nin requesters (positions in their
 * order) to nout <= 32 resources: wants[o] holds the requesters that may
 * take resource o. Each iteration every free resource o grants the free
 * requester next after position g[o], and every requester i accepts the
 * grant next after position a[i]. in[i] / out[o] get the match or -1;
 * first[i] is 1 for a match of the first iteration, the only ones that
 * move the caller's pointers. */
static void fl_islip(int nin, int nout, const fl_set *wants, int iters, const int *g, const int *a, int *in,
                     int *out, unsigned char *first)
{
    int words = (nin + 63) / 64;
    fl_set free_in = {{0}};
    for (int k = 0; k < words; k++)
        free_in.w[k] = k < nin >> 6 ? ~0ull : (1ull << (nin & 63)) - 1;
    unsigned free_out = nout == 32 ? ~0u : (1u << nout) - 1;
    for (int i = 0; i < nin; i++)
        in[i] = -1;
    for (int o = 0; o < nout; o++)
        out[o] = -1;
    for (int it = 0; it < iters && free_out; it++) {
        unsigned granted[FL_MAX_REQ];
        int who[32], nwho = 0;
        for (unsigned m = free_out; m; m &= m - 1) {
            int o = __builtin_ctz(m), i = fl_set_first(&wants[o], &free_in, words, g[o]);
            if (i < 0)
                continue;
            if (!nwho || who[nwho - 1] != i) { /* a requester may collect several grants */
                int seen = 0;
                for (int k = 0; k < nwho && !seen; k++)
                    seen = who[k] == i;
                if (!seen) {
                    who[nwho++] = i;
                    granted[i] = 0;
                }
            }
            granted[i] |= 1u << o;
        }
        if (!nwho)
            break;
        for (int k = 0; k < nwho; k++) {
            int i = who[k], o = fl_first_from(granted[i], a[i]);
            in[i] = o;
            out[o] = i;
            first[i] = it == 0;
            free_in.w[i >> 6] &= ~(1ull << (i & 63));
            free_out &= ~(1u << o);
        }
    }
}

/* The position of the first id >= ptr in ids[0..n) (ascending), 0 past
 * the end: a pointer over ids as a position among those present. */
static int fl_position(const int *ids, int n, int ptr)
{
    int i = 0;
    while (i < n && ids[i] < ptr)
        i++;
    return i < n ? i : 0;
}

/* VC allocation at router r, cycle t: per output port, the VCs routed to
 * it bid for all its free output VCs. BookSim2's pointers: a grant pointer
 * per output VC over the router's input VCs, an accept pointer per input
 * VC over its output VCs. */
static void fl_alloc_vcs(fl_net *n, int r, long long t)
{
    int V = n->V, base = r * NPORTS * V, rp0 = r * NPORTS, span = NPORTS * V;
    int req[NPORTS][FL_MAX_REQ], nreq[NPORTS] = {0};
    for (int pi = 0; pi < NPORTS; pi++)
        for (unsigned m = n->port[rp0 + pi].va; m; m &= m - 1) {
            int i = pi * V + __builtin_ctz(m);
            int po = n->outp[base + i]; /* a port without a free VC first: no need to read the VC */
            if ((~n->port[rp0 + po].busy & n->all) && n->vc[base + i].ready <= t)
                req[po][nreq[po]++] = i;
        }
    for (int po = 0; po < NPORTS; po++) {
        int nin = nreq[po], *ins = req[po], fre[FLIT_MAX_VCS], nfree = 0;
        if (!nin)
            continue;
        for (unsigned m = ~n->port[rp0 + po].busy & n->all; m; m &= m - 1)
            fre[nfree++] = po * V + __builtin_ctz(m);
        int g[FLIT_MAX_VCS], a[FL_MAX_REQ], in[FL_MAX_REQ], out[FLIT_MAX_VCS];
        unsigned char first[FL_MAX_REQ];
        fl_set by_cls[2] = {{{0}}, {{0}}}, wants[FLIT_MAX_VCS];
        for (int i = 0; i < nin; i++) {
            a[i] = fl_position(fre, nfree, n->va_a[base + ins[i]]);
            by_cls[n->vc[base + ins[i]].cls].w[i >> 6] |= 1ull << (i & 63);
        }
        for (int o = 0; o < nfree; o++) {
            int v = fre[o] - po * V;
            g[o] = fl_position(ins, nin, n->va_g[base + fre[o]]);
            for (int k = 0; k < FL_WORDS; k++) /* the requesters whose class may take VC v */
                wants[o].w[k] = (n->cls_mask[0] >> v & 1 ? by_cls[0].w[k] : 0) |
                                (n->cls_mask[1] >> v & 1 ? by_cls[1].w[k] : 0);
        }
        fl_islip(nin, nfree, wants, n->c.alloc_iters, g, a, in, out, first);
        for (int i = 0; i < nin; i++) {
            if (in[i] < 0)
                continue;
            int pi = ins[i] / V, v = ins[i] % V, o = fre[in[i]];
            fl_vc *vc = &n->vc[base + ins[i]];
            if (first[i]) {
                n->va_g[base + o] = ins[i] + 1 == span ? 0 : ins[i] + 1;
                n->va_a[base + ins[i]] = o + 1 == span ? 0 : o + 1;
            }
            n->port[rp0 + po].busy |= 1u << (o - po * V);
            vc->state = VC_ACTIVE;
            vc->outvc = base + o;
            n->owner[base + o] = base + ins[i];
            if (n->credits[base + o] > 0)
                n->port[rp0 + pi].cred |= 1u << v;
            vc->ready = t + n->c.vc_alloc_delay;
            n->port[rp0 + pi].fresh |= 1u << v;
            n->port[rp0 + pi].va &= ~(1u << v);
            n->port[rp0 + pi].act |= 1u << v;
        }
    }
}

/* The flit at the front of input VC iv leaves it in cycle t's switch
 * allocation, for its output VC. */
static int fl_send(fl_net *n, int r, int pi, int v, long long t)
{
    int V = n->V, rp = r * NPORTS + pi, iv = rp * V + v;
    int ov = n->vc[iv].outvc, po = n->outp[iv];
    fl_slot s = n->buf[(size_t)iv * n->B + n->vc[iv].hd];
    if (++n->vc[iv].hd == n->B)
        n->vc[iv].hd = 0;
    n->vc[iv].cnt--;
    long long d = t + n->c.sw_alloc_delay - 1;
    /* a flit counts in its buffer until it wins the switch (its slot is
     * free from then; its credit leaves when it does, in cycle d) */
    n->held--;
    fl_occupy(n, rp, t, -1);
    n->port[rp].sa_rr = (v + 1) % V;
    if (--n->credits[ov] == 0)
        n->port[rp].cred &= ~(1u << v);
    int tail = s.tail;
    if (s.seq == 0)
        n->p[s.pkt].hops++;
    if (po != LOCAL) {
        size_t l = (size_t)r * WAFER_NDIR + (size_t)fl_dir(po);
        n->sent[l]++;
        /* the link takes its next flit 1 / rate cycles after this one: from
         * when it was free, if that was within the cycle (so a rate of 0.4
         * sends 2 flits in 5 cycles), else from now */
        if (n->rate)
            n->link_free[l] = (n->link_free[l] > (double)t - 1 ? n->link_free[l] : (double)t) + 1 / n->rate[l];
    }
    long long arrive = d + n->c.st_final_delay + n->c.link_latency + 1;
    fl_ev ev = {.kind = EV_EJECT, .at = ov, .pkt = s.pkt, .seq = s.seq, .tail = s.tail};
    if (po != LOCAL) {
        ev.kind = EV_FLIT;
        ev.at = (fl_next(n->w, r, po) * NPORTS + (po ^ 1)) * V + (ov - (rp - pi + po) * V);
    }
    int up = pi == LOCAL ? fl_src_ov(n, r, v) : (fl_next(n->w, r, pi) * NPORTS + (pi ^ 1)) * V + v;
    long long credit = d + n->c.link_latency + 1 + n->c.credit_delay;
    if (fl_push(n, arrive, ev) != WT_OK ||
        fl_push(n, credit, (fl_ev){.kind = EV_CREDIT, .at = up, .tail = (unsigned char)tail}) != WT_OK)
        return WT_EINTERNAL;
    if (!tail) {
        if (!n->vc[iv].cnt)
            n->port[rp].act &= ~(1u << v);
        return WT_OK;
    }
    if (!n->c.wait_for_tail_credit)
        fl_release(n, ov);
    n->vc[iv].state = VC_IDLE;
    n->owner[ov] = -1;
    n->port[rp].act &= ~(1u << v);
    n->port[rp].cred &= ~(1u << v);
    if (n->vc[iv].cnt)
        fl_to_alloc(n, rp, v, t + 1);
    return WT_OK;
}

/* 1 when output port po of router r leads to a link that may not take a
 * flit in cycle t (slower than one a cycle, it took one too recently). */
static int fl_resting(const fl_net *n, int r, int po, long long t)
{
    return n->link_free[(size_t)r * WAFER_NDIR + (size_t)fl_dir(po)] > (double)t;
}

/* Switch allocation at router r, cycle t: each input port bids, for each
 * output port, with its ready VC next after its round-robin pointer; an
 * output whose link rests takes no bid. */
static int fl_alloc_switch(fl_net *n, int r, long long t)
{
    int V = n->V, base = r * NPORTS * V, rp0 = r * NPORTS;
    unsigned want[NPORTS] = {0}, bidders = 0;
    int rep[NPORTS][NPORTS];
    for (int pi = 0; pi < NPORTS; pi++) {
        unsigned m = n->port[rp0 + pi].act & n->port[rp0 + pi].cred, fresh = n->port[rp0 + pi].fresh;
        int rr = n->port[rp0 + pi].sa_rr;
        /* the VCs from the pointer on, then those before it */
        unsigned runs[2] = {m & (~0u << rr), m & ~(~0u << rr)};
        for (int k = 0; k < 2; k++)
            for (unsigned b = runs[k]; b; b &= b - 1) {
                int v = __builtin_ctz(b), iv = base + pi * V + v, po = n->outp[iv];
                if (fresh >> v & 1) {
                    if (n->vc[iv].ready > t)
                        continue;
                    n->port[rp0 + pi].fresh &= ~(1u << v);
                }
                if (want[pi] >> po & 1 || (n->rate && po != LOCAL && fl_resting(n, r, po, t)))
                    continue;
                want[pi] |= 1u << po;
                rep[pi][po] = v;
                bidders |= 1u << pi;
            }
    }
    if (!bidders)
        return WT_OK;
    int in[NPORTS], out[NPORTS];
    if (!(bidders & (bidders - 1))) {
        /* a lone input port: iSLIP's first iteration grants it every output
         * it bids for, and it accepts the one after its pointer */
        int pi = __builtin_ctz(bidders), po = fl_first_from(want[pi], n->port[rp0 + pi].sa_a);
        n->port[rp0 + po].sa_g = (pi + 1) % NPORTS;
        n->port[rp0 + pi].sa_a = (po + 1) % NPORTS;
        return fl_send(n, r, pi, rep[pi][po], t);
    }
    unsigned char first[NPORTS];
    fl_set wants[NPORTS] = {{{0}}};
    for (int pi = 0; pi < NPORTS; pi++)
        for (unsigned m = want[pi]; m; m &= m - 1)
            wants[__builtin_ctz(m)].w[0] |= 1ull << pi;
    int g[NPORTS], a[NPORTS];
    for (int p = 0; p < NPORTS; p++)
        g[p] = n->port[rp0 + p].sa_g, a[p] = n->port[rp0 + p].sa_a;
    fl_islip(NPORTS, NPORTS, wants, n->c.alloc_iters, g, a, in, out, first);
    for (int pi = 0; pi < NPORTS; pi++) {
        if (in[pi] < 0)
            continue;
        if (first[pi]) {
            n->port[rp0 + in[pi]].sa_g = (pi + 1) % NPORTS;
            n->port[rp0 + pi].sa_a = (in[pi] + 1) % NPORTS;
        }
        if (fl_send(n, r, pi, rep[pi][in[pi]], t) != WT_OK)
            return WT_EINTERNAL;
    }
    return WT_OK;
}

static int fl_check_packets(const flit_packet *p, int np, int units, wt_err *e)
{
    for (int i = 0; i < np; i++) {
        if (p[i].src < 0 || p[i].src >= units || p[i].dst < 0 || p[i].dst >= units)
            return wt_fail(e, "packet %d: unit %d -> %d is off the mesh of %d units", i, p[i].src, p[i].dst, units);
        if (p[i].flits < 1 || p[i].flits > FLIT_MAX_PACKET)
            return wt_fail(e, "packet %d: %d flits (1 to %d)", i, p[i].flits, FLIT_MAX_PACKET);
        if (p[i].created < 0)
            return wt_fail(e, "packet %d: created at cycle %lld (at least 0)", i, p[i].created);
        if (p[i].yx != 0 && p[i].yx != 1)
            return wt_fail(e, "packet %d: route %d (0 XY, 1 YX)", i, p[i].yx);
    }
    return WT_OK;
}

/* A packet's place in its source's queue: by source, creation, index. */
typedef struct fl_key {
    int src;
    long long created;
    int idx;
} fl_key;

static int fl_by_source(const void *a, const void *b)
{
    const fl_key *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->created != y->created)
        return x->created < y->created ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static void fl_free(fl_net *n)
{
    void *arrays[] = {n->buf, n->vc, n->outp, n->port, n->owner,
                      n->credits, n->va_g, n->va_a, n->order, n->qpos,
                      n->qend, n->cur, n->cur_seq, n->cur_vc, n->src_rr, n->occ, n->sent, n->link_free};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    for (int i = 0; n->cal && i < n->ncal; i++)
        free(n->cal[i].ev);
    free(n->cal);
}

/* mixed: the packets route both XY and YX (the VCs split in two classes) */
static int fl_new(fl_net *n, int w, int h, const flit_cfg *c, flit_packet *p, int np, int mixed)
{
    memset(n, 0, sizeof *n);
    n->all = c->num_vcs == 32 ? ~0u : (1u << c->num_vcs) - 1;
    unsigned low = (1u << (c->num_vcs / 2)) - 1;
    n->cls_mask[0] = mixed ? low : n->all;
    n->cls_mask[1] = mixed ? n->all & ~low : n->all;
    n->w = w, n->h = h, n->R = w * h, n->V = c->num_vcs, n->B = c->vc_buf_size, n->c = *c, n->p = p;
    size_t R = (size_t)n->R, ivs = R * NPORTS * (size_t)n->V, ovs = ivs + R * (size_t)n->V;
    n->buf = malloc(ivs * (size_t)n->B * sizeof *n->buf);
    n->vc = calloc(ivs, sizeof *n->vc);
    n->outp = calloc(ivs, 1);
    n->port = calloc(R * (NPORTS + 1), sizeof *n->port);
    n->owner = malloc(ovs * sizeof *n->owner);
    n->credits = malloc(ovs * sizeof *n->credits);
    n->va_g = calloc(ivs, sizeof *n->va_g);
    n->va_a = calloc(ivs, sizeof *n->va_a);
    n->order = malloc(((size_t)np + 1) * sizeof *n->order);
    n->qpos = calloc(R, sizeof *n->qpos);
    n->qend = calloc(R, sizeof *n->qend);
    n->cur = malloc(R * sizeof *n->cur);
    n->cur_seq = calloc(R, sizeof *n->cur_seq);
    n->cur_vc = calloc(R, sizeof *n->cur_vc);
    n->src_rr = calloc(R, sizeof *n->src_rr);
    n->occ = calloc(R * NPORTS, sizeof *n->occ);
    n->sent = calloc(R * WAFER_NDIR, sizeof *n->sent);
    int sw = c->sw_alloc_delay - 1, lat = c->link_latency;
    int reach = sw + c->st_final_delay + lat + 1;
    if (sw + lat + 1 + c->credit_delay > reach)
        reach = sw + lat + 1 + c->credit_delay;
    n->ncal = reach + 2;
    n->cal = calloc((size_t)n->ncal, sizeof *n->cal);
    if (!n->buf || !n->vc || !n->outp || !n->port || !n->owner || !n->credits || !n->va_g || !n->va_a ||
        !n->order || !n->qpos || !n->qend || !n->cur || !n->cur_seq || !n->cur_vc || !n->src_rr || !n->occ ||
        !n->sent || !n->cal)
        return WT_EINTERNAL;
    for (size_t i = 0; i < ovs; i++)
        n->credits[i] = n->B, n->owner[i] = -1;
    for (size_t r = 0; r < R; r++)
        n->cur[r] = -1;
    fl_key *key = malloc(((size_t)np + 1) * sizeof *key);
    if (!key)
        return WT_EINTERNAL;
    for (int i = 0; i < np; i++) {
        key[i] = (fl_key){p[i].src, p[i].created, i};
        p[i].injected = p[i].arrived = -1;
        p[i].hops = 0;
    }
    qsort(key, (size_t)np, sizeof *key, fl_by_source);
    for (int i = 0; i < np; i++)
        n->order[i] = key[i].idx;
    free(key);
    /* each source's queue starts where the previous one's ends */
    for (int r = 0, start = 0; r < n->R; r++) {
        int end = start;
        while (end < np && p[n->order[end]].src == r)
            end++;
        n->qpos[r] = start;
        n->qend[r] = end;
        start = end;
    }
    n->remaining = np;
    return WT_OK;
}

static int fl_stats(const fl_net *n, long long cycles, flit_stats *st)
{
    size_t nl = (size_t)n->R * WAFER_NDIR;
    st->cycles = cycles;
    st->flits = calloc(nl, sizeof *st->flits);
    st->buffer_mean = calloc(nl, sizeof *st->buffer_mean);
    st->buffer_peak = calloc(nl, sizeof *st->buffer_peak);
    if (!st->flits || !st->buffer_mean || !st->buffer_peak)
        return WT_EINTERNAL;
    memcpy(st->flits, n->sent, nl * sizeof *n->sent);
    for (int r = 0; r < n->R; r++)
        for (int pi = 0; pi < LOCAL; pi++) {
            int rp = r * NPORTS + pi;
            const fl_occ *o = &n->occ[rp];
            if (o->peak == 0)
                continue;
            /* input port pi is fed by the neighbour that way, through its link back */
            size_t l = (size_t)fl_next(n->w, r, pi) * WAFER_NDIR + (size_t)fl_dir(pi ^ 1);
            double area = o->area + (double)o->now * (double)(cycles - o->last);
            st->buffer_mean[l] = cycles > 0 ? area / (double)cycles : 0;
            st->buffer_peak[l] = o->peak;
        }
    return WT_OK;
}

void flit_stats_free(flit_stats *st)
{
    if (!st)
        return;
    free(st->flits);
    free(st->buffer_mean);
    free(st->buffer_peak);
    st->flits = NULL;
    st->buffer_mean = NULL;
    st->buffer_peak = NULL;
}

/* With nothing in flight, the cycle the next packet is created (not
 * before t, at most limit): the cycles between change nothing. */
static long long fl_next_created(const fl_net *n, long long t, long long limit)
{
    long long next = limit;
    for (int r = 0; r < n->R; r++)
        if (n->qpos[r] < n->qend[r] && n->p[n->order[n->qpos[r]]].created < next)
            next = n->p[n->order[n->qpos[r]]].created;
    return next > t ? next : t;
}

int flit_run(int w, int h, const flit_cfg *c, flit_packet *p, int np, long long max_cycles, flit_stats *st,
             wt_err *e)
{
    return flit_run_with(w, h, c, p, np, max_cycles, NULL, st, e);
}

/* Cycles between two looks at the stop flag. */
#define FL_STOP_EVERY 64

int flit_run_with(int w, int h, const flit_cfg *c, flit_packet *p, int np, long long max_cycles,
                  const flit_run_opts *o, flit_stats *st, wt_err *e)
{
    const atomic_int *stop = o ? o->stop : NULL;
    const double *rate = o ? o->link_rate : NULL;
    if (st)
        memset(st, 0, sizeof *st);
    int rc = flit_cfg_check(c, e);
    if (rc != WT_OK)
        return rc;
    if (w < 1 || h < 1 || w > (1 << 15) || h > (1 << 15) ||
        (long long)w * h > (1LL << 30) / ((long long)NPORTS * c->num_vcs * c->vc_buf_size))
        return wt_fail(e, "a %dx%d mesh: the flit level takes 1x1 up to a billion buffered flits", w, h);
    if (np < 0 || (rc = fl_check_packets(p, np, w * h, e)) != WT_OK)
        return np < 0 ? wt_fail(e, "%d packets", np) : rc;
    for (size_t l = 0; rate && l < (size_t)w * (size_t)h * WAFER_NDIR; l++)
        if (!(rate[l] > 0 && rate[l] <= 1))
            return wt_fail(e, "link slot %zu: a rate of %g flits a cycle (above 0, at most 1)", l, rate[l]);
    int routes = 0;
    for (int i = 0; i < np; i++)
        routes |= 1 << p[i].yx;
    if (routes == 3 && c->num_vcs < 2)
        return wt_fail(e, "packets route both XY and YX: num_vcs must be 2 at least, a class each");
    fl_net n;
    rc = fl_new(&n, w, h, c, p, np, routes == 3);
    if (rc == WT_OK && rate) {
        n.rate = rate;
        if (!(n.link_free = calloc((size_t)n.R * WAFER_NDIR, sizeof *n.link_free)))
            rc = WT_EINTERNAL;
    }
    long long t = 0;
    int stopped = 0;
    for (long long iter = 0; rc == WT_OK && n.remaining > 0 && t < max_cycles; t++, iter++) {
        if (stop && iter % FL_STOP_EVERY == 0 && atomic_load(stop)) {
            stopped = 1;
            break;
        }
        if (!n.pending && !n.held && !n.injecting)
            t = fl_next_created(&n, t, max_cycles);
        if (t >= max_cycles)
            break;
        rc = fl_deliver(&n, t);
        for (int r = 0; rc == WT_OK && r < n.R; r++)
            if (n.cur[r] >= 0 || n.qpos[r] < n.qend[r])
                rc = fl_inject(&n, r, t);
        for (int r = 0; rc == WT_OK && r < n.R; r++) {
            unsigned va = 0, bid = 0;
            for (int pi = 0; pi < NPORTS; pi++) {
                va |= n.port[r * NPORTS + pi].va;
                bid |= n.port[r * NPORTS + pi].act & n.port[r * NPORTS + pi].cred;
            }
            if (va)
                fl_alloc_vcs(&n, r, t);
            if (bid || va)
                rc = fl_alloc_switch(&n, r, t);
        }
    }
    if (rc == WT_OK && st && !stopped)
        rc = fl_stats(&n, t, st);
    fl_free(&n);
    if (stopped)
        return wt_fail(e, "stopped");
    if (rc != WT_OK) {
        flit_stats_free(st);
        return wt_oom(e, "flit level");
    }
    return WT_OK;
}
