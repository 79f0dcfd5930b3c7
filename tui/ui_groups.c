/*
 * ui_groups.c - the group overlay (`g`, `:group KIND|off`) and what loads
 * each link out of an inspected unit: a hot link traced to its groups.
 */
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "qty.h"
#include "ui.h"

/* Loads listed per link when a unit is inspected. */
#define INSPECT_LOADS 3

void ui_group_free(ui *u)
{
    group_free(&u->group.g);
    u->group.unit = -1;
}

/* The group of u->group.kind around the cursor, into u->group.g. */
static int make(ui *u, wt_err *e)
{
    ui_group *gr = &u->group;
    int unit = wafer_unit(u->r->wf, u->v.cx, u->v.cy);
    ui_group_free(u);
    int rc = group_of_unit(u->r, unit, gr->kind, &gr->g, e);
    gr->unit = unit;
    gr->gen = u->play.gen;
    return rc;
}

static void say(ui *u)
{
    const group *g = &u->group.g;
    ui_status(u, 0, "%s group %d around %d,%d: %d members, %d links loaded", group_kind_name(u->group.kind), g->index,
              u->v.cx, u->v.cy, g->size, g->nlinks);
}

void ui_group_key(ui *u)
{
    if (!u->r)
        return;
    /* the next kind with a group of two or more around the cursor, then off */
    for (int kind = u->group.kind + 1; kind < GROUP_NKINDS; kind++) {
        if (kind == CG_STORE) /* the store's traffic is no group */
            continue;
        u->group.kind = kind;
        if (make(u, NULL) == WT_OK) {
            say(u);
            return;
        }
    }
    u->group.kind = -1;
    ui_group_free(u);
    ui_status(u, 0, "group overlay off");
}

int ui_group_command(ui *u, const char *kind, wt_err *e)
{
    if (!strcmp(kind, "off")) {
        u->group.kind = -1;
        ui_group_free(u);
        return WT_OK;
    }
    if (!u->r)
        return wt_fail(e, "group: no step to show (the last one failed)");
    int k = 0;
    while (k < GROUP_NKINDS && (k == CG_STORE || strcmp(group_kind_name(k), kind)))
        k++;
    if (k == GROUP_NKINDS) { /* the kinds as group_kind_name names them */
        char list[256] = "";
        for (int i = 0; i < GROUP_NKINDS; i++)
            if (i != CG_STORE)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s, ", group_kind_name(i));
        return wt_fail(e, "group: '%s' is not one of %soff", kind, list);
    }
    int old = u->group.kind;
    u->group.kind = k;
    wt_err why;
    if (make(u, &why) != WT_OK) {
        u->group.kind = old;
        ui_group_free(u);
        return wt_fail(e, "group: %s", why.msg);
    }
    say(u);
    return WT_OK;
}

void ui_group_view(ui *u)
{
    ui_group *gr = &u->group;
    view_state *v = &u->v;
    if (gr->kind >= 0 && u->r &&
        (gr->unit != wafer_unit(u->r->wf, v->cx, v->cy) || gr->gen != u->play.gen))
        make(u, NULL); /* the cursor left the group's unit, or a new step: none around a unit without one */
    int on = gr->kind >= 0 && u->r && gr->g.units;
    v->group_units = on ? gr->g.units : NULL;
    v->ngroup_units = on ? gr->g.size : 0;
    v->group_links = on ? gr->g.links : NULL;
    v->ngroup_links = on ? gr->g.nlinks : 0;
}

void ui_group_inspect(ui *u, int unit)
{
    const sim_result *r = u->r;
    for (int d = 0; d < WAFER_NDIR; d++) {
        size_t l = (size_t)unit * WAFER_NDIR + (size_t)d;
        if (!wafer_link_usable(r->wf, unit, d) || r->link_bytes[l] <= 0)
            continue;
        group_load loads[INSPECT_LOADS];
        int n;
        double untraced;
        wt_err e;
        if (group_link_loads(r, l, loads, INSPECT_LOADS, &n, &untraced, &e) != WT_OK) {
            ui_printf(u, "  %c: %s", wafer_dir_char(d), e.msg);
            continue;
        }
        char line[512], b[32];
        int at = snprintf(line, sizeof line, "  %c loaded by", wafer_dir_char(d));
        for (int i = 0; i < n && i < INSPECT_LOADS && at < (int)sizeof line; i++) {
            const group_load *g = &loads[i];
            char who[48];
            if (g->group < 0)
                snprintf(who, sizeof who, "the store");
            else
                snprintf(who, sizeof who, "%s group %d", coll_kind_name(g->kind), g->group);
            at += snprintf(line + at, sizeof line - (size_t)at, "%s %s %s %s", i ? "," : "", r->phases[g->phase].name,
                           who, qty_format(g->bytes, QTY_BYTES, b, sizeof b));
        }
        if (n > INSPECT_LOADS && at < (int)sizeof line)
            at += snprintf(line + at, sizeof line - (size_t)at, ", %d more", n - INSPECT_LOADS);
        if (untraced > 0 && at < (int)sizeof line)
            snprintf(line + at, sizeof line - (size_t)at, " (%s around faults, not traced)",
                     qty_format(untraced, QTY_BYTES, b, sizeof b));
        ui_print(u, line);
    }
}
