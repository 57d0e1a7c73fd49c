/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_model.c - the table of NCCL's model per release, at every boundary. The expected
 * values are NCCL's (sources of the cited tags, the released 2.31.2/2.32.3 binaries). */
#include <math.h>

#include "nccl_model.h"
#include "nn_config.h"
#include "nn_test.h"

static const struct nn_nccl_release *rel(int x, int y, int z) {
  int unverified = -1;
  const struct nn_nccl_release *r = nn_nccl_release_find(NN_NCCL_VERSION(x, y, z), &unverified);
  assert_int_equal(unverified, 0);
  return r;
}

static float amd(const struct nn_nccl_release *r, int family) {
  return nn_nccl_cpu_link_gbps(r, NN_ARCH_X86, NN_VENDOR_AMD, family, 1);
}

static float intel(const struct nn_nccl_release *r, int family, int model) {
  return nn_nccl_cpu_link_gbps(r, NN_ARCH_X86, NN_VENDOR_INTEL, family, model);
}

/* 2.30 models every AMD CPU at 16 GB/s; 2.31 by familyid (commits 2f1c174c, 639b1203). */
static void test_amd_by_release(void **state) {
  (void)state;
  const struct nn_nccl_release *r230 = rel(2, 30, 7), *r231 = rel(2, 31, 2), *r232 = rel(2, 32, 3);
  const struct nn_nccl_release *dev = rel(2, 31, 0);
  for (int f = 20; f <= 27; f++) assert_true(amd(r230, f) == 16.0f);
  assert_true(amd(r230, 0xAF) == 16.0f);
  const struct nn_nccl_release *rs[] = {dev, r231, r232};
  for (int i = 0; i < 3; i++) {
    assert_true(amd(rs[i], 23) == 16.0f);   /* Zen 1/2 */
    assert_true(amd(rs[i], 25) == 24.0f);   /* Zen 3/4 */
    assert_true(amd(rs[i], 26) == 32.0f);   /* Zen 5 */
    assert_true(amd(rs[i], 0x8F) == 16.0f); /* the older XML numbering */
    assert_true(amd(rs[i], 0xAF) == 24.0f);
    assert_true(amd(rs[i], 0xBF) == 32.0f);
    assert_true(amd(rs[i], 27) == 16.0f); /* anything else */
    assert_true(amd(rs[i], -1) == 16.0f);
  }
  char cls[96];
  nn_nccl_cpu_class(r231, NN_ARCH_X86, NN_VENDOR_AMD, 25, 17, cls, sizeof cls);
  assert_string_equal(cls, "AMD Zen 3/4 class (familyid 25)");
}

static void test_intel_tiers(void **state) {
  (void)state;
  const struct nn_nccl_release *r225 = rel(2, 25, 1), *r226 = rel(2, 26, 2), *r230 = rel(2, 30, 7),
                               *r231 = rel(2, 31, 2);
  assert_true(intel(r225, 6, 0x54) == 6.0f);  /* Broadwell and older */
  assert_true(intel(r225, 6, 0x55) == 10.0f); /* Skylake */
  assert_true(intel(r225, 6, 0x8F) == 10.0f); /* no Sapphire Rapids tier before 2.26 */
  assert_true(intel(r225, 6, 0xCF) == 10.0f);
  assert_true(intel(r226, 6, 0x8E) == 10.0f);
  assert_true(intel(r226, 6, 0x8F) == 22.0f);
  assert_true(intel(r226, 6, 0xCE) == 22.0f);
  assert_true(intel(r226, 6, 0xCF) == 40.0f);
  assert_true(intel(r230, 6, 0xAD) == 22.0f); /* Granite Rapids: SRP on 2.30 */
  assert_true(intel(r231, 6, 0xAD) == 40.0f); /* ... ERP on 2.31.2 (binary) */
  assert_true(intel(r231, 6, 0xAF) == 40.0f);
  assert_true(intel(r231, 6, 0xB0) == 22.0f);
  assert_true(intel(r230, 19, 0x01) == 6.0f); /* not family 6: Broadwell value */
  assert_true(intel(r230, -1, -1) == 6.0f);
}

