/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_xml_cases.h - the mappings whose topology XML is kept as golden files in
 * test/fixtures/topo-xml/NAME.xml (what the libxml2-based writer produced before the
 * plugin wrote its XML itself); test_topo_xml_golden.c compares every one.
 */
#ifndef NCCL_NUMA_TOPO_XML_CASES_H
#define NCCL_NUMA_TOPO_XML_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nn_config.h"
#include "topology.h"

#define TXML_GOLDEN_DIR "test/fixtures/topo-xml"
#define TXML_CPUINFO "test/fixtures/cpuinfo/amd-turin"

struct txml_case {
  const char *name;
  const char *file; /* a mapping in the tree, or NULL: text */
  const char *text; /* the mapping itself, or NULL: made by make_text */
  int sysfs;        /* 1: affinity from a made-up sysfs (node0 only), no numa lines */
  void (*make_text)(char *buf, size_t size);
};

/* 128 GPUs on one node: the most NCCL reads under one cpu element. */
static inline void txml_128_gpus(char *buf, size_t size) {
  size_t used =
    (size_t)snprintf(buf, size, "cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-63\n");
  for (int i = 0; i < 128 && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "gpu %d bus=%04x:01:%02x.0 numa=0\n", i,
                             i / 32, i % 32);
}

/* Eight nodes, two GPUs each, nodes named out of order and far apart. */
static inline void txml_eight_nodes(char *buf, size_t size) {
  static const int nodes[8] = {7, 3, 1023, 0, 12, 5, 64, 2};
  size_t used = (size_t)snprintf(buf, size, "cpu vendor=AuthenticAMD family=26 model=17\n");
  for (int n = 0; n < 8 && used < size; n++)
    used += (size_t)snprintf(buf + used, size - used, "numa %d cpus=%d-%d\n", nodes[n], n * 16,
                             n * 16 + 15);
  for (int i = 0; i < 16 && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "gpu %d bus=0000:%02x:00.0 numa=%d\n", i,
                             0xc1 - i, nodes[(i * 5) % 8]);
}

static const struct txml_case txml_cases[] = {
  {"reference", "test/fixtures/config/reference.conf", NULL, 0, NULL},
  {"topo-good", "test/fixtures/topo/good.conf", NULL, 0, NULL},
  {"two-socket-intel", "test/fixtures/explain/two-socket.conf", NULL, 0, NULL},
  {"proxmox-epyc-8gpu", "docs/examples/proxmox-epyc-8gpu.conf", NULL, 0, NULL},
  {"one-gpu-domain", NULL,
   "cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-31,64-95\ngpu 0 bus=00ab:c1:1f.7 "
   "numa=0\n",
   0, NULL},
  {"intel-sapphire", NULL,
   "cpu vendor=GenuineIntel family=6 model=207\nnuma 0 cpus=0-55\nnuma 1 cpus=56-111\n"
   "gpu 0 bus=0000:18:00.0 numa=0\ngpu 1 bus=0000:2a:00.0 numa=1\ngpu 2 bus=0000:3a:00.0 numa=0\n",
   0, NULL},
  {"amd-no-family", NULL,
   "cpu vendor=AuthenticAMD\nnuma 0 cpus=0-7\ngpu 0 bus=0000:01:00.0 numa=0\ngpu 1 "
   "bus=0000:02:00.0 numa=1\n",
   0, NULL},
  {"widest-affinity", NULL,
   "cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-895\ngpu 0 bus=0000:01:00.0 numa=0\n",
   0, NULL},
  {"sysfs-affinity", NULL,
   "cpu vendor=AuthenticAMD family=25 model=17\ngpu 0 bus=0000:01:00.0 numa=0\ngpu 1 "
   "bus=0000:81:00.0 numa=1\n",
   1, NULL},
  {"ref-nics", "test/fixtures/config/ref-nics.conf", NULL, 0, NULL},
  {"nic-own-node", NULL, /* a NIC on a node without GPUs gets a cpu element of its own */
   "cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-7\nnuma 3 cpus=24-31\n"
   "gpu 0 bus=0000:c1:00.0 numa=0\nnic 1 bus=0000:41:00.1 numa=0 name=mlx5_1\n"
   "nic 0 bus=0001:21:00.0 numa=3 name=mlx5_0\n",
   0, NULL},
  {"gpus-128-one-node", NULL, NULL, 0, txml_128_gpus},
  {"eight-nodes", NULL, NULL, 0, txml_eight_nodes},
};
#define TXML_N_CASES ((int)(sizeof txml_cases / sizeof txml_cases[0]))

/* Parses case c's mapping; NULL (and the first problem on stderr) when it does not parse. */
static inline struct nn_config *txml_case_config(const struct txml_case *c) {
  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  struct nn_parse_opts opts = {0};
  int rc;
  if (c->file) {
    rc = nn_config_load(c->file, &opts, &cfg, &diag);
  } else {
    static char made[16384];
    const char *text = c->text;
    if (!text) {
      c->make_text(made, sizeof made);
      text = made;
    }
    rc = nn_config_parse(c->name, text, strlen(text), &opts, &cfg, &diag);
  }
  if (rc) fprintf(stderr, "%s: %s\n", c->name, diag.n ? diag.msgs[0] : "does not parse");
  nn_diag_clear(&diag);
  return rc ? NULL : cfg;
}

/* The sysfs root case c reads: a made-up tree under `tmp` (mkdtemp'd by the caller) with
 * node0's cpulist only, or a path that does not exist, so the machine's own is never read. */
static inline const char *txml_case_sysfs(const struct txml_case *c, const char *tmp) {
  if (!c->sysfs) return "/nonexistent-nn-sysfs";
  static char path[512];
  const char *dirs[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/node",
                        "/sys/devices/system/node/node0"};
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s%s", tmp, dirs[i]);
    mkdir(path, 0755);
  }
  snprintf(path, sizeof path, "%s/sys/devices/system/node/node0/cpulist", tmp);
  FILE *fp = fopen(path, "w");
  if (fp) {
    fputs("0-7,16-23\n", fp);
    fclose(fp);
  }
  return tmp;
}

#endif
