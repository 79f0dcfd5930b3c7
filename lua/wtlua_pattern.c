/*
 * wtlua_pattern.c - string.find, match, gmatch and gsub charged to the
 * budget before they run.
 *
 * Lua's matcher backtracks in C, out of the count hook's reach:
 * ("a"):rep(60):find(("a?"):rep(60) .. ("a"):rep(60)) runs for hours. So
 * each call is charged, before the original runs, a bound on the steps the
 * matcher can take: what it takes when it matches nowhere and so tries
 * every start and every choice. The bound is exact enough to be cheap for
 * the patterns scripts use, since it reads the subject: a quantified item
 * can only expand over the run of characters its class matches there.
 *
 * For item i at subject position s, cnt(i, s) bounds the steps of the
 * matcher from there (cnt(past the last item, s) = 1):
 *   a class x:      w + [x matches s[s]] cnt(i+1, s+1)        (w: the class's length)
 *   x? :            that, plus cnt(i+1, s)
 *   x* and x- :     w (1 + r) + sum cnt(i+1, s..s+r)          (r: the run of x from s)
 *   x+ :            w (1 + r) + sum cnt(i+1, s+1..s+r)
 *   ( ) () %f[set]: w + cnt(i+1, s)
 *   %bxy, %1..%9:   1 + (n - s) + max cnt(i+1, t >= s)        (one end, unknown here)
 * Items are walked from the last, each over s from the end of the subject,
 * with suffix sums of the item after it: O(items x subject) time and 16
 * bytes of scratch per subject byte, inside the memory cap. A call is
 * charged the sum over the starts it tries (one when anchored; find and
 * match stop at the first that matches); the matcher's steps count as
 * instructions. A plain find is charged its pattern's length per start.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "wtlua_int.h"

/* Above this a bound is infinite: no budget (at most 1e15) covers it, and
 * sums of doubles stay exact to a few units below it. */
#define BOUND_MAX 1e17

/* One item of a pattern as the matcher reads it. */
typedef struct pat_item {
    const char *p, *ep; /* its text [p, ep): for a class without its quantifier */
    char kind;          /* 'c' class, '(' or ')' capture, '$' end, 'b' %bxy, 'f' %f[set], 'r' %1..%9 */
    char quant;         /* 0, '?', '*', '+' or '-' */
} pat_item;

/* The end of the class at p (a character, %x or a set), raising Lua's
 * errors for a malformed one. */
