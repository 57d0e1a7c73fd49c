/* SPDX-License-Identifier: BSD-3-Clause */
/* test_proxmox_numa_text.c - the new VM config written from a plan
 * (cli/proxmox/proxmox_numa_text.c): the header comment, the GPU entries moved into args:,
 * the other lines kept in order, the new keys in Proxmox's sorted place. */
#include "nn_config.h"
#include "nn_test.h"

#include "proxmox_fixture.h"

static const struct fake_pci host[] = {GPU("0000:01:00.0", 0), NIC("0000:41:00.0", 0),
                                       GPU("0000:81:00.0", 1)};

/* The config text written from the plan of `config` on the made-up host. */
static char *written(const char *config) {
  struct nn_discovery d;
  fake_host(&d, host, 3, 2);
  struct fake_rewrite *r = fake_rewrite_open(&d, config);
  assert_int_equal(nn_proxmox_numa_plan(&r->c), 0);
  char *text = nn_proxmox_numa_write(&r->c);
  assert_non_null(text);
  fake_rewrite_close(r);
  nn_discovery_free(&d);
  return text;
}

/* The line of `text` that starts with `prefix`, as a pointer into text, or NULL. */
static const char *line_with(const char *text, const char *prefix) {
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, prefix, strlen(prefix))) return p;
  return NULL;
}

static void test_gpus_move_into_args(void **state) {
  (void)state;
  char *t = written(
    "cores: 2\nhostpci0: 81:00.0,pcie=1\nhostpci1: 01:00.0,pcie=1\nhostpci2: 41:00.0,pcie=1\n"
    "machine: q35\nmemory: 2048\n");
  assert_true(t[0] == '#'); /* the header comment comes first */
  const char *args = line_with(t, "args: ");
  assert_non_null(args);
  assert_non_null(strstr(args, "-device pxb-pcie,id=nnpxb0,bus_nr=128,numa_node=0,bus=pcie.0"));
  assert_non_null(strstr(args, "-device vfio-pci,host=0000:01:00.0,bus=nnrp0_0"));
  assert_non_null(strstr(args, "-device vfio-pci,host=0000:81:00.0,bus=nnrp1_0"));
  assert_null(line_with(t, "hostpci0:"));
  assert_null(line_with(t, "hostpci1:"));
  assert_non_null(line_with(t, "hostpci2: 41:00.0,pcie=1\n")); /* the NIC stays */
  assert_non_null(line_with(t, "numa0: cpus=0,hostnodes=0,memory=1024,policy=bind\n"));
  assert_non_null(line_with(t, "numa1: cpus=1,hostnodes=1,memory=1024,policy=bind\n"));
  /* Sorted as Proxmox writes them: args first, then the rest in key order. */
  assert_true(args < line_with(t, "cores:") && line_with(t, "machine:") < line_with(t, "numa0:") &&
              line_with(t, "numa1:") < line_with(t, "sockets:"));
  free(t);
}

static void test_snapshot_kept(void **state) {
  (void)state;
  const char *snap = "\n[snap]\nhostpci0: 01:00.0,pcie=1\nmemory: 512\n";
  char config[256];
  snprintf(config, sizeof config, "hostpci0: 01:00.0,pcie=1\nmachine: q35\nmemory: 1024\n%s", snap);
  char *t = written(config);
  const char *at = strstr(t, "\n[snap]\n");
  assert_non_null(at);
  assert_string_equal(at, snap);
  assert_true(line_with(t, "numa0:") < at);
  free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_gpus_move_into_args),
    cmocka_unit_test(test_snapshot_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