static void test_other_cpus(void **state) {
  (void)state;
  const struct nn_nccl_release *r = rel(2, 28, 9);
  assert_true(nn_nccl_cpu_link_gbps(r, NN_ARCH_POWER, NN_VENDOR_UNKNOWN, -1, -1) == 32.0f);
  assert_true(nn_nccl_cpu_link_gbps(r, NN_ARCH_ARM, NN_VENDOR_UNKNOWN, -1, -1) == 6.0f);
  assert_true(nn_nccl_cpu_link_gbps(r, NN_ARCH_X86, NN_VENDOR_ZHAOXIN, 7, 0x5B) == 9.0f);
  assert_true(nn_nccl_cpu_link_gbps(r, NN_ARCH_X86, NN_VENDOR_ZHAOXIN, 7, 0x3B) == 6.0f);
  assert_true(nn_nccl_cpu_link_gbps(r, NN_ARCH_X86, NN_VENDOR_UNKNOWN, 6, 1) == 5000.0f);
  assert_int_equal(nn_nccl_vendor_from_name("  Shanghai  "), NN_VENDOR_ZHAOXIN);
  assert_int_equal(nn_nccl_vendor_from_name("CentaurHauls"), NN_VENDOR_ZHAOXIN);
  assert_int_equal(nn_nccl_vendor_from_name("HygonGenuine"), NN_VENDOR_UNKNOWN);
}

/* The floor: below 10.0 the base/sm90 lists end at 3; >= 10.0 at 19 on 2.25-2.26, 18 later,
 * and before 2.25 there is no class of its own. */
static void test_floors(void **state) {
  (void)state;
  assert_true(nn_nccl_search_floor(rel(2, 24, 3), 120) == 3.0f);
  assert_true(nn_nccl_search_floor(rel(2, 25, 1), 100) == 19.0f);
  assert_true(nn_nccl_search_floor(rel(2, 26, 6), 120) == 19.0f);
  assert_true(nn_nccl_search_floor(rel(2, 27, 3), 100) == 18.0f);
  assert_true(nn_nccl_search_floor(rel(2, 28, 9), 120) == 18.0f);
  assert_true(nn_nccl_search_floor(rel(2, 32, 3), 100) == 18.0f);
  assert_true(nn_nccl_search_floor(rel(2, 28, 9), 90) == 3.0f);
  assert_true(nn_nccl_search_floor(rel(2, 28, 9), 89) == 3.0f);
  assert_true(nn_nccl_search_floor(rel(2, 28, 9), 80) == 3.0f);
  const struct nn_speed_steps *s = nn_nccl_speed_steps(rel(2, 28, 9), 100);
  assert_int_equal(s->n, 11);
  assert_true(s->gbps[0] == 90.0f && s->gbps[5] == 40.0f);
  s = nn_nccl_speed_steps(rel(2, 29, 2), 100);
  assert_int_equal(s->n, 12);
  assert_true(s->gbps[5] == 45.0f);
  s = nn_nccl_speed_steps(rel(2, 28, 9), 89);
  assert_int_equal(s->n, 13);
  assert_true(s->gbps[0] == 40.0f);
  s = nn_nccl_speed_steps(rel(2, 28, 9), 90);
  assert_true(s->gbps[0] == 60.0f && s->gbps[4] == 24.0f);
}

static void test_pcie_formula(void **state) {
  (void)state;
  assert_true(nn_nccl_pcie_gbps(3, 16) == 12.0f);
  assert_true(nn_nccl_pcie_gbps(4, 8) == 12.0f);
  assert_true(nn_nccl_pcie_gbps(4, 16) == 24.0f);
  assert_true(nn_nccl_pcie_gbps(5, 8) == 24.0f);
  assert_true(nn_nccl_pcie_gbps(5, 16) == 48.0f);
  assert_true(nn_nccl_pcie_gbps(6, 16) == 96.0f);
  assert_true(nn_nccl_pcie_gbps(1, 16) == 3.0f);
  assert_true(nn_nccl_pcie_gbps(0, 0) == 12.0f); /* NCCL's fallback: gen 3 speed, x16 */
  assert_true(nn_nccl_pcie_gbps(5, 0) == 48.0f);
}

