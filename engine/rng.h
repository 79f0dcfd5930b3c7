/*
 * rng.h - the program's random numbers: xorshift64*, small, fast, and the
 * same sequence on every machine (runs are reproducible from their seed).
 */
#ifndef WT_RNG_H
#define WT_RNG_H

#include <stdint.h>

/* The next number in [0, 1) from state *s (never 0: seed with a non-zero). */
static inline double rng_unit(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

#endif
