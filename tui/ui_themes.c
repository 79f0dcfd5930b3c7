/*
 * ui_themes.c - the themes the screen cycles through with `t`: the built-in
 * default, every .yaml file of ROOT/themes by name, and the one --theme names.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "ui.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the theme at path unless one of that name is there; a broken file is
 * reported in the status line. Returns its index, or -1. */
static int add_theme(ui *u, const char *path)
{
    theme t;
    wt_err e;
    if (theme_load(path, &t, &e) != WT_OK) {
        ui_status(u, 1, "%s (the default theme is used)", e.msg);
        return -1;
    }
    for (int i = 0; i < u->nthemes; i++)
        if (!strcmp(u->themes[i].name, t.name)) { /* a later file of the same name wins */
            u->themes[i] = t;
            return i;
        }
    if (u->nthemes == UI_MAX_THEMES) {
        ui_status(u, 1, "%s: more than %d themes; this one is left out", path, UI_MAX_THEMES);
        return -1;
    }
    u->themes[u->nthemes] = t;
    return u->nthemes++;
}

void ui_load_themes(ui *u, const char *want)
{
    theme_default(&u->themes[0]);
    u->nthemes = 1;
    u->theme = 0;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/themes", u->root);
    DIR *d = opendir(dir);
    char *names[64];
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d)) && n < 64;) {
        size_t len = strlen(de->d_name);
        if (len > 5 && !strcmp(de->d_name + len - 5, ".yaml") && (names[n] = strdup(de->d_name)))
            n++;
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        add_theme(u, path);
        free(names[i]);
    }
    if (!want)
        return;
    char path[1024];
    wt_err e;
    if (datadir_resolve(u->root, "themes", "theme", want, path, sizeof path, &e) != WT_OK) {
        ui_status(u, 1, "--theme: %s (the default theme is used)", e.msg);
        return;
    }
    int at = add_theme(u, path);
    if (at >= 0)
        u->theme = at;
}

void ui_next_theme(ui *u)
{
    u->theme = (u->theme + 1) % u->nthemes;
    ui_status(u, 0, "theme %s", u->themes[u->theme].name);
}
