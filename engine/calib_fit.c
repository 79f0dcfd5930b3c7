/*
 * calib_fit.c - the calibration factors measured on one evaluation
 * (contract in calib_fit.h).
 */
#include "calib_fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "flit_phase.h"

/* Each pattern's bandwidth seconds in the step, into w[npatterns]. */
static void pattern_weights(const sim_result *r, double *w)
{
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        for (int t = 0; t < ph->nterms; t++) {
            const sim_pattern *p = &r->patterns[ph->terms[t].pattern];
            w[ph->terms[t].pattern] += ph->terms[t].coef * ph->count * p->max_busy;
        }
    }
}

int calib_fit_run(const sim_result *r, calib_fit *out, void (*progress)(void *ud, int done, int total), void *ud,
                  wt_err *e)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < CALIB_NCLASS; k++)
        out->factor[k] = 1;
    double *w = calloc((size_t)r->npatterns + 1, sizeof *w);
    out->rows = calloc((size_t)r->npatterns + 1, sizeof *out->rows);
    if (!w || !out->rows) {
        free(w);
        calib_fit_free(out);
        return wt_oom(e, "calibration");
    }
    pattern_weights(r, w);
    int total = 0, rc = WT_OK;
    for (int p = 0; p < r->npatterns; p++)
        total += w[p] > 0;
    double sum[CALIB_NCLASS] = {0};
    for (int p = 0; p < r->npatterns && rc == WT_OK; p++) {
        if (!(w[p] > 0))
            continue;
        flit_phase_out o;
        wt_err why;
        calib_row *row = &out->rows[out->nrows++];
        *row = (calib_row){.pattern = p, .cls = r->patterns[p].cls, .weight_s = w[p]};
        rc = flit_pattern_run(r, p, &o, &why);
        if (rc == WT_EINPUT) { /* this pattern cannot run at flit level: the others still measure */
            snprintf(row->skipped, sizeof row->skipped, "%.199s", why.msg);
            rc = WT_OK;
        } else if (rc != WT_OK) {
            *e = why;
            break;
        } else {
            row->flow_s = o.flow_s, row->flit_s = o.time_s, row->flows_out = o.flows_out;
            row->x0 = o.x0, row->y0 = o.y0, row->w = o.w, row->h = o.h;
            flit_phase_free(&o);
        }
        if (row->flow_s > 0) {
            out->weight_s[row->cls] += row->weight_s;
            sum[row->cls] += row->weight_s * row->flit_s / row->flow_s;
        }
        if (progress)
            progress(ud, out->nrows, total);
    }
    free(w);
    if (rc != WT_OK) {
        calib_fit_free(out);
        return rc;
    }
    for (int k = 0; k < CALIB_NCLASS; k++)
        if (out->weight_s[k] > 0) {
            double f = sum[k] / out->weight_s[k];
            out->factor[k] = f < CALIB_MIN ? CALIB_MIN : f > CALIB_MAX ? CALIB_MAX : f;
        }
    return WT_OK;
}

void calib_fit_free(calib_fit *f)
{
    free(f->rows);
    f->rows = NULL;
    f->nrows = 0;
}
