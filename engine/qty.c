/*
 * qty.c - quantities with units: "2 TB/s", "440 MB", "1.5 us", "362 TFLOPS".
 *
 * Numbers are read and written by hand rather than with strtod/printf("%g"),
 * because both follow LC_NUMERIC and the program sets the locale for curses.
 */
#include "qty.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
    QTY_LIST = 1, /* named in "expected one of ..." */
    QTY_FMT = 2   /* used by qty_format */
};

/* A unit is 10^p10 * mul of the SI base (mul is a power of two or 1). */
typedef struct qty_unit {
    const char *name;
    int p10;
    double mul;
    int flags;
} qty_unit;

#define QTY_KI 1024.0
#define QTY_MI (QTY_KI * QTY_KI)
#define QTY_GI (QTY_MI * QTY_KI)
#define QTY_TI (QTY_GI * QTY_KI)

static const qty_unit qty_bytes[] = {
    {"B", 0, 1, QTY_LIST | QTY_FMT},   {"KB", 3, 1, QTY_LIST | QTY_FMT},
    {"MB", 6, 1, QTY_LIST | QTY_FMT},  {"GB", 9, 1, QTY_LIST | QTY_FMT},
    {"TB", 12, 1, QTY_LIST | QTY_FMT}, {"KiB", 0, QTY_KI, QTY_LIST},
    {"MiB", 0, QTY_MI, QTY_LIST},      {"GiB", 0, QTY_GI, QTY_LIST},
    {"TiB", 0, QTY_TI, QTY_LIST},      {NULL, 0, 0, 0},
};

static const qty_unit qty_bandwidth[] = {
    {"B/s", 0, 1, QTY_LIST | QTY_FMT},   {"KB/s", 3, 1, QTY_LIST | QTY_FMT},
    {"MB/s", 6, 1, QTY_LIST | QTY_FMT},  {"GB/s", 9, 1, QTY_LIST | QTY_FMT},
    {"TB/s", 12, 1, QTY_LIST | QTY_FMT}, {"KiB/s", 0, QTY_KI, QTY_LIST},
    {"MiB/s", 0, QTY_MI, QTY_LIST},      {"GiB/s", 0, QTY_GI, QTY_LIST},
    {"TiB/s", 0, QTY_TI, QTY_LIST},      {NULL, 0, 0, 0},
};

static const qty_unit qty_time[] = {
    {"s", 0, 1, QTY_LIST | QTY_FMT},
    {"ms", -3, 1, QTY_LIST | QTY_FMT},
    {"us", -6, 1, QTY_LIST | QTY_FMT},
    {"\xc2\xb5s", -6, 1, QTY_LIST}, /* U+00B5 MICRO SIGN */
    {"\xce\xbcs", -6, 1, 0},        /* U+03BC GREEK SMALL LETTER MU, looks the same */
    {"ns", -9, 1, QTY_LIST | QTY_FMT},
    {NULL, 0, 0, 0},
};

static const qty_unit qty_flops[] = {
    {"FLOPS", 0, 1, QTY_LIST | QTY_FMT},   {"GFLOPS", 9, 1, QTY_LIST | QTY_FMT},
    {"TFLOPS", 12, 1, QTY_LIST | QTY_FMT}, {"PFLOPS", 15, 1, QTY_LIST | QTY_FMT},
    {NULL, 0, 0, 0},
};

static const qty_unit qty_token_rate[] = {
    {"tokens/s", 0, 1, QTY_FMT},   {"k tokens/s", 3, 1, QTY_FMT}, {"M tokens/s", 6, 1, QTY_FMT},
    {"G tokens/s", 9, 1, QTY_FMT}, {NULL, 0, 0, 0},
};

static const qty_unit *qty_units(qty_kind k)
{
    switch (k) {
    case QTY_BYTES: return qty_bytes;
    case QTY_BANDWIDTH: return qty_bandwidth;
    case QTY_TIME: return qty_time;
    case QTY_FLOPS: return qty_flops;
    case QTY_TOKEN_RATE: return qty_token_rate;
    }
    return qty_bytes;
}

static int qty_isdigit(char c) { return c >= '0' && c <= '9'; }
static int qty_isblank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* 10^e as a double; exact for |e| <= 22, where one multiplication or division
 * by it rounds correctly. */
static double qty_pow10(int e)
{
    static const double exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (e >= 0 && e <= 22)
        return exact[e];
    return pow(10.0, e);
}

/* Reads [+-]digits[.digits][(e|E)[+-]digits] at s and stores its value times
 * 10^shift in *out. The decimal digits and shift are combined before one
 * final rounding, so "4.4" with shift 9 gives exactly 4.4e9. Returns the
 * number of characters read, 0 when s does not start with a number. */
