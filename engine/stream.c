/*
 * stream.c - weight streaming's flows and the store's bound (stream.h).
 */
#include "stream.h"

size_t stream_flows(const sim_result *r, int out, route_flow *flows)
{
    size_t n = 0;
    for (int k = 0; k < r->plan.nranks; k++) {
        int u = r->plan.unit[k], port = wafer_store_port(r->wf, u);
        if (port < 0 || port == u)
            continue;
        flows[n++] = out ? (route_flow){u, port, 1.0} : (route_flow){port, u, 1.0};
    }
    return n;
}

int stream_port_columns(const sim_result *r, int *port_x)
{
    const wafer *wf = r->wf;
    if (wf->dead_units || !wf->store_ports || (wf->store_ports & (1u << WAFER_N | 1u << WAFER_S)))
        return 0;
    /* Without dead units the nearest port on the east or west edge is in
     * the unit's own row, and how far each edge is depends on x alone. */
    for (int x = 0; x < wf->w; x++) {
        int port = wafer_store_port(wf, wafer_unit(wf, x, 0));
        if (port < 0 || wafer_y(wf, port) != 0)
            return 0;
        port_x[x] = wafer_x(wf, port);
    }
    return 1;
}

double stream_store_s(const sim_result *r, int out)
{
    double bw = out ? r->wf->store_bw_out : r->wf->store_bw_in;
    return (double)r->s.tp * r->s.tatp / bw;
}

void stream_step_s(const sim_result *r, int out, double *store, double *mesh)
{
    int pass = out ? PASS_STORE_OUT : PASS_STORE_IN;
    *store = *mesh = 0;
    for (int i = 0; i < r->npatterns; i++) {
        const sim_pattern *p = &r->patterns[i];
        if (p->kind == CG_STORE && p->pass == pass) {
            *store += p->step_coef * p->store_s;
            *mesh += p->step_coef * p->calib * p->max_busy;
        }
    }
}

const char *stream_bound(const sim_result *r)
{
    double si, mi, so, mo;
    stream_step_s(r, 0, &si, &mi);
    stream_step_s(r, 1, &so, &mo);
    return si + so <= 0 ? "" : si + so >= mi + mo ? "store" : "mesh";
}