static void test_release_columns(void **state) {
  (void)state;
  assert_int_equal(rel(2, 28, 9)->gpulink, NN_GPULINK_SYSFS_MAX);
  assert_int_equal(rel(2, 30, 4)->gpulink, NN_GPULINK_SYSFS_MAX);
  assert_int_equal(rel(2, 30, 7)->gpulink, NN_GPULINK_NVML_CURRENT);
  assert_int_equal(rel(2, 32, 3)->gpulink, NN_GPULINK_NVML_CURRENT);
  /* LL128 between PCIe-only GPUs: never before 2.31; the dev source leaves it on by default;
   * the released 2.31.2 and 2.32.3 check it for the default setting too (binaries) */
  int sms[] = {89, 90, 100, 120};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 28, 9), NN_PROTO_LL128, sms[i]), 0);
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 30, 7), NN_PROTO_LL128, sms[i]), 0);
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 31, 0), NN_PROTO_LL128, sms[i]), 1);
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 31, 2), NN_PROTO_LL128, sms[i]), 0);
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 32, 3), NN_PROTO_LL128, sms[i]), 0);
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 32, 3), NN_PROTO_LL, sms[i]), 1);
    assert_int_equal(nn_nccl_proto_enabled_pcie(rel(2, 32, 3), NN_PROTO_SIMPLE, sms[i]), 1);
  }
  /* a tuner's constants: overwritten after its init on 2.31.x only */
  assert_int_equal(rel(2, 30, 7)->tuner_constants_effective, 1);
  assert_int_equal(rel(2, 31, 0)->tuner_constants_effective, 0);
  assert_int_equal(rel(2, 31, 2)->tuner_constants_effective, 0);
  assert_int_equal(rel(2, 32, 3)->tuner_constants_effective, 1);
  assert_int_equal(rel(2, 30, 3)->dev_nodes, 1);
  assert_int_equal(rel(2, 29, 7)->dev_nodes, 0);
}

static void test_find_and_versions(void **state) {
  (void)state;
  int count, unverified = 0;
  const struct nn_nccl_release *t = nn_nccl_release_table(&count);
  assert_true(count >= 8);
  for (int i = 0; i < count; i++) {
    assert_non_null(t[i].source);
    assert_true(t[i].first <= t[i].last);
    if (i) assert_true(t[i].first == t[i - 1].last + 1 || t[i].first > t[i - 1].last);
  }
  /* a release newer than the table gets the newest row, one older the oldest, both unverified */
  assert_ptr_equal(nn_nccl_release_find(t[count - 1].last + 1, &unverified), &t[count - 1]);
  assert_int_equal(unverified, 1);
  assert_ptr_equal(nn_nccl_release_find(t[0].first - 1, &unverified), &t[0]);
  assert_int_equal(unverified, 1);
  assert_non_null(nn_nccl_release_find(NN_NCCL_VERSION(2, 28, 9), NULL));
  assert_int_equal(nn_nccl_version_parse("2.28.9"), 22809);
  assert_int_equal(nn_nccl_version_parse("2.31.2-1"), 23102);
  assert_int_equal(nn_nccl_version_parse("2.32.3+cuda12.9"), 23203);
  assert_int_equal(nn_nccl_version_parse("2.28"), -1);
  assert_int_equal(nn_nccl_version_parse("2.28.9x"), -1);
  assert_int_equal(nn_nccl_version_parse("latest"), -1);
  assert_int_equal(nn_nccl_version_parse(NULL), -1);
  char buf[16];
  nn_nccl_version_format(23203, buf, sizeof buf);
  assert_string_equal(buf, "2.32.3");
  nn_nccl_set_loaded_version(22809);
  assert_int_equal(nn_nccl_loaded_version(), 22809);
  nn_nccl_set_loaded_version(0);
}

/* A tuner's channels and negative costs: replace / disabled up to 2.30.7 (source tags),
 * lower only / compete from 2.31 (dev, the 2.31.2 and 2.32.3 binaries). */
