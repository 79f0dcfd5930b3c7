/*
 * net.c - the table of network models (contract in net.h).
 */
#include "net.h"

#include <assert.h>

#include "net_int.h"

static const net_model net_models[] = {
    {{"fluid", 0}, "traffic that runs at once shares links max-min: the DP all-reduce's buckets beside the backward, ZeRO gathers beside the layer before",
     net_bottleneck_passes_s, net_fluid_time_step, net_fluid_flows_time},
    {{"bottleneck", 0}, "each pass takes its busiest link's load over its bandwidth; phases run one after another",
     net_bottleneck_passes_s, net_bottleneck_time_step, net_bottleneck_flows_time},
};

choice_table net_model_table(void)
{
    return CHOICE_TABLE(net_models);
}

const net_model *net_model_default(void)
{
    return &net_models[0];
}

const net_model *net_model_find(const char *name)
{
    int i = choice_find(net_model_table(), name);
    return i < 0 ? NULL : &net_models[i];
}

const net_model *net_model_at(int i)
{
    assert(i >= 0 && i < net_model_table().n);
    return &net_models[i];
}