static const char *class_end(lua_State *L, const char *p, const char *end)
{
    char c = *p++;
    if (c == '%') {
        if (p >= end)
            luaL_error(L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (p < end && *p == '^')
            p++;
        do { /* the first character is the set's, even a ']' */
            if (p >= end)
                luaL_error(L, "malformed pattern (missing ']')");
            if (*p++ == '%' && p < end)
                p++;
        } while (p >= end || *p != ']');
        return p + 1;
    }
    return p;
}

/* Splits the pattern [p, end) into it[] (room for end - p); returns how
 * many. */
static int parse_items(lua_State *L, const char *p, const char *end, pat_item *it)
{
    int n = 0;
    while (p < end) {
        pat_item *t = &it[n++];
        t->p = p;
        t->quant = 0;
        t->kind = 'c';
        if (*p == '(' || *p == ')') {
            t->kind = *p;
            p += *p == '(' && p + 1 < end && p[1] == ')' ? 2 : 1;
        } else if (*p == '$' && p + 1 == end) {
            t->kind = '$';
            p++;
        } else if (*p == '%' && p + 1 < end && p[1] == 'b') {
            if (p + 4 > end)
                luaL_error(L, "malformed pattern (missing arguments to '%%b')");
            t->kind = 'b';
            p += 4;
        } else if (*p == '%' && p + 1 < end && p[1] == 'f') {
            p += 2;
            if (p >= end || *p != '[')
                luaL_error(L, "missing '[' after '%%f' in pattern");
            t->kind = 'f';
            t->p = p;
            p = class_end(L, p, end);
        } else if (*p == '%' && p + 1 < end && isdigit((unsigned char)p[1])) {
            t->kind = 'r';
            p += 2;
        } else {
            p = class_end(L, p, end);
            if (p < end && (*p == '?' || *p == '*' || *p == '+' || *p == '-')) {
                t->ep = p;
                t->quant = *p++;
                continue;
            }
        }
        t->ep = p;
    }
    return n;
}

/* Whether c is in the class %cl. */
static int class_has(int c, int cl)
{
    int r;
    switch (tolower(cl)) {
    case 'a': r = isalpha(c); break;
    case 'c': r = iscntrl(c); break;
    case 'd': r = isdigit(c); break;
    case 'g': r = isgraph(c); break;
    case 'l': r = islower(c); break;
    case 'p': r = ispunct(c); break;
    case 's': r = isspace(c); break;
    case 'u': r = isupper(c); break;
    case 'w': r = isalnum(c); break;
    case 'x': r = isxdigit(c); break;
    default: return cl == c;
    }
    return isupper(cl) ? !r : r != 0;
}

/* Whether c is in the class of item t (a character, ., %x or a set). */
static int item_has(const pat_item *t, int c)
{
    const char *p = t->p, *last = t->ep - 1; /* a set's ']' */
    if (*p == '.')
        return 1;
    if (*p == '%')
        return class_has(c, (unsigned char)p[1]);
    if (*p != '[')
        return (unsigned char)*p == c;
    int in = 1;
    if (p[1] == '^') {
        in = 0;
        p++;
    }
    while (++p < last) {
        if (*p == '%') {
            if (class_has(c, (unsigned char)*++p))
                return in;
        } else if (p[1] == '-' && p + 2 < last) {
            p += 2;
            if ((unsigned char)p[-2] <= c && c <= (unsigned char)*p)
                return in;
        } else if ((unsigned char)*p == c) {
            return in;
        }
    }
    return !in;
}

/* What each start of a match costs at most: the starts are lo .. n. */
typedef struct pat_cost {
    const double *sum; /* sum[j]: the starts lo + j .. n together (sum[n - lo + 1] = 0); NULL: each costs `each` */
    double each;
    size_t lo, n;
} pat_cost;

/* The bound of starts lo + a .. lo + b - 1 together; HUGE_VAL when above
 * BOUND_MAX. */
static double cost_of(const pat_cost *c, size_t a, size_t b)
{
    if (b <= a)
        return 0;
    double v = c->sum ? c->sum[a] - c->sum[b] : c->each * (double)(b - a);
    return v <= BOUND_MAX ? v : HUGE_VAL;
}

/* Fills c for pattern [p, p + lp) in subject s[0..n) from lo <= n, as
 * above; its scratch is userdata left on the stack. */
static void pattern_costs(lua_State *L, const char *s, size_t n, size_t lo, const char *p, size_t lp, pat_cost *c)
{
    pat_item *it = lua_newuserdatauv(L, (lp + 1) * sizeof *it, 0);
    int k = parse_items(L, p, p + lp, it), simple = 1;
    for (int i = 0; i < k; i++)
        simple &= !it[i].quant && it[i].kind != 'b' && it[i].kind != 'r';
    *c = (pat_cost){NULL, (double)(lp + 1), lo, n};
    if (simple) /* no choices: each start walks the pattern once */
        return;
    /* next[j]: the sum of cnt(i+1, lo + j'..n) over j' >= j; next[m - 1] = 0 */
    size_t m = n - lo + 2;
    double *next = lua_newuserdatauv(L, 2 * m * sizeof(double), 0), *cur = next + m;
    next[m - 1] = 0;
    for (size_t j = m - 1; j-- > 0;)
        next[j] = next[j + 1] + 1;
    for (int i = k; i-- > 0;) {
        const pat_item *t = &it[i];
        double w = (double)(t->ep - t->p), peak = 0;
        size_t run = 0;
        cur[m - 1] = 0;
        for (size_t j = m - 1; j-- > 0;) {
            size_t at = lo + j;
            double after = next[j] - next[j + 1], v;
            peak = after > peak ? after : peak;
            int has = at < n && t->kind == 'c' && item_has(t, (unsigned char)s[at]);
            run = has ? run + 1 : 0;
            switch (t->kind == 'c' ? t->quant : t->kind) {
            case 0: v = w + (has ? next[j + 1] - next[j + 2] : 0); break;
            case '?': v = w + (has ? next[j + 1] - next[j + 2] : 0) + after; break;
            case '*':
            case '-': v = w * (double)(1 + run) + next[j] - next[j + run + 1]; break;
            case '+': v = run ? w * (double)(1 + run) + next[j + 1] - next[j + run + 1] : w; break;
            case '$': v = 1; break;
            case 'b':
            case 'r': v = 1 + (double)(n - at) + peak; break;
            default: v = w + after; break; /* captures and %f */
            }
            cur[j] = cur[j + 1] + v;
            if (!(cur[j] <= BOUND_MAX)) /* and so every start before it */
                cur[j] = HUGE_VAL;
        }
        double *swap = next;
        next = cur;
        cur = swap;
    }
    c->sum = next;
}

/* The start, from 0, that an init argument at idx gives in a subject of n
 * bytes, as lstrlib reads it (n + 1: past the end, no match is tried). */
static size_t start_at(lua_State *L, int idx, size_t n)
{
    lua_Integer i = luaL_optinteger(L, idx, 1);
    if (i > 0)
        return (lua_Unsigned)i - 1 > n ? n + 1 : (size_t)(i - 1);
    if (i == 0 || (lua_Unsigned)0 - (lua_Unsigned)i > n)
        return 0;
    return n - (size_t)((lua_Unsigned)0 - (lua_Unsigned)i);
}

/* Calls the original at upvalue fn with the call's first nargs arguments
 * (what is above them stays); returns how many results it pushed. */
static int call_original(lua_State *L, int fn, int nargs)
{
    int base = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(fn));
    for (int i = 1; i <= nargs; i++)
        lua_pushvalue(L, i);
    lua_call(L, nargs, LUA_MULTRET);
    return lua_gettop(L) - base;
}

/* Whether find takes the pattern as plain text: its fourth argument, or no
 * special characters in it. */