static void test_tuner_semantics(void **state) {
  (void)state;
  const struct nn_nccl_release *old[] = {rel(2, 21, 5), rel(2, 27, 7), rel(2, 28, 9), rel(2, 30, 4),
                                         rel(2, 30, 7)};
  const struct nn_nccl_release *now[] = {rel(2, 31, 0), rel(2, 31, 2), rel(2, 32, 3)};
  char text[256];
  for (int i = 0; i < 5; i++) {
    assert_int_equal(old[i]->tuner_chunk_size, i >= 3); /* getChunkSize from 2.30.3 (tuner v6) */
    assert_int_equal(old[i]->tuner_channels_lower_only, 0);
    assert_int_equal(old[i]->negative_cost_selects, 0);
    assert_int_equal(nn_nccl_channels_no_effect(old[i], 64, 4), 0);
    nn_nccl_tuner_semantics(old[i], text, sizeof text);
    assert_non_null(strstr(text, "replace its own count"));
    assert_non_null(strstr(text, "negative cost as disabled"));
  }
  for (int i = 0; i < 3; i++) {
    assert_int_equal(now[i]->tuner_chunk_size, 1);
    assert_int_equal(now[i]->tuner_channels_lower_only, 1);
    assert_int_equal(now[i]->negative_cost_selects, 1);
    assert_int_equal(nn_nccl_channels_no_effect(now[i], 8, 4), 1); /* above NCCL's count */
    assert_int_equal(nn_nccl_channels_no_effect(now[i], 4, 4), 1); /* NCCL needs < its own */
    assert_int_equal(nn_nccl_channels_no_effect(now[i], 3, 4), 0);
    assert_int_equal(nn_nccl_channels_no_effect(now[i], 8, 0), 0); /* count unknown: no claim */
    nn_nccl_tuner_semantics(now[i], text, sizeof text);
    assert_non_null(strstr(text, "only below its own count"));
    assert_non_null(strstr(text, now[i]->name));
  }
}

/* The facts that used to be version comparisons elsewhere, at each boundary (source tags:
 * tuner ABIs in src/include/nccl_tuner.h and plugin/tuner/, "none" in src/plugin/tuner.cc,
 * src/plugin/env.cc, tuning.cc's tables). */
