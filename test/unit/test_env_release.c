/* SPDX-License-Identifier: BSD-3-Clause */
/* test_env_release.c - what each release makes of a mapping's `env` line (env_names.h
 * nn_env_release_note): a name it does not read (served, ignored), a value it would misread
 * (not served), as facts of the release table, checked here to change once, in release order.
 * The values themselves: test_env_names.c; through the env plugin: test_env_refused.c. */
#include "nn_test.h"

#include <stddef.h>

#include "env_names.h"
#include "nccl_model.h"

/* note of release `code` for NAME=value: serve and the note's text ("" for none). */
static const char *note_of(int code, const char *name, const char *value, const char *release,
                           int *serve) {
  static char buf[640];
  const char *n = nn_env_release_note(name, value, nn_nccl_release_find(code, NULL), release, serve,
                                      buf, sizeof buf);
  return n ? n : "";
}

static void test_release_notes(void **state) {
  (void)state;
  int serve, old = NN_NCCL_VERSION(2, 28, 9), new = NN_NCCL_VERSION(2, 30, 7);
  assert_non_null(strstr(note_of(old, "NCCL_IB_HCA", "mlx5_1::0:0", "2.28.9", &serve),
                         "NCCL 2.28.9 reads an empty port"));
  assert_int_equal(serve, 0);
  assert_string_equal(note_of(old, "NCCL_IB_HCA", "mlx5_0:1:0:1", "2.28.9", &serve), "");
  assert_int_equal(serve, 1);
  assert_string_equal(note_of(new, "NCCL_IB_HCA", "mlx5_1::0:0", "2.30.7", &serve), "");
  assert_non_null(
    strstr(note_of(old, "NCCL_CTA_POLICY", "ZERO", "2.28.9", &serve), "only as a number"));
  assert_int_equal(serve, 0);
  assert_string_equal(note_of(old, "NCCL_CTA_POLICY", "2", "2.28.9", &serve), "");
  assert_string_equal(note_of(new, "NCCL_CTA_POLICY", "ZERO", "2.30.7", &serve), "");
  assert_non_null(strstr(note_of(old, "NCCL_NET_MERGE_POLICY", "RAIL", "2.28.9", &serve),
                         "NCCL 2.28.9 does not read NCCL_NET_MERGE_POLICY"));
  assert_int_equal(serve, 1);
  assert_string_equal(note_of(new, "NCCL_NET_MERGE_POLICY", "RAIL", "2.30.7", &serve), "");
  assert_non_null(strstr(note_of(new, "NCCL_SHM_MEMCPY_MODE", "1", "2.30.7", &serve),
                         "NCCL 2.30.7 no longer reads NCCL_SHM_MEMCPY_MODE"));
  assert_int_equal(serve, 1);
  assert_string_equal(note_of(old, "NCCL_SHM_MEMCPY_MODE", "1", "2.28.9", &serve), "");
  assert_string_equal(note_of(old, "NCCL_NETDEVS_POLICY", "ALL", "2.28.9", &serve), "");
}

/* Each release-dependent name's fact: some row has it, and along the table (oldest first) it
 * changes at most once, from 0 to 1: a release reads a name from some release on (or stops). */
static void test_release_facts_in_order(void **state) {
  (void)state;
  int n, facts = 0;
  const struct nn_nccl_release *t = nn_nccl_release_table(&n);
  for (int i = 0; nn_env_allowed_name(i); i++) {
    int gone;
    size_t fact = nn_env_release_fact(i, &gone);
    if (!fact) continue;
    facts++;
    assert_true(nn_nccl_release_since(fact) > 0);
    for (int r = 1; r < n; r++) {
      int before = *(const int *)(const void *)((const char *)&t[r - 1] + fact);
      int now = *(const int *)(const void *)((const char *)&t[r] + fact);
      if (before && !now)
        fail_msg("%s: the fact is set for row %d but not for row %d", nn_env_allowed_name(i), r - 1,
                 r);
    }
  }
  assert_int_equal(facts,
                   4); /* NETDEVS_POLICY, NET_MERGE_POLICY, SHM_MEMCPY_MODE, SHM_USE_CUDA_MEMCPY */
  assert_true(nn_nccl_release_since(offsetof(struct nn_nccl_release, env_ib_hca_rail)) > 0);
  assert_true(nn_nccl_release_since(offsetof(struct nn_nccl_release, env_cta_policy_names)) > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_release_notes),
    cmocka_unit_test(test_release_facts_in_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
