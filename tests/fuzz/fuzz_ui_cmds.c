/*
 * fuzz_ui_cmds.c - the `:` command dispatcher (tui/ui_cmds.c): the input's
 * lines, each run as a command on a fresh screen (tests/fuzz/ui-4x4.yaml, a
 * small model), headless as the screen's tests draw it: after each command
 * the step it asked for, then a frame into a canvas. What a command may
 * write (:save, :export) goes to a scratch directory, the working directory
 * while the commands run: a '/' in such a line becomes '_'. Nothing but the
 * status line and the output pane may answer; a command that ends the
 * screen (:quit) ends the input.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ui.h"

#define MAX_LINES 16

/* The first word of line is save or export. */
static int writes_file(const char *line)
{
    line += strspn(line, " ");
    line += *line == '"' || *line == '\'';
    return !strncmp(line, "save", 4) || !strncmp(line, "export", 6);
}

static char dir[64];

/* Removes the scratch directory and the files the commands left in it (no
 * directories: a '/' never reaches a command that writes). */
static void remove_dir(void)
{
    DIR *d = opendir(dir);
    char path[400];
    for (struct dirent *f; d && (f = readdir(d));)
        if (strcmp(f->d_name, ".") && strcmp(f->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* A scratch directory, made once, where the commands run. */
static const char *scratch_dir(void)
{
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%.40s/wt-fuzz-ui-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            fuzz_die("cannot make a scratch directory %s", dir);
        atexit(remove_dir);
    }
    return dir;
}

static ui *open_screen(const char *root)
{
    char layout[1100], model[1100];
    snprintf(layout, sizeof layout, "%s/tests/fuzz/ui-4x4.yaml", root);
    snprintf(model, sizeof model, "%s/tests/fixtures/models/search-small.yaml", root);
    char *words[] = {"--layout", layout, "--model", model};
    ui *u = ui_new(root);
    wt_err e;
    if (!u || cli_parse(4, words, CLI_TUNE | CLI_UI, root, &u->o, &e) != WT_OK ||
        ui_load(u, u->o.layout, u->o.model, 0, NULL, &e) != WT_OK || ui_mark_opened(u, &e) != WT_OK)
        fuzz_die("cannot open the screen on %s: %s", layout, u ? e.msg : "out of memory");
    ui_load_themes(u, NULL);
    if (canvas_resize(&u->cv, 100, 32) != 0)
        fuzz_die("out of memory: canvas");
    return u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *root = fuzz_root();
    char *text = fuzz_text(data, size, '\0');
    if (!text)
        return 0;
    ui *u = open_screen(root);
    if (chdir(scratch_dir()) != 0)
        fuzz_die("cannot enter %s", scratch_dir());
    char *line = text;
    for (int n = 0; line && n < MAX_LINES && !u->quit; n++) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (writes_file(line))
            for (char *p = line; (p = strchr(p, '/')); p++)
                *p = '_';
        ui_command(u, line);
        if (!memchr(u->status, '\0', sizeof u->status) || strchr(u->status, '\n'))
            fuzz_die("a status line of several lines after '%s'", line);
        if (u->S && u->step_wanted)
            ui_step(u);
        ui_sync_view(u);
        ui_group_view(u);
        view_draw(&u->cv, &u->v);
        line = next;
    }
    if (chdir(root) != 0)
        fuzz_die("cannot go back to %s", root);
    ui_free(u);
    free(text);
    return 0;
}
