/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numparse.h - checked conversion of text to numbers. atoi() and sscanf("%d")
 * accept junk after the number, read "abc" as 0 and overflow silently; these
 * say whether the text was a number in range and leave the output alone when not.
 */
#ifndef NCCL_NUMA_NUMPARSE_H
#define NCCL_NUMA_NUMPARSE_H

#include <stdint.h>

/* Parses s as a whole decimal integer: an optional sign, then digits, nothing
 * before or after (no blanks). Stores it in *out when it lies in [min, max].
 * Returns 0, or -1 (NULL, empty, junk, out of range) with *out unchanged. */
int nn_int_parse(const char *s, int min, int max, int *out);

/* nn_int_parse in another base, for the numbers sysfs, hwloc and XML attributes
 * write in hex: base 16 (digits 0-9a-fA-F, an optional 0x or 0X before them), or
 * 0 (C's rule, as strtol: 0x hex, a leading 0 octal, else decimal), or 10. An
 * optional sign, then the whole rest a number; "0x" with no digit after it is
 * refused, not read as 0. Returns 0, or -1 (also for another base) with *out unchanged. */
int nn_int_parse_base(const char *s, int base, int min, int max, int *out);

/* Parses the decimal integer at the start of s (blanks before it are skipped,
 * anything after the digits is left) into *out when it lies in [min, max].
 * *end (when end is not NULL) gets the first character after the digits.
 * Returns 0, or -1 (no digits, out of range) with *out and *end unchanged. */
int nn_int_parse_prefix(const char *s, int min, int max, int *out, const char **end);

/* Parses s as a whole finite decimal floating-point number (strtod syntax,
 * nothing before or after) into *out. Returns 0, or -1 with *out unchanged. */
int nn_double_parse(const char *s, double *out);

/* Parses s as a whole unsigned decimal (digits only; with allow_suffix one K, M, G
 * or T after them multiplies by a power of 1024) into *out when it is at most max.
 * Returns 0; -1 for bad syntax; -2 when the value exceeds max or 64 bits.
 * *out is unchanged on failure. */
int nn_u64_parse(const char *s, int allow_suffix, uint64_t max, uint64_t *out);

/* Parses the hexadecimal digits at the start of s (no blanks, sign or "0x" before
 * them; either case) into *out when the value is at most max: 64-bit identifiers
 * (NCCL's commId) and fields inside a longer text (a PCI address). *end (when end is not
 * NULL) gets the first character after the digits. Returns 0, or -1 (no digits, over
 * max or 64 bits) with *out and *end unchanged. */
int nn_hex_parse_prefix(const char *s, uint64_t max, uint64_t *out, const char **end);

/* Parses the finite decimal floating-point number at the start of s (strtod syntax;
 * blanks before it are skipped, anything after it is left) into *out. *end (when end
 * is not NULL) gets the first character after the number. Returns 0, or -1 (no
 * number, infinite, NaN, out of double's range) with *out and *end unchanged. */
int nn_double_parse_prefix(const char *s, double *out, const char **end);

#endif