static int plain_find(lua_State *L, const char *p, size_t lp)
{
    if (lua_toboolean(L, 4))
        return 1;
    for (size_t i = 0; i < lp; i++)
        if (p[i] && strchr("^$*+?.([%-", p[i]))
            return 0;
    return 1;
}

/* string.find and string.match, upvalue 1 the original find. Only the starts the matcher tries
 * are charged, up to the first that matches, so a loop that scans a
 * subject with find(p, i) costs about one pass: when the budget covers
 * every start, the original runs and is charged after, up to where it
 * matched; when it does not, the starts run one by one, anchored ("^" ..
 * p at each), each charged before, until one matches or the budget ends.
 * match then turns find's answer into its own: the captures, or the
 * matched text without them. */
static int find_or_match(lua_State *L, int is_match)
{
    size_t n, lp;
    const char *s = luaL_checklstring(L, 1, &n), *p = luaL_checklstring(L, 2, &lp);
    size_t lo = start_at(L, 3, n);
    int nargs = lua_gettop(L) < 4 ? lua_gettop(L) : 4, plain = !is_match && plain_find(L, p, lp);
    if (is_match)
        nargs = nargs < 3 ? nargs : 3;
    if (lo > n)
        return call_original(L, 1, nargs);
    int anchored = !plain && lp > 0 && *p == '^';
    pat_cost c = {NULL, (double)(lp + 1), lo, n};
    if (!plain)
        pattern_costs(L, s, n, lo, p + anchored, lp - anchored, &c);
    size_t starts = anchored ? 1 : n - lo + 1;
    wtlua *W = wtlua_of(L);
    int nres;
    if (W->spent + cost_of(&c, 0, starts) <= W->opts.budget) {
        nres = call_original(L, 1, nargs);
        lua_Integer at = lua_tointeger(L, -nres); /* 1-based start, 0 for nil */
        wtlua_charge(L, cost_of(&c, 0, at > 0 ? (size_t)at - lo : starts));
    } else {
        lua_pushliteral(L, "^");
        lua_pushvalue(L, 2);
        lua_concat(L, 2);
        int anchor = lua_gettop(L);
        nres = 1;
        for (size_t j = 0; j < starts; j++) {
            wtlua_charge(L, cost_of(&c, j, j + 1));
            lua_settop(L, anchor);
            lua_pushvalue(L, lua_upvalueindex(1));
            lua_pushvalue(L, 1);
            lua_pushvalue(L, anchor);
            lua_pushinteger(L, (lua_Integer)(lo + j + 1));
            lua_call(L, 3, LUA_MULTRET);
            if (!lua_isnil(L, anchor + 1)) {
                nres = lua_gettop(L) - anchor;
                break;
            }
        }
    }
    if (!is_match || lua_isnil(L, -nres))
        return nres;
    if (nres > 2) /* the captures */
        return nres - 2;
    lua_Integer from = lua_tointeger(L, -2), to = lua_tointeger(L, -1);
    lua_pushlstring(L, s + from - 1, (size_t)(to - from + 1));
    return 1;
}

static int charged_find(lua_State *L)
{
    return find_or_match(L, 0);
}

static int charged_match(lua_State *L)
{
    return find_or_match(L, 1);
}

/* Charges every start of matching the pattern at 2 in the subject at 1
 * from lo, one when anchored (never in gmatch): gmatch's whole iteration
 * when the iterator is made, gsub's before it runs. */
static void charge_all(lua_State *L, size_t lo, int may_anchor)
{
    size_t n, lp;
    const char *s = luaL_checklstring(L, 1, &n), *p = luaL_checklstring(L, 2, &lp);
    if (lo > n)
        return;
    int anchored = may_anchor && lp > 0 && *p == '^';
    pat_cost c;
    pattern_costs(L, s, n, lo, p + anchored, lp - anchored, &c);
    wtlua_charge(L, cost_of(&c, 0, anchored ? 1 : n - lo + 1));
}

static int charged_gmatch(lua_State *L)
{
    size_t n;
    luaL_checklstring(L, 1, &n);
    int nargs = lua_gettop(L) < 3 ? lua_gettop(L) : 3;
    charge_all(L, start_at(L, 3, n), 0);
    return call_original(L, 1, nargs);
}

/* The matches, plus one replacement at every start: its length for a
 * string, one call for a table or a function (whose own work the hook
 * counts). */
static int charged_gsub(lua_State *L)
{
    size_t n, lr = 0;
    luaL_checklstring(L, 1, &n);
    int nargs = lua_gettop(L) < 4 ? lua_gettop(L) : 4;
    if (lua_type(L, 3) == LUA_TSTRING)
        lua_tolstring(L, 3, &lr);
    charge_all(L, 0, 1);
    wtlua_charge(L, (double)(n + 1) * (double)(lr + 1));
    return call_original(L, 1, nargs);
}

void wtlua_open_patterns(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"find", charged_find}, {"match", charged_match}, {"gmatch", charged_gmatch}, {"gsub", charged_gsub},
        {NULL, NULL}};
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_getfield(L, -1, f->func == charged_match ? "find" : f->name);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, -2, f->name);
    }
}
