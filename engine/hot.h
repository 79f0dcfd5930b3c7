/*
 * hot.h - inlining for the engine's innermost loops.
 *
 * A helper called per link or per flow must melt into its loop: as a call
 * it spills the loop's registers, which costs more than its body. WT_HOT
 * asks for that; WT_COLD keeps a loop, or a rarely taken path, a function
 * of its own (inlined together, loops share one register allocation and
 * spill).
 */
#ifndef WT_HOT_H
#define WT_HOT_H

#if defined(__GNUC__)
#define WT_HOT static inline __attribute__((always_inline))
#define WT_COLD static __attribute__((noinline))
#else
#define WT_HOT static inline
#define WT_COLD static
#endif

#endif
