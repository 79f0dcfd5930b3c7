/*
 * net.c - the table of network models (contract in net.h).
 */
#include "net.h"

#include <string.h>

#include "net_int.h"

const net_model net_models[] = {
    {"bottleneck", "each pass takes its busiest link's load over its bandwidth; phases run one after another",
     net_bottleneck_passes_s, net_bottleneck_time_step},
};
const int net_nmodels = (int)(sizeof net_models / sizeof net_models[0]);

const net_model *net_model_default(void)
{
    return &net_models[0];
}

const net_model *net_model_find(const char *name)
{
    for (int i = 0; i < net_nmodels; i++)
        if (!strcmp(net_models[i].name, name))
            return &net_models[i];
    return NULL;
}