static size_t qty_scan(const char *s, int shift, double *out)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';

    uint64_t mant = 0;
    long exp10 = 0;
    int digits = 0;
    for (; qty_isdigit(*p); p++, digits++) {
        if (mant < UINT64_C(1000000000000000000))
            mant = mant * 10 + (uint64_t)(*p - '0');
        else
            exp10++; /* digits beyond 19 only scale the number */
    }
    if (*p == '.') {
        for (p++; qty_isdigit(*p); p++, digits++) {
            if (mant < UINT64_C(1000000000000000000)) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                exp10--;
            }
        }
    }
    if (digits == 0)
        return 0;

    if ((*p == 'e' || *p == 'E') &&
        (qty_isdigit(p[1]) || ((p[1] == '+' || p[1] == '-') && qty_isdigit(p[2])))) {
        const char *q = p + 1;
        int eneg = 0;
        if (*q == '+' || *q == '-')
            eneg = *q++ == '-';
        long ev = 0;
        for (; qty_isdigit(*q); q++)
            if (ev < 100000)
                ev = ev * 10 + (*q - '0');
        exp10 += eneg ? -ev : ev;
        p = q;
    }

    exp10 += shift;
    double v = (double)mant;
    if (mant == 0)
        v = 0;
    else if (exp10 > 400)
        v = HUGE_VAL;
    else if (exp10 < -400)
        v = 0;
    else if (exp10 >= 0)
        v *= qty_pow10((int)exp10);
    else if (exp10 >= -22)
        v /= qty_pow10((int)-exp10);
    else
        v = v / qty_pow10(22) / qty_pow10((int)(-exp10 - 22));
    *out = neg ? -v : v;
    return (size_t)(p - s);
}

