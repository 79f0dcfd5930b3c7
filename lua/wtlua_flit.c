/*
 * wtlua_flit.c - wt.route{net = "flit"}: custom flows cycle by cycle on the
 * layout's routers (docs/LUA.md, "wt.route"; docs/MODEL.md, "The flit
 * level").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flit.h"
#include "flit_phase.h"
#include "wtlua_int.h"

/* The most flits one call moves: a second or so of simulation; the last
 * cycle it runs to. */
#define ROUTE_FLIT_MAX (1 << 24)
#define ROUTE_FLIT_CYCLES (double)(1LL << 40)

/* A loaded link's figures. */
typedef struct flit_link {
    size_t slot;
    double bytes, buffer_mean;
    int buffer_peak;
} flit_link;

/* Checks that flit_run can take wf's mesh: a whole one of at most
 * FLIT_MAX_SIDE a side. */
static void flit_mesh_ok(lua_State *L, const wafer *wf)
{
    if (wf->w > FLIT_MAX_SIDE || wf->h > FLIT_MAX_SIDE)
        luaL_error(L, "wt.route: net flit: the %dx%d mesh is beyond the flit level's %dx%d", wf->w, wf->h,
                   FLIT_MAX_SIDE, FLIT_MAX_SIDE);
    if (wf->dead_units || wf->dead_links)
        luaL_error(L, "wt.route: net flit: the layout has failed units or links; the flit level routes whole meshes");
}

int wtlua_route_flit(lua_State *L, const wafer *wf, route_mode mode, int packet_flits, const route_flow *flows,
                     const double *start_s, int n)
{
    flit_mesh_ok(L, wf);
    /* a balanced flow is two: half its bytes X first, half Y first */
    int halves = mode == ROUTE_BALANCED ? 2 : 1;
    /* links slower than the fastest (between wafers) at their rates */
    size_t nl = wafer_nlinks(wf), used = 0;
    double *bw = lua_newuserdatauv(L, sizeof *bw * nl, 0), *rate = lua_newuserdatauv(L, sizeof *rate * nl, 0), top;
    flit_run_opts ro = {NULL, flit_window_rates(wf, 0, 0, wf->w, wf->h, bw, rate, &top) ? rate : NULL};
    double cycle_s = wf->flit_bytes / top, total = 0;
    for (int i = 0; i < n; i++)
        total += halves * ceil(flows[i].bytes / halves / wf->flit_bytes);
    if (total > ROUTE_FLIT_MAX) {
        char many[32]; /* lua_pushfstring has no precision */
        snprintf(many, sizeof many, "%.0f", total);
        luaL_error(L, "wt.route: net flit: %s flits of %d bytes; at most %d (scale the bytes down)", many,
                   wf->flit_bytes, ROUTE_FLIT_MAX);
    }
    for (int i = 0; i < n; i++)
        if (start_s[i] / cycle_s > ROUTE_FLIT_CYCLES)
            luaL_error(L, "wt.route: flow %d: net flit: start_s is beyond the flit level's 2^40 cycles", i + 1);
    int np = 0, *first = lua_newuserdatauv(L, sizeof *first * ((size_t)n + 1), 0);
    for (int i = 0; i < n; i++) {
        first[i] = np;
        np += halves * (int)((ceil(flows[i].bytes / halves / wf->flit_bytes) + packet_flits - 1) / packet_flits);
    }
    first[n] = np;
    flit_packet *p = lua_newuserdatauv(L, sizeof *p * ((size_t)np + 1), 0);
    for (int i = 0, k = 0; i < n; i++)
        for (int h = 0; h < halves; h++) {
            long long flits = (long long)ceil(flows[i].bytes / halves / wf->flit_bytes);
            for (; flits > 0; k++, flits -= packet_flits)
                p[k] = (flit_packet){.src = flows[i].src,
                                     .dst = flows[i].dst,
                                     .flits = (int)(flits < packet_flits ? flits : packet_flits),
                                     .yx = halves == 2 ? h : mode == ROUTE_YX,
                                     .created = llround(start_s[i] / cycle_s)};
        }
    /* the links' figures move into memory Lua owns before anything below
     * can raise an error (the stats are freed first) */
    flit_link *links = lua_newuserdatauv(L, sizeof *links * nl, 0);
    flit_stats st;
    wt_err e;
    if (flit_run_with(wf->w, wf->h, &wf->router, p, np, 1LL << 40, &ro, &st, &e) != WT_OK)
        return luaL_error(L, "wt.route: net flit: %s", e.msg);
    for (int k = 0; k < np; k++)
        if (p[k].arrived < 0) { /* the stats go first: the error does not return */
            flit_stats_free(&st);
            return luaL_error(L, "wt.route: net flit: the flows did not finish within 2^40 cycles");
        }
    for (size_t l = 0; l < nl; l++)
        if (st.flits[l])
            links[used++] = (flit_link){l, (double)st.flits[l] * wf->flit_bytes, st.buffer_mean[l], st.buffer_peak[l]};
    flit_stats_free(&st);
    double max_load = 0, end_s = 0;
    int max_hops = 0;
    lua_createtable(L, 0, 7);
    lua_createtable(L, (int)used, 0);
    for (size_t k = 0; k < used; k++) {
        max_load = fmax(max_load, links[k].bytes);
        wtlua_push_link(L, wf, links[k].slot, links[k].bytes, 0);
        lua_pushnumber(L, links[k].buffer_mean);
        lua_setfield(L, -2, "buffer_mean");
        lua_pushinteger(L, links[k].buffer_peak);
        lua_setfield(L, -2, "buffer_peak");
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, "links");
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        /* a flow ends when its last packet's tail is written at dst */
        double finish = start_s[i];
        for (int k = first[i]; k < first[i + 1]; k++) {
            finish = fmax(finish, (double)p[k].arrived * cycle_s);
            max_hops = p[k].hops - 1 > max_hops ? p[k].hops - 1 : max_hops;
        }
        end_s = fmax(end_s, finish);
        wtlua_push_flow_time(L, start_s[i], finish, finish);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "flows");
    wtlua_set_route_figures(L, end_s, max_load, max_hops, max_hops * wf->link_lat);
    lua_pushnumber(L, cycle_s);
    lua_setfield(L, -2, "cycle_s");
    return 1;
}
