/* assert_rel(a, b): a and b agree to 1e-9 relative (cmocka tests). */
#ifndef WT_TESTS_ASSERT_REL_H
#define WT_TESTS_ASSERT_REL_H

#include <math.h>

#define REL(a, b) (fabs((a) - (b)) <= 1e-9 * fmax(fabs(a), fabs(b)))
#define assert_rel(a, b)                                                                  \
    do {                                                                                  \
        double a_ = (a), b_ = (b);                                                        \
        if (!REL(a_, b_))                                                                 \
            fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                           \
    } while (0)

#endif