/* ASCII case-insensitive equality, for the "did you mean" hint. */
static int qty_same_letters(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char cb = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

/* Appends the listed units of table t, comma separated, to why. */
static void qty_list(const qty_unit *t, char *why, size_t n)
{
    size_t len = strlen(why);
    for (int i = 0; t[i].name; i++) {
        if (!(t[i].flags & QTY_LIST))
            continue;
        int w = snprintf(why + len, n - len, "%s%s", i ? ", " : "", t[i].name);
        if (w < 0 || (size_t)w >= n - len)
            return;
        len += (size_t)w;
    }
}

/* Explains why unit (of length ulen) is not a unit of kind k. */
static void qty_bad_unit(const char *unit, size_t ulen, qty_kind k, char *why, size_t n)
{
    const qty_unit *t = qty_units(k);
    char u[40];
    if (ulen >= sizeof u)
        snprintf(u, sizeof u, "%.*s...", (int)sizeof u - 4, unit);
    else
        snprintf(u, sizeof u, "%.*s", (int)ulen, unit);

    const char *hint = NULL;
    for (int i = 0; t[i].name && !hint; i++)
        if (qty_same_letters(u, t[i].name))
            hint = t[i].name;
    if (!hint && k == QTY_BANDWIDTH) {
        /* "2 TB" where a bandwidth is wanted: suggest "TB/s". */
        for (int i = 0; qty_bytes[i].name && !hint; i++)
            if (strcmp(u, qty_bytes[i].name) == 0)
                hint = qty_bandwidth[i].name;
    }
    if (hint) {
        snprintf(why, n, "unknown unit '%s', did you mean '%s'?", u, hint);
        return;
    }
    snprintf(why, n, "unknown unit '%s', expected one of ", u);
    qty_list(t, why, n);
}

int qty_parse(const char *s, qty_kind k, double *out, char *why, size_t n)
{
    char scratch[8];
    if (!why || n == 0) {
        why = scratch;
        n = sizeof scratch;
    }
    why[0] = '\0';
    while (qty_isblank(*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && qty_isblank(s[len - 1]))
        len--;
    if (len == 0) {
        snprintf(why, n, "empty, expected a number and a unit");
        return -1;
    }

    double probe;
    size_t used = qty_scan(s, 0, &probe);
    if (used == 0 || (used < len && (qty_isdigit(s[used]) || strchr(".,+-", s[used])))) {
        snprintf(why, n, "not a number");
        return -1;
    }
    const char *unit = s + used;
    while (unit < s + len && qty_isblank(*unit))
        unit++;
    size_t ulen = (size_t)(s + len - unit);
    const qty_unit *t = qty_units(k);
    if (ulen == 0) {
        snprintf(why, n, "missing unit, expected one of ");
        qty_list(t, why, n);
        return -1;
    }

    for (int i = 0; t[i].name; i++) {
        if (strlen(t[i].name) != ulen || memcmp(t[i].name, unit, ulen) != 0)
            continue;
        double v;
        qty_scan(s, t[i].p10, &v);
        v *= t[i].mul;
        if (isinf(v)) {
            snprintf(why, n, "number out of range");
            return -1;
        }
        *out = v;
        return 0;
    }
    qty_bad_unit(unit, ulen, k, why, n);
    return -1;
}

int qty_number(const char *s, double *out)
{
    while (qty_isblank(*s))
        s++;
    double v;
    size_t used = qty_scan(s, 0, &v);
    if (used == 0 || isinf(v))
        return -1;
    for (const char *p = s + used; *p; p++)
        if (!qty_isblank(*p))
            return -1;
    *out = v;
    return 0;
}

/* x * 10^-e for any finite x and e within the doubles' exponents: 10^-e
 * alone may overflow (a subnormal x wants 10^326), so large powers go in two
 * steps. */
static double qty_unscale(double x, int e)
{
    if (e >= 0)
        return x / qty_pow10(e);
    if (-e > 300)
        return x * qty_pow10(300) * qty_pow10(-e - 300);
    return x * qty_pow10(-e);
}

/* Rounds finite x > 0 to three significant digits: x ~= *digits * 10^*e10
 * with 100 <= *digits <= 999. */
static void qty_round3(double x, long long *digits, int *e10)
{
    int e = (int)floor(log10(x)) - 2;
    for (int tries = 0; tries < 3; tries++) {
        long long r = llround(qty_unscale(x, e));
        if (r >= 1000) {
            e++; /* 999.6 rounds up into the next decade */
            continue;
        }
        if (r < 100) {
            e--; /* log10 was off by one below a power of ten */
            continue;
        }
        *digits = r;
        *e10 = e;
        return;
    }
    *digits = 100;
    *e10 = e;
}

/* Writes digits * 10^e10 (100 <= digits <= 999) as a plain decimal with '.'
 * and no trailing zeros after the point; an exponent only for numbers far
 * outside every unit's range. */
static void qty_write_num(long long digits, int e10, char *out, size_t n)
{
    char d[4], tmp[48];
    size_t len = 0;
    snprintf(d, sizeof d, "%lld", digits);
    if (e10 > 15 || e10 < -20) {
        tmp[len++] = d[0];
        if (d[1] != '0' || d[2] != '0') {
            tmp[len++] = '.';
            tmp[len++] = d[1];
            if (d[2] != '0')
                tmp[len++] = d[2];
        }
        snprintf(tmp + len, sizeof tmp - len, "e%d", e10 + 2);
        snprintf(out, n, "%s", tmp);
        return;
    }
    if (e10 >= 0) {
        memcpy(tmp, d, 3);
        len = 3;
        for (int i = 0; i < e10; i++)
            tmp[len++] = '0';
    } else {
        int point = 3 + e10; /* digits before the point; <= 0 means "0.0..." */
        if (point <= 0) {
            tmp[len++] = '0';
            tmp[len++] = '.';
            for (int i = 0; i < -point; i++)
                tmp[len++] = '0';
            memcpy(tmp + len, d, 3);
            len += 3;
        } else {
            memcpy(tmp, d, (size_t)point);
            len = (size_t)point;
            tmp[len++] = '.';
            memcpy(tmp + len, d + point, (size_t)(3 - point));
            len += (size_t)(3 - point);
        }
        while (tmp[len - 1] == '0')
            len--;
        if (tmp[len - 1] == '.')
            len--;
    }
    tmp[len] = '\0';
    snprintf(out, n, "%s", tmp);
}

char *qty_format_number(double v, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (isnan(v) || isinf(v) || v == 0) {
        snprintf(buf, n, "%s", isnan(v) ? "nan" : isinf(v) ? (v < 0 ? "-inf" : "inf") : "0");
        return buf;
    }
    long long digits;
    int e10;
    qty_round3(fabs(v), &digits, &e10);
    char num[48];
    qty_write_num(digits, e10, num, sizeof num);
    snprintf(buf, n, "%s%s", v < 0 ? "-" : "", num);
    return buf;
}

/* Total over the doubles: every finite v is rounded once, in SI, and
 * written in a unit by moving the decimal exponent (every unit it writes is
 * a power of ten), so no scaling can overflow; inf and nan are written in the
 * SI unit. */
char *qty_format(double v, qty_kind k, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    const qty_unit *t = qty_units(k);
    if (isnan(v) || isinf(v)) {
        snprintf(buf, n, "%s %s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf", t[0].name);
        return buf;
    }
    const qty_unit *base = &t[0];
    for (int i = 0; t[i].name; i++)
        if ((t[i].flags & QTY_FMT) && t[i].p10 < base->p10)
            base = &t[i];
    if (v == 0) {
        snprintf(buf, n, "0 %s", base->name);
        return buf;
    }

    long long digits;
    int e10;
    qty_round3(fabs(v), &digits, &e10);
    /* the largest unit in which the rounded number is >= 1 */
    const qty_unit *best = base;
    for (int i = 0; t[i].name; i++) {
        if (!(t[i].flags & QTY_FMT))
            continue;
        assert(t[i].mul == 1);
        if (t[i].p10 > best->p10 && e10 - t[i].p10 >= -2)
            best = &t[i];
    }
    char num[48];
    qty_write_num(digits, e10 - best->p10, num, sizeof num);
    snprintf(buf, n, "%s%s %s", v < 0 ? "-" : "", num, best->name);
    return buf;
}
