/*
 * cmd.h - the subcommands that live in their own files, and what they share
 * with main.c.
 */
#ifndef WT_CMD_H
#define WT_CMD_H

#include <stdlib.h>

#include "cli.h"

/* Prints e's message (when rc is an error and e is not NULL: an MPI rank
 * but rank 0 says nothing) and returns the exit status: 0 ok, 2 bad input,
 * 1 internal error. */
int cmd_exit(int rc, const wt_err *e);
/* The exit status of a search that found nothing that fits: its output says
 * so, and why, as a result (not an error). */
#define CMD_EXIT_NOFIT 3

int cmd_calibrate(int argc, char **argv, const char *root);
int cmd_compare(int argc, char **argv, const char *root);
int cmd_sweep(int argc, char **argv, const char *root);
int cmd_plot(int argc, char **argv, const char *root);
int cmd_tune(int argc, char **argv, const char *root);
int cmd_ui(int argc, char **argv, const char *root);

#endif
