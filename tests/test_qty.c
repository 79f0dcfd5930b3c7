/*
 * test_qty.c - quantities with units: every unit and prefix, spacing,
 * number forms, each rejection with its reason, and formatting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qty.h"

/* Parses s as kind k and checks the value to a relative 1e-12. */
static void check_value(const char *s, qty_kind k, double want)
{
    double v = -12345;
    char why[200] = "";
    if (qty_parse(s, k, &v, why, sizeof why) != 0)
        fail_msg("'%s' rejected: %s", s, why);
    if (fabs(v - want) > 1e-12 * fabs(want))
        fail_msg("'%s' gave %.17g, want %.17g", s, v, want);
}

/* Parses s as kind k, expecting rejection with exactly the reason want. */
static void check_reject(const char *s, qty_kind k, const char *want)
{
    double v = 42;
    char why[200] = "";
    assert_int_equal(qty_parse(s, k, &v, why, sizeof why), -1);
    assert_string_equal(why, want);
    assert_true(v == 42); /* untouched on failure */
}

static void test_bytes_units(void **state)
{
    (void)state;
    check_value("1 B", QTY_BYTES, 1);
    check_value("1 KB", QTY_BYTES, 1e3);
    check_value("1 MB", QTY_BYTES, 1e6);
    check_value("1 GB", QTY_BYTES, 1e9);
    check_value("1 TB", QTY_BYTES, 1e12);
    check_value("1 KiB", QTY_BYTES, 1024.0);
    check_value("1 MiB", QTY_BYTES, 1048576.0);
    check_value("1 GiB", QTY_BYTES, 1073741824.0);
    check_value("1 TiB", QTY_BYTES, 1099511627776.0);
    check_value("440 MB", QTY_BYTES, 440e6);
    check_value("48 KiB", QTY_BYTES, 49152);
    check_value("48.9 KB", QTY_BYTES, 48900);
}

static void test_bandwidth_units(void **state)
{
    (void)state;
    check_value("3 B/s", QTY_BANDWIDTH, 3);
    check_value("3 KB/s", QTY_BANDWIDTH, 3e3);
    check_value("3 MB/s", QTY_BANDWIDTH, 3e6);
    check_value("3 GB/s", QTY_BANDWIDTH, 3e9);
    check_value("3 TB/s", QTY_BANDWIDTH, 3e12);
    check_value("3 KiB/s", QTY_BANDWIDTH, 3 * 1024.0);
    check_value("3 MiB/s", QTY_BANDWIDTH, 3 * 1048576.0);
    check_value("3 GiB/s", QTY_BANDWIDTH, 3 * 1073741824.0);
    check_value("3 TiB/s", QTY_BANDWIDTH, 3 * 1099511627776.0);
    check_value("2 TB/s", QTY_BANDWIDTH, 2e12);
}

static void test_time_units(void **state)
{
    (void)state;
    check_value("2 s", QTY_TIME, 2);
    check_value("2 ms", QTY_TIME, 2e-3);
    check_value("1.5 us", QTY_TIME, 1.5e-6);
    check_value("1.5 \xc2\xb5s", QTY_TIME, 1.5e-6); /* micro sign */
    check_value("1.5 \xce\xbcs", QTY_TIME, 1.5e-6); /* Greek mu */
    check_value("50 ns", QTY_TIME, 50e-9);
    check_value("0 ns", QTY_TIME, 0);
}

static void test_flops_units(void **state)
{
    (void)state;
    check_value("7 FLOPS", QTY_FLOPS, 7);
    check_value("8.8 GFLOPS", QTY_FLOPS, 8.8e9);
    check_value("362 TFLOPS", QTY_FLOPS, 362e12);
    check_value("9 PFLOPS", QTY_FLOPS, 9e15);
}

/* Decimal prefixes are folded into the exponent before rounding, so the
 * results equal the C literals exactly, not just within a tolerance. */
