/*
 * qty.h - quantities with units, as written in layouts and on the command line.
 *
 *   bytes      B, KB MB GB TB (powers of 1000), KiB MiB GiB TiB (powers of 1024)
 *   bandwidth  a bytes unit followed by "/s": "2 TB/s", "4.4 GB/s"
 *   time       s, ms, us (or µs; the Greek letter μ is accepted too), ns
 *   flops      FLOPS, GFLOPS, TFLOPS, PFLOPS (FLOP/s)
 * The number may be an integer, a decimal or use an exponent ("1e3 B"); a
 * space between number and unit is optional. The unit is required and its
 * spelling is exact (case matters: "mb" is an error, which keeps MB and Mb
 * from being confused).
 */
#ifndef WT_QTY_H
#define WT_QTY_H

#include <stddef.h>

/* QTY_TOKEN_RATE is for qty_format only: "880 tokens/s", "102 k tokens/s". */
typedef enum qty_kind { QTY_BYTES, QTY_BANDWIDTH, QTY_TIME, QTY_FLOPS, QTY_TOKEN_RATE } qty_kind;

/* Parses s as a quantity of kind k into *out (SI: bytes, bytes/s, s, FLOP/s).
 * Returns 0, or -1 with a short reason in why ("missing unit, expected one of
 * B, KB, ...", "unknown unit 'Mb'", "not a number") that does not repeat s. */
int qty_parse(const char *s, qty_kind k, double *out, char *why, size_t n);

/* Writes v in the largest unit of kind k that keeps the number >= 1, with
 * three significant digits ("2 TB/s", "440 MB", "1.5 us"). Returns buf. */
char *qty_format(double v, qty_kind k, char *buf, size_t n);

/* Writes v as a plain number with three significant digits ("0.01", "1",
 * "1.23e-21"), independent of the C locale; "inf", "nan". Returns buf. */
char *qty_format_number(double v, char *buf, size_t n);

/* Parses s as a plain number without unit ("0.8", "1e-3", "-2"), the same
 * syntax as above and independent of the C locale (strtod is not: a program
 * that calls setlocale may read "0.8" as 0). Surrounding blanks are allowed.
 * Returns 0, or -1 when s is anything else or out of range. */
int qty_number(const char *s, double *out);

#endif
