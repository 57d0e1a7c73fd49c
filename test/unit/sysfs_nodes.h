/* SPDX-License-Identifier: BSD-3-Clause */
/* sysfs_nodes.h - a private fake root whose sys/devices/system/node holds the NUMA nodes a
 * test names, each with its cpulist, for the modules that read them under a sysfs root. */
#ifndef NN_TEST_SYSFS_NODES_H
#define NN_TEST_SYSFS_NODES_H

#include "nn_test.h"

#include <sys/stat.h>

/* Makes ROOT (a fresh /tmp directory, written into root[64]) with node N's cpulist cpus[N]
 * for N < n (NULL: no node N). */
static inline void nn_test_sysfs_nodes(char root[64], const char *const *cpus, int n) {
  strcpy(root, "/tmp/nn-nodes-XXXXXX");
  assert_non_null(mkdtemp(root));
  char p[256];
  const char *parts[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/node"};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s%s", root, parts[i]);
    assert_int_equal(mkdir(p, 0755), 0);
  }
  for (int i = 0; i < n; i++) {
    if (!cpus[i]) continue;
    snprintf(p, sizeof p, "%s/sys/devices/system/node/node%d", root, i);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/sys/devices/system/node/node%d/cpulist", root, i);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", cpus[i]);
    fclose(f);
  }
}

/* Removes what nn_test_sysfs_nodes made (n as given there). */
static inline void nn_test_sysfs_nodes_remove(const char *root, int n) {
  char p[256];
  for (int i = 0; i < n; i++) {
    snprintf(p, sizeof p, "%s/sys/devices/system/node/node%d/cpulist", root, i);
    unlink(p);
    snprintf(p, sizeof p, "%s/sys/devices/system/node/node%d", root, i);
    rmdir(p);
  }
  const char *parts[] = {"/sys/devices/system/node", "/sys/devices/system", "/sys/devices", "/sys",
                         ""};
  for (int i = 0; i < 5; i++) {
    snprintf(p, sizeof p, "%s%s", root, parts[i]);
    rmdir(p);
  }
}

#endif
