/*
 * fuzz_model.c - the model loader (engine/model_file.c): any bytes as a
 * model file. Refused: one line starting with the file's path. Accepted: a
 * shape model_check passes, whose parameters and step FLOPs are positive and
 * finite (what every figure divides by).
 */
#include <math.h>

#include "fuzz.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    model m;
    wt_err e = {{0}};
    if (model_load(path, &m, &e) != WT_OK) {
        fuzz_check_err(&e, path);
        return 0;
    }
    if (model_check(&m, &e) != WT_OK)
        fuzz_die("a loaded model fails its check: %s", e.msg);
    double params = model_params(&m), flops = model_step_flops(&m, RECOMPUTE_FULL);
    if (!(params > 0 && isfinite(params) && flops > 0 && isfinite(flops)))
        fuzz_die("model %s: %g parameters, %g FLOPs a step", m.name, params, flops);
    return 0;
}