static void test_exact_decimal(void **state)
{
    (void)state;
    double v;
    assert_int_equal(qty_parse("4.4 GB/s", QTY_BANDWIDTH, &v, NULL, 0), 0);
    assert_true(v == 4.4e9);
    assert_int_equal(qty_parse("138.9 GFLOPS", QTY_FLOPS, &v, NULL, 0), 0);
    assert_true(v == 138.9e9);
    assert_int_equal(qty_parse("50 ns", QTY_TIME, &v, NULL, 0), 0);
    assert_true(v == 50e-9);
    assert_int_equal(qty_parse("1.5 us", QTY_TIME, &v, NULL, 0), 0);
    assert_true(v == 1.5e-6);
    assert_int_equal(qty_parse("0.1 ms", QTY_TIME, &v, NULL, 0), 0);
    assert_true(v == 1e-4);
}

static void test_spacing(void **state)
{
    (void)state;
    check_value("2TB/s", QTY_BANDWIDTH, 2e12);
    check_value("2  TB/s", QTY_BANDWIDTH, 2e12);
    check_value("2\tTB/s", QTY_BANDWIDTH, 2e12);
    check_value("  2 TB/s  ", QTY_BANDWIDTH, 2e12);
    check_value("50ns", QTY_TIME, 50e-9);
    check_value("440MB", QTY_BYTES, 440e6);
}

static void test_number_forms(void **state)
{
    (void)state;
    check_value("1e3 B", QTY_BYTES, 1000);
    check_value("1E3 B", QTY_BYTES, 1000);
    check_value("1.5e3 KiB", QTY_BYTES, 1536000);
    check_value("2e-3 s", QTY_TIME, 2e-3);
    check_value("2e+3 s", QTY_TIME, 2e3);
    check_value("1e3B", QTY_BYTES, 1000);
    check_value(".5 KB", QTY_BYTES, 500);
    check_value("5. KB", QTY_BYTES, 5000);
    check_value("+3 B", QTY_BYTES, 3);
    check_value("-3 B", QTY_BYTES, -3); /* the caller decides about signs */
    check_value("007 B", QTY_BYTES, 7);
    check_value("0.000001 TB", QTY_BYTES, 1e6);
    check_value("12345678901234567890123 B", QTY_BYTES, 12345678901234567890123.0);
}

static void test_rejections(void **state)
{
    (void)state;
    const char *bytes = "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB";
    char want[200];

    check_reject("", QTY_BYTES, "empty, expected a number and a unit");
    check_reject("   ", QTY_BYTES, "empty, expected a number and a unit");
    check_reject("MB", QTY_BYTES, "not a number");
    check_reject("lots MB", QTY_BYTES, "not a number");
    check_reject("- 3 MB", QTY_BYTES, "not a number");
    check_reject("1.2.3 MB", QTY_BYTES, "not a number");
    check_reject("1,5 MB", QTY_BYTES, "not a number");
    check_reject("0x10 MB", QTY_BYTES, "unknown unit 'x10 MB', expected one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB");
    check_reject("nan B", QTY_BYTES, "not a number");
    check_reject("inf B", QTY_BYTES, "not a number");
    check_reject("1e999 B", QTY_BYTES, "number out of range");

    snprintf(want, sizeof want, "missing unit, expected one of %s", bytes);
    check_reject("440", QTY_BYTES, want);
    check_reject("1e3", QTY_BYTES, want);
    check_reject("2", QTY_BANDWIDTH,
                  "missing unit, expected one of B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s");
    check_reject("50", QTY_TIME, "missing unit, expected one of s, ms, us, \xc2\xb5s, ns");
    check_reject("362", QTY_FLOPS, "missing unit, expected one of FLOPS, GFLOPS, TFLOPS, PFLOPS");

    /* Case matters; the near miss is named. */
    check_reject("440 mb", QTY_BYTES, "unknown unit 'mb', did you mean 'MB'?");
    check_reject("440 Mb", QTY_BYTES, "unknown unit 'Mb', did you mean 'MB'?");
    check_reject("1 kib", QTY_BYTES, "unknown unit 'kib', did you mean 'KiB'?");
    check_reject("2 Tb/s", QTY_BANDWIDTH, "unknown unit 'Tb/s', did you mean 'TB/s'?");
    check_reject("2 TB", QTY_BANDWIDTH, "unknown unit 'TB', did you mean 'TB/s'?");
    check_reject("5 NS", QTY_TIME, "unknown unit 'NS', did you mean 'ns'?");
    check_reject("362 tflops", QTY_FLOPS, "unknown unit 'tflops', did you mean 'TFLOPS'?");

    /* The wrong kind of unit, or no such unit. */
    snprintf(want, sizeof want, "unknown unit 'TB/s', expected one of %s", bytes);
    check_reject("2 TB/s", QTY_BYTES, want);
    snprintf(want, sizeof want, "unknown unit 'PB', expected one of %s", bytes);
    check_reject("1 PB", QTY_BYTES, want);
    snprintf(want, sizeof want, "unknown unit 'MB extra', expected one of %s", bytes);
    check_reject("1 MB extra", QTY_BYTES, want);
    check_reject("50 MB", QTY_TIME, "unknown unit 'MB', expected one of s, ms, us, \xc2\xb5s, ns");
    check_reject("5 min", QTY_TIME, "unknown unit 'min', expected one of s, ms, us, \xc2\xb5s, ns");
    check_reject("1 MFLOPS", QTY_FLOPS,
                  "unknown unit 'MFLOPS', expected one of FLOPS, GFLOPS, TFLOPS, PFLOPS");
    check_reject("1 TFLOP/s", QTY_FLOPS,
                  "unknown unit 'TFLOP/s', expected one of FLOPS, GFLOPS, TFLOPS, PFLOPS");
    check_reject("1 B/s", QTY_FLOPS,
                  "unknown unit 'B/s', expected one of FLOPS, GFLOPS, TFLOPS, PFLOPS");
}

