/*
 * clock.h - seconds on the monotonic clock, for timing what the program
 * does (progress, ETAs, budgets, make bench); never the simulated time.
 */
#ifndef WT_CLOCK_H
#define WT_CLOCK_H

double wt_clock_s(void);

#endif
