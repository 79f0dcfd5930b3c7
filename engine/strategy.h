/*
 * strategy.h - a point of the 5-D space (DP, TP, SP, PP, TATP) plus the
 * options of docs/MODEL.md section 4.
 *
 * Text forms (case-insensitive, comma or space separated):
 *   "DP8,TATP16"   "dp8 tatp16"   "(8,1,1,1,16)"   "TATP4x8"  (grid W x H on the mesh)
 * Dimensions left out are 1, except DP, which fills the units left over
 * (strategy_resolve).
 */
#ifndef WT_STRATEGY_H
#define WT_STRATEGY_H

#include <stddef.h>

#include "choice.h"
#include "err.h"
#include "model.h"
#include "coll_algo.h"
#include "route.h"
#include "wafer.h"

/* Each option's values index one table of rows (choice.h): placements in
 * place.c, collective algorithms in coll_algo.c, routing modes in route.c,
 * the rest in strategy.c. The last value of each enum counts the rows. */
typedef enum place_kind { PLACE_LINEAR = 0, PLACE_SNAKE, PLACE_TILES, PLACE_NKINDS } place_kind;
/* Where the parameters live (docs/MODEL.md, "Weight streaming"): on the
 * units, or in the layout's parameter store, streamed in layer by layer. */
typedef enum exec_mode { EXEC_RESIDENT = 0, EXEC_STREAM, EXEC_NKINDS } exec_mode;
typedef enum grad_compress { GRAD_NONE = 0, GRAD_FP8, GRAD_1BIT, GRAD_NKINDS } grad_compress;

/* Memory switches (any subset): bit i is row i of mem_switch_table. */
enum { MEM_ZERO = 1u, MEM_ACT_INT8 = 2u, MEM_GRAD_FP8 = 4u, MEM_NSWITCHES = 3 };

typedef struct strategy {
    int dp, tp, sp, pp, tatp;
    int tatp_w, tatp_h;        /* TATP grid: extent in x and in y, tatp_w * tatp_h = tatp */
    int dp_given, grid_given;  /* set by the text; otherwise strategy_resolve chooses */
    place_kind placement;
    coll_algo collective;
    route_mode routing;
    model_recompute checkpoint;
    unsigned mem;              /* MEM_ZERO | MEM_ACT_INT8 | MEM_GRAD_FP8 */
    grad_compress grad;
    double chunk;              /* tensor streaming chunk, bytes, 0 = off */
    int sub_w, sub_h;          /* communication subgroup for hier, units */
    int tp_seqpar;             /* Megatron sequence parallelism inside TP */
    exec_mode exec;            /* resident, or streamed from the layout's store */
} strategy;

/* Everything 1 and the default options (tiles, ring, xy, no checkpointing,
 * no memory switches, no compression, no streaming, 8x8 subgroups, seqpar on). */
void strategy_defaults(strategy *s);
/* The strategy commands use when neither the user nor the layout names one. */
#define STRATEGY_DEFAULT_TEXT "DP8,TATP16"

/* Parses the dimensions of text into s (options untouched). */
int strategy_parse(const char *text, strategy *s, wt_err *e);

/* Sets one option by name: placement, collective, routing, checkpoint, mem,
 * grad-compress, chunk, subgroup, tp-seqpar, exec. Errors name the option. */
int strategy_set_option(strategy *s, const char *name, const char *value, wt_err *e);
/* A strategy and its options from one text "TEXT;name=value;..." (a
 * layout's recommended strategy, wafer.strategy), on top of the defaults. */
int strategy_spec(const char *spec, strategy *s, wt_err *e);
/* The options part of such a text, "name=value;name=value" (empty parts
 * skipped), onto s in order. */
int strategy_set_options(const char *opts, strategy *s, wt_err *e);
/* The strategy wf recommends (STRATEGY_DEFAULT_TEXT when it names none)
 * into s, on top of the defaults; errors start "layout NAME: strategy:". */
int strategy_of_layout(const wafer *wf, strategy *s, wt_err *e);

/* Fills DP and the TATP grid when not given and checks every constraint of
 * docs/MODEL.md section 4 against the model and the live units (exec
 * stream: the wafer has a store, PP is 1). */
int strategy_resolve(strategy *s, const model *m, const wafer *wf, wt_err *e);
/* 1 when tp-seqpar can be on: TP divides the tokens of a sequence shard
 * (seq / SP), which it shards; the one rule strategy_resolve checks and
 * the search follows. */
int strategy_seqpar_fits(const model *m, int tp, int sp);

int strategy_units(const strategy *s); /* DP * TP * SP * PP * TATP */

/* "DP8,TATP16" style: dimensions > 1 (and DP whenever the text gave it), the
 * TATP grid as "TATP4x8" when the text gave it, "DP1" when everything is 1.
 * Parsing the result gives the same strategy. */
char *strategy_format(const strategy *s, char *buf, size_t n);

/* The tables strategy.c holds (choice.h): checkpointing (model_recompute),
 * gradient compression (grad_compress), memory switches (bit i, row i). */
choice_table recompute_table(void);
choice_table grad_compress_table(void);
choice_table mem_switch_table(void);
choice_table exec_mode_table(void);
const char *exec_mode_name(exec_mode x);
const char *recompute_name(model_recompute r);
const char *grad_compress_name(grad_compress g);
/* "zero,act_int8,grad_fp8" subset, or "none". */
char *mem_switches_format(unsigned mem, char *buf, size_t n);

/* The default TATP grid for n units on a w x h mesh: the squarest W x H that
 * fits, the wider one when two are as square; 0 when none fits. */
int strategy_default_grid(int n, int mesh_w, int mesh_h, int *gw, int *gh);

#endif