static void test_reason_is_optional_and_bounded(void **state)
{
    (void)state;
    double v;
    assert_int_equal(qty_parse("440 mb", QTY_BYTES, &v, NULL, 0), -1);
    char tiny[8];
    assert_int_equal(qty_parse("440", QTY_BYTES, &v, tiny, sizeof tiny), -1);
    assert_string_equal(tiny, "missing");
    char longunit[80];
    memset(longunit, 'x', sizeof longunit);
    longunit[0] = '1';
    longunit[sizeof longunit - 1] = '\0';
    char why[200];
    assert_int_equal(qty_parse(longunit, QTY_BYTES, &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown unit 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"));
}

static void test_number(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(qty_number("0.8", &v), 0);
    assert_true(v == 0.8);
    assert_int_equal(qty_number(" 1 ", &v), 0);
    assert_true(v == 1);
    assert_int_equal(qty_number("1e-1", &v), 0);
    assert_true(v == 0.1);
    assert_int_equal(qty_number("-2", &v), 0);
    assert_true(v == -2);
    v = 7;
    assert_int_equal(qty_number("", &v), -1);
    assert_int_equal(qty_number("abc", &v), -1);
    assert_int_equal(qty_number("0.8x", &v), -1);
    assert_int_equal(qty_number("80%", &v), -1);
    assert_int_equal(qty_number("0,8", &v), -1);
    assert_int_equal(qty_number("1e999", &v), -1);
    assert_true(v == 7);
}

static void check_format(double v, qty_kind k, const char *want)
{
    char buf[64];
    assert_string_equal(qty_format(v, k, buf, sizeof buf), want);
}

static void test_format(void **state)
{
    (void)state;
    check_format(2e12, QTY_BANDWIDTH, "2 TB/s");
    check_format(4.4e9, QTY_BANDWIDTH, "4.4 GB/s");
    check_format(562.5e9, QTY_BANDWIDTH, "563 GB/s");
    check_format(440e6, QTY_BYTES, "440 MB");
    check_format(48e3, QTY_BYTES, "48 KB");
    check_format(1234, QTY_BYTES, "1.23 KB");
    check_format(999, QTY_BYTES, "999 B");
    check_format(999.9e9, QTY_BYTES, "1 TB"); /* rounding moves it up a unit */
    check_format(0.5, QTY_BYTES, "0.5 B");
    check_format(0.001234, QTY_BYTES, "0.00123 B");
    check_format(1e16, QTY_BYTES, "10000 TB");
    check_format(0, QTY_BYTES, "0 B");
    check_format(1.5e-6, QTY_TIME, "1.5 us");
    check_format(50e-9, QTY_TIME, "50 ns");
    check_format(0.25e-9, QTY_TIME, "0.25 ns");
    check_format(120, QTY_TIME, "120 s");
    check_format(1234, QTY_TIME, "1230 s");
    check_format(0.0105, QTY_TIME, "10.5 ms");
    check_format(0, QTY_TIME, "0 ns");
    check_format(362e12, QTY_FLOPS, "362 TFLOPS");
    check_format(9.05e15, QTY_FLOPS, "9.05 PFLOPS");
    check_format(138.9e9, QTY_FLOPS, "139 GFLOPS");
    check_format(5e6, QTY_FLOPS, "5000000 FLOPS");
    check_format(-2e12, QTY_BANDWIDTH, "-2 TB/s");
    check_format(1e30, QTY_BYTES, "1e18 TB");
    check_format(1.23e-30, QTY_TIME, "1.23e-21 ns");

    char small[4];
    assert_string_equal(qty_format(2e12, QTY_BANDWIDTH, small, sizeof small), "2 T");
}

/* Every double has a text: inf and nan in the SI unit, values beyond every
 * unit with an exponent (1e300 s overflowed in nanoseconds, and (int) of
 * log10(inf) was undefined behaviour, which UBSan stops on). */
static void test_format_total(void **state)
{
    (void)state;
    check_format(INFINITY, QTY_TIME, "inf s");
    check_format(-INFINITY, QTY_BANDWIDTH, "-inf B/s");
    check_format(NAN, QTY_TIME, "nan s");
    check_format(NAN, QTY_BYTES, "nan B");
    check_format(INFINITY, QTY_FLOPS, "inf FLOPS");
    check_format(INFINITY, QTY_TOKEN_RATE, "inf tokens/s");
    check_format(1e300, QTY_TIME, "1e300 s");
    check_format(-1e300, QTY_TIME, "-1e300 s");
    check_format(DBL_MAX, QTY_BYTES, "1.8e296 TB"); /* 1.797...e308 */
    check_format(1e300, QTY_FLOPS, "1e285 PFLOPS");
    check_format(DBL_MIN, QTY_TIME, "2.23e-299 ns"); /* 2.225...e-308 */
    check_format(4.9406564584124654e-324, QTY_TIME, "4.94e-315 ns"); /* the least subnormal */
    check_format(1.5e17, QTY_TOKEN_RATE, "150000000 G tokens/s");

    char small[4];
    assert_string_equal(qty_format(INFINITY, QTY_TIME, small, sizeof small), "inf");

    /* plain numbers, as the layout ranges' messages write their bounds */
    char buf[48];
    assert_string_equal(qty_format_number(0.01, buf, sizeof buf), "0.01");
    assert_string_equal(qty_format_number(1, buf, sizeof buf), "1");
    assert_string_equal(qty_format_number(-2.5, buf, sizeof buf), "-2.5");
    assert_string_equal(qty_format_number(123456, buf, sizeof buf), "123000");
    assert_string_equal(qty_format_number(1e30, buf, sizeof buf), "1e30");
    assert_string_equal(qty_format_number(0, buf, sizeof buf), "0");
    assert_string_equal(qty_format_number(-INFINITY, buf, sizeof buf), "-inf");
    assert_string_equal(qty_format_number(NAN, buf, sizeof buf), "nan");
}

/* What qty_format writes, qty_parse reads back within its rounding. */
static void test_round_trip(void **state)
{
    (void)state;
    const double vals[] = {1, 7.77, 999.4, 1e3, 48.9e3, 440e6, 2e12, 3.3e13};
    for (int k = QTY_BYTES; k <= QTY_FLOPS; k++) {
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            double v = vals[i] * (k == QTY_TIME ? 1e-9 : 1), back;
            char buf[64], why[200];
            qty_format(v, (qty_kind)k, buf, sizeof buf);
            if (qty_parse(buf, (qty_kind)k, &back, why, sizeof why) != 0)
                fail_msg("'%s' does not parse: %s", buf, why);
            assert_true(fabs(back - v) <= 0.005 * v);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_units),
        cmocka_unit_test(test_bandwidth_units),
        cmocka_unit_test(test_time_units),
        cmocka_unit_test(test_flops_units),
        cmocka_unit_test(test_exact_decimal),
        cmocka_unit_test(test_spacing),
        cmocka_unit_test(test_number_forms),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_reason_is_optional_and_bounded),
        cmocka_unit_test(test_number),
        cmocka_unit_test(test_format_total),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
