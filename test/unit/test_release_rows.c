/* SPDX-License-Identifier: BSD-3-Clause */
/* test_release_rows.c - every row of the release table (plugin/core/nccl_model.c) is told to
 * users and run against the real library: some line of docs/user/nccl-versions.md's first
 * table ("Which NCCL gets what") covers part of its range, and test/compat/run.sh's default
 * release list holds a release within it. A row of a development branch ("(dev)" in its name)
 * has no published library, so no compat entry. Run from the repository root (test/run.sh). */
#include <ctype.h>

#include "nccl_model.h"
#include "nn_test.h"
#include "numparse.h"

#define VERSIONS_MD "docs/user/nccl-versions.md"
#define COMPAT_SH "test/compat/run.sh"
#define MAX_RANGES 64

struct range {
  int first, last;
};

/* "2.28" or "2.28.7" at *p: the code of its first (or, with upper, last) release. */
static int version_at(const char **p, int upper) {
  int x, y, z = upper ? 99 : 0;
  if (nn_int_parse_prefix(*p, 2, 9, &x, p) || **p != '.' ||
      nn_int_parse_prefix(*p + 1, 0, 99, &y, p))
    return -1;
  if (**p == '.' && isdigit((unsigned char)(*p)[1]) && nn_int_parse_prefix(*p + 1, 0, 99, &z, p))
    return -1;
  return NN_NCCL_VERSION(x, y, z);
}

/* The NCCL cell of a docs table line ("| 2.24-2.27 (torch ...) |", "| 2.31.2 |"). */
static int cell_range(const char *p, struct range *r) {
  const char *q = p;
  r->first = version_at(&q, 0);
  if (r->first < 0) return -1;
  q = p;
  r->last = version_at(&q, 1);
  if (*q == '-' && isdigit((unsigned char)q[1])) {
    q++;
    r->last = version_at(&q, 1);
  }
  return r->last < r->first ? -1 : 0;
}

static int docs_ranges(struct range *out) {
  size_t len;
  char *text = nn_test_slurp(VERSIONS_MD, &len);
  char *p = strstr(text, "# Which NCCL gets what");
  assert_non_null(p);
  int n = 0;
  for (char *line = strchr(p, '\n'); line && n < MAX_RANGES; line = strchr(line + 1, '\n')) {
    if (line[1] == '#') break; /* the next section */
    if (strncmp(line + 1, "| 2.", 4) || cell_range(line + 3, &out[n])) continue;
    n++;
  }
  free(text);
  return n;
}

/* The releases of RELEASES=${NN_COMPAT_RELEASES:-...}: "2.28.9", "cu13:2.32.6". */
static int compat_releases(int *out) {
  size_t len;
  char *text = nn_test_slurp(COMPAT_SH, &len);
  const char *p = strstr(text, "RELEASES=${NN_COMPAT_RELEASES:-");
  assert_non_null(p);
  p += strlen("RELEASES=${NN_COMPAT_RELEASES:-");
  int n = 0;
  while (*p && *p != '}' && n < MAX_RANGES) {
    while (*p == ' ') p++;
    const char *colon = strchr(p, ':');
    const char *end = p + strcspn(p, " }");
    if (colon && colon < end) p = colon + 1;
    char word[32] = {0};
    memcpy(word, p, (size_t)(end - p) < sizeof word - 1 ? (size_t)(end - p) : sizeof word - 1);
    if (*word) assert_true((out[n++] = nn_nccl_version_parse(word)) > 0);
    p = end;
  }
  free(text);
  return n;
}

static void test_rows_in_docs_and_compat(void **state) {
  (void)state;
  struct range docs[MAX_RANGES];
  int compat[MAX_RANGES], count;
  int n_docs = docs_ranges(docs), n_compat = compat_releases(compat);
  assert_true(n_docs >= 8);
  assert_true(n_compat >= 5);
  const struct nn_nccl_release *t = nn_nccl_release_table(&count);
  int missing = 0;
  for (int i = 0; i < count; i++) {
    char first[16], last[16];
    nn_nccl_version_format(t[i].first, first, sizeof first);
    nn_nccl_version_format(t[i].last, last, sizeof last);
    int documented = 0, run = 0;
    for (int d = 0; d < n_docs; d++)
      documented |= docs[d].first <= t[i].last && docs[d].last >= t[i].first;
    for (int c = 0; c < n_compat; c++) run |= compat[c] >= t[i].first && compat[c] <= t[i].last;
    if (t[i].name && strstr(t[i].name, "(dev)")) run = 1;
    if (!documented)
      printf("row %s-%s: no line of %s's first table covers it\n", first, last, VERSIONS_MD);
    if (!run) printf("row %s-%s: no release of it in %s's RELEASES\n", first, last, COMPAT_SH);
    missing += !documented + !run;
  }
  printf("%d rows, %d docs lines, %d compat releases\n", count, n_docs, n_compat);
  assert_int_equal(missing, 0);
}

/* The parsers above, on what they must accept and refuse. */
static void test_parsers(void **state) {
  (void)state;
  struct range r = {0, 0};
  assert_int_equal(cell_range("2.24-2.27 (torch 2.7-2.9 wheels) |", &r), 0);
  assert_int_equal(r.first, NN_NCCL_VERSION(2, 24, 0));
  assert_int_equal(r.last, NN_NCCL_VERSION(2, 27, 99));
  assert_int_equal(cell_range("2.28.7-2.29 | v5", &r), 0);
  assert_int_equal(r.first, NN_NCCL_VERSION(2, 28, 7));
  assert_int_equal(r.last, NN_NCCL_VERSION(2, 29, 99));
  assert_int_equal(cell_range("2.32.3 (newest on PyPI) |", &r), 0);
  assert_int_equal(r.first, r.last);
  assert_int_equal(cell_range("NCCL |", &r), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parsers),
    cmocka_unit_test(test_rows_in_docs_and_compat),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
