/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_nic.c - the mapping's `nic` lines (config_nic.c): what an accepted line holds,
 * and every located error check-config prints. */
#include "config_fixture.h"

/* The reference machine with two NICs, one per socket. */
#define NICS2 \
  "nic 1 bus=0000:0a:00.0 numa=1 name=mlx5_1 host=0000:c1:00.0\n" \
  "nic 0 bus=0000:09:00.0 numa=0 name=mlx5_0 host=0000:41:00.0\n"

static void test_nic_lines_parse(void **state) {
  (void)state;
  struct nn_config *c = parse_ok(GPUS2 NICS2);
  assert_int_equal(c->n_nics, 2);
  char b[16];
  const struct nn_nic *n = &c->nics[0]; /* sorted by index, not file order */
  assert_int_equal(n->index, 0);
  busstr(&n->bus, b);
  assert_string_equal(b, "0000:09:00.0");
  busstr(&n->host, b);
  assert_string_equal(b, "0000:41:00.0");
  assert_int_equal(n->numa, 0);
  assert_string_equal(n->name, "mlx5_0");
  assert_int_equal(n->line, 4);
  n = &c->nics[1];
  assert_int_equal(n->index, 1);
  assert_int_equal(n->numa, 1);
  assert_int_equal(n->line, 3);
  struct nn_busid q = {0, 0x0a, 0, 0};
  assert_ptr_equal(nn_config_find_nic(c, &q), &c->nics[1]);
  q.bus = 0x0b;
  assert_null(nn_config_find_nic(c, &q));
  nn_config_free(c);
  /* name= and host= are optional; a NIC may hang off a node without GPUs */
  c = parse_ok(GPUS2 "NIC 0 numa=3 bus=41:00.1\n");
  assert_int_equal(c->n_nics, 1);
  assert_string_equal(c->nics[0].name, "");
  assert_int_equal(c->nics[0].has_host, 0);
  assert_int_equal(c->nics[0].numa, 3);
  nn_config_free(c);
  c = parse_ok(GPUS2);
  assert_int_equal(c->n_nics, 0);
  nn_config_free(c);
}

static void test_nic_errors(void **state) {
  (void)state;
  expect_err(GPUS2 "nic bus=09:00.0 numa=0\n", 3, "nic: missing index (expected: nic <index>");
  expect_err(GPUS2 "nic 64 bus=09:00.0 numa=0\n", 3, "nic: bad index '64' (expected 0-63)");
  expect_err(GPUS2 "nic 0 numa=0\n", 3, "nic: missing bus=");
  expect_err(GPUS2 "nic 0 bus=09:00.0\n", 3, "nic: missing numa=");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=-1\n", 3,
             "nic: bad numa '-1' (expected a NUMA node 0-1023)");
  expect_err(GPUS2 "nic 0 bus=09:00.9 numa=0\n", 3, "nic: bad bus id '09:00.9'");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0 host=zz\n", 3, "nic: bad host id 'zz'");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0 name=mlx5;rm\n", 3, "nic: bad name 'mlx5;rm'");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0 speed=400\n", 3,
             "nic: unknown key 'speed' (valid keys: bus, numa, name, host)");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0\nnic 0 bus=0a:00.0 numa=1\n", 4,
             "nic: duplicate index 0 (first on line 3)");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0\nnic 1 bus=0000:09:00.0 numa=1\n", 4,
             "nic: duplicate bus id 0000:09:00.0 (first on line 3)");
  /* a NIC and a GPU are one PCI function each: never the same one */
  expect_err(GPUS2 "nic 0 bus=02:00.0 numa=0\n", 3,
             "nic: duplicate bus id 0000:02:00.0 (first on line 2)");
  expect_err("nic 0 bus=01:00.0 numa=0\n" GPUS2, 2,
             "gpu: duplicate bus id 0000:01:00.0 (first on line 1)");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0 host=41:00.0\nnic 1 bus=0a:00.0 numa=0 host=41:00.0\n",
             4, "nic: duplicate host id 0000:41:00.0 (first on line 3)");
  expect_err(GPUS2 "nic 0 bus=09:00.0 numa=0\nnic 2 bus=0a:00.0 numa=1\n", 4,
             "nic: index 1 missing (2 nic lines need indices 0-1, each once)");
}

static void test_nic_host_side(void **state) {
  (void)state;
  struct nn_parse_opts hs = {.flags = NN_PARSE_HOST_SIDE};
  const char *text = "gpu 0 numa=0 host=01:00.0\nnic 0 numa=1 host=c1:00.0 name=mlx5_1\n";
  struct nn_config *c = parse_opts(text, &hs);
  assert_int_equal(c->n_nics, 1);
  assert_int_equal(c->nics[0].has_bus, 0);
  assert_int_equal(c->nics[0].has_host, 1);
  nn_config_free(c);
  const char *no_host = "gpu 0 numa=0 host=01:00.0\nnic 0 numa=1\n";
  expect_err_len_opts(no_host, strlen(no_host), 2,
                      "nic: missing host= (a host-side mapping needs it)", &hs);
  expect_err(
    "# nccl-numa: host-side mapping\ngpu 0 bus=01:00.0 numa=0\nnic 0 numa=1 host=c1:00.0\n", 3,
    "nic: missing bus= (this is a host-side mapping");
}

static void test_nic_too_many(void **state) {
  (void)state;
  char text[8192] = GPUS2;
  for (int i = 0; i <= NN_MAX_NICS; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "nic %d bus=%02x:00.0 numa=0\n", i,
             0x40 + i);
  expect_err(text, 3 + NN_MAX_NICS, "nic: too many nic lines (at most 64)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_nic_lines_parse),
    cmocka_unit_test(test_nic_errors),
    cmocka_unit_test(test_nic_host_side),
    cmocka_unit_test(test_nic_too_many),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