static void test_release_facts(void **state) {
  (void)state;
  static const struct {
    int x, y, z, tuner_abi, env_abi, none, subsystem, mixed;
  } want[] = {{2, 21, 5, 2, 0, 0, 0, 0}, {2, 22, 3, 3, 0, 0, 0, 0}, {2, 23, 4, 3, 0, 0, 0, 0},
              {2, 24, 3, 4, 0, 0, 0, 0}, {2, 27, 7, 4, 0, 0, 0, 0}, {2, 28, 3, 5, 0, 1, 0, 0},
              {2, 28, 6, 5, 0, 1, 0, 0}, {2, 28, 7, 5, 1, 1, 0, 0}, {2, 29, 7, 5, 1, 1, 0, 0},
              {2, 30, 3, 6, 1, 1, 0, 1}, {2, 30, 7, 6, 2, 1, 0, 1}, {2, 31, 0, 6, 2, 1, 1, 1},
              {2, 31, 2, 6, 2, 1, 1, 1}, {2, 32, 3, 6, 2, 1, 1, 1}, {2, 32, 5, 6, 2, 1, 1, 1},
              {2, 32, 6, 7, 2, 1, 1, 1}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const struct nn_nccl_release *r = rel(want[i].x, want[i].y, want[i].z);
    assert_int_equal(r->tuner_abi, want[i].tuner_abi);
    assert_int_equal(r->env_abi, want[i].env_abi);
    assert_int_equal(r->tuner_none, want[i].none);
    assert_int_equal(r->cost_model_subsystem, want[i].subsystem);
    assert_int_equal(r->ll128_mixed_cc_sm90, want[i].mixed);
    assert_int_equal(nn_nccl_lacks_env_plugin(NN_NCCL_VERSION(want[i].x, want[i].y, want[i].z)),
                     !want[i].env_abi);
  }
  /* the rows split for a plugin fact keep the name of their PCIe model */
  assert_string_equal(rel(2, 28, 3)->name, "2.27-2.28");
  assert_string_equal(rel(2, 28, 9)->name, "2.27-2.28");
  assert_string_equal(rel(2, 22, 3)->name, "2.21-2.24");
  assert_string_equal(rel(2, 32, 6)->name, "2.32"); /* tuner v7; the model as 2.32.3 */
  assert_true(rel(2, 32, 6) != rel(2, 32, 3));
  /* Blackwell's Ring LL128 caps, 1 node / 2 nodes (perChMaxRingLL128Bws of each tag) */
  static const struct {
    int x, y, z;
    double n1, n2;
  } ring[] = {{2, 25, 1, 73.4, 73.4}, {2, 28, 3, 73.4, 73.4}, {2, 28, 9, 73.4, 34.6},
              {2, 29, 2, 34.5, 34.6}, {2, 29, 7, 40.0, 40.0}, {2, 30, 7, 40.0, 40.0},
              {2, 31, 2, 40.0, 40.0}, {2, 32, 6, 40.0, 40.0}};
  for (size_t i = 0; i < sizeof ring / sizeof ring[0]; i++) {
    const struct nn_nccl_release *r = rel(ring[i].x, ring[i].y, ring[i].z);
    assert_true(fabs(r->ring_ll128_sm100[0] - ring[i].n1) < 1e-9 &&
                fabs(r->ring_ll128_sm100[1] - ring[i].n2) < 1e-9);
  }
  assert_int_equal(nn_nccl_lacks_env_plugin(0), 0); /* unknown: no claim */
  char since[16];
  nn_nccl_env_plugin_since(since, sizeof since);
  assert_string_equal(since, "2.28.7");
  assert_int_equal(nn_nccl_release_since(offsetof(struct nn_nccl_release, tuner_chunk_size)),
                   23003);
  assert_int_equal(nn_nccl_release_since(offsetof(struct nn_nccl_release, cost_model_subsystem)),
                   23100);
}

/* The one version grammar, strict: each part digits only, then nothing, "-N" or "+...". */
static void test_version_grammar(void **state) {
  (void)state;
  static const char *const refused[] = {"2.28.9x", "2.28",    "2",       "",        " 2.28.9",
                                        "2. 28.9", "2.+28.9", "2.28.-9", "2.28.9 ", "v2.28.9",
                                        "2..9",    "1.28.9",  "2.100.1"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    assert_int_equal(nn_nccl_version_parse(refused[i]), -1);
  assert_int_equal(nn_nccl_version_parse("2.8.4"), 2804); /* NCCL's numbering before 2.9 */
  char buf[16];
  nn_nccl_version_format(2804, buf, sizeof buf);
  assert_string_equal(buf, "2.8.4");
  nn_nccl_version_format(22809, buf, sizeof buf);
  assert_string_equal(buf, "2.28.9");
  assert_int_equal(nn_nccl_version_parse_word("2.27.3+cuda12.9 and more"), 22703);
  assert_int_equal(nn_nccl_version_parse_word("2.27.3\n"), 22703);
  assert_int_equal(nn_nccl_version_parse_word("2.28.9x rest"), -1);
  assert_int_equal(nn_nccl_version_parse_word("2.28.9+a-suffix-longer-than-thirty-one-bytes"), -1);
  assert_int_equal(nn_nccl_version_plausible(22809), 1);
  assert_int_equal(nn_nccl_version_plausible(2804), 0);
  assert_int_equal(nn_nccl_version_plausible(100000), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_amd_by_release),    cmocka_unit_test(test_intel_tiers),
    cmocka_unit_test(test_other_cpus),        cmocka_unit_test(test_floors),
    cmocka_unit_test(test_pcie_formula),      cmocka_unit_test(test_release_columns),
    cmocka_unit_test(test_find_and_versions), cmocka_unit_test(test_tuner_semantics),
    cmocka_unit_test(test_release_facts),     cmocka_unit_test(test_version_grammar),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
