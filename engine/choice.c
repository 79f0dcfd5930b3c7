#include "choice.h"

#include <assert.h>
#include <string.h>
#include <strings.h>

const choice *choice_at(choice_table t, int i)
{
    assert(i >= 0 && i < t.n);
    return (const choice *)((const char *)t.rows + (size_t)i * t.stride);
}

int choice_find(choice_table t, const char *word)
{
    for (int i = 0; word && i < t.n; i++)
        if (strcasecmp(choice_at(t, i)->name, word) == 0)
            return i;
    return -1;
}

char *choice_join(choice_table t, unsigned need, const char *sep, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < t.n; i++) {
        const choice *c = choice_at(t, i);
        if ((c->flags & need) != need)
            continue;
        const char *parts[2] = {len ? sep : "", c->name};
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(parts[k]);
            if (len + n >= size)
                n = size - 1 - len;
            memcpy(buf + len, parts[k], n);
            len += n;
            buf[len] = '\0';
        }
    }
    return buf;
}

unsigned choice_mask(choice_table t, unsigned need)
{
    assert(t.n <= 32);
    unsigned mask = 0;
    for (int i = 0; i < t.n; i++)
        if ((choice_at(t, i)->flags & need) == need)
            mask |= 1u << i;
    return mask;
}

int choice_fail(choice_table t, const char *what, const char *word, wt_err *e)
{
    char list[256];
    return wt_fail(e, "%s '%s' is not one of %s", what, word, choice_join(t, 0, ", ", list, sizeof list));
}
