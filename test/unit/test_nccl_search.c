/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_search.c - the predicted search against NCCL's own. Every expected value below was
 * printed by nccl-oracle (NCCL's topology, search and tuning code built for the CPU from
 * v2.28.9-1, v2.30.7-1 and the dev branch, 2.31.0) on a file with the layout given: one
 * <cpu> per '+'-separated group (numaid 0, 1, ...) or, for "fN", NCCL's flat view of a guest
 * (one <cpu numaid="-1">), each GPU with link_speed/link_width of PCIe GEN x WIDTH. */
#include "nccl_model.h"
#include "nccl_search.h"
#include "nccl_search_topo.h"
#include "nn_config.h"
#include "nn_test.h"
#include "numparse.h"
#include "topology.h"

struct fact {
  const char *rel;
  int sm;
  const char *vendor;
  int family, model;
  const char *layout;
  int gen, width;
  int ring_ch; float ring_bw; int ring_ok, ring_cross;
  int tree_ch; float tree_bw; int tree_ok;
  int model_ch;
  const char *order;
};

static const struct fact facts[] = {
  {"2.28.9", 89, "AuthenticAMD", 26, 2, "4+4", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 85, "4+4", 5, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 26, 2, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "AuthenticAMD", 26, 2, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 26, 2, "2+6", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 85, "2+6", 5, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "2+6", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "AuthenticAMD", 26, 2, "2+6", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 26, 2, "3+3", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5"},
  {"2.28.9", 90, "GenuineIntel", 6, 207, "3+3", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.28.9", 100, "AuthenticAMD", 26, 2, "3+3", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5"},
  {"2.28.9", 120, "GenuineIntel", 6, 85, "3+3", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5"},
  {"2.28.9", 89, "AuthenticAMD", 25, 17, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.28.9", 90, "AuthenticAMD", 26, 2, "4", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3"},
  {"2.28.9", 100, "GenuineIntel", 6, 207, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.28.9", 120, "AuthenticAMD", 25, 17, "4", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3"},
  {"2.28.9", 89, "GenuineIntel", 6, 85, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 85, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "GenuineIntel", 6, 85, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 207, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f6", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.28.9", 100, "GenuineIntel", 6, 207, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.28.9", 120, "GenuineIntel", 6, 207, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.28.9", 89, "AuthenticAMD", 25, 17, "4+4", 3, 16, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 26, 2, "4+4", 3, 16, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 85, "4+4", 3, 16, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 207, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 23, 49, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 191, 0, "4+4", 3, 16, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 143, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 173, "4+4", 3, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 79, "4+4", 3, 16, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "f8", 3, 16, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f8", 3, 16, 1, 12.0f, 1, 0, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "AuthenticAMD", 25, 17, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 26, 2, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 85, "4+4", 4, 8, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 207, "4+4", 4, 8, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 23, 49, "4+4", 4, 8, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 191, 0, "4+4", 4, 8, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 143, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 173, "4+4", 4, 8, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 79, "4+4", 4, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "f8", 4, 8, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f8", 4, 8, 1, 12.0f, 1, 0, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 26, 2, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 85, "4+4", 4, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 207, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 23, 49, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 191, 0, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "GenuineIntel", 6, 143, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 173, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 79, "4+4", 4, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "f8", 4, 16, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f8", 4, 16, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "4+4", 5, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "AuthenticAMD", 26, 2, "4+4", 5, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 85, "4+4", 5, 8, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 207, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 23, 49, "4+4", 5, 8, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 191, 0, "4+4", 5, 8, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "GenuineIntel", 6, 143, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 173, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 79, "4+4", 5, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "f8", 5, 8, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f8", 5, 8, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "AuthenticAMD", 25, 17, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 85, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "GenuineIntel", 6, 207, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 23, 49, "4+4", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 191, 0, "4+4", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 143, "4+4", 5, 16, 2, 11.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 173, "4+4", 5, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 79, "4+4", 5, 16, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 120, "AuthenticAMD", 25, 17, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "AuthenticAMD", 26, 2, "4+4", 3, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 85, "4+4", 3, 8, 1, 3.0f, 1, 2, 1, 3.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 207, "4+4", 3, 8, 1, 6.0f, 1, 8, 1, 6.0f, 1, 1, "0 4 1 5 2 6 3 7"},
  {"2.28.9", 90, "AuthenticAMD", 23, 49, "4+4", 3, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 191, 0, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "GenuineIntel", 6, 143, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "GenuineIntel", 6, 173, "4+4", 3, 8, 1, 3.0f, 1, 2, 1, 3.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 89, "GenuineIntel", 6, 79, "4+4", 3, 8, 1, 5.0f, 1, 2, 1, 5.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 100, "AuthenticAMD", 25, 17, "f8", 3, 8, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.28.9", 90, "AuthenticAMD", 25, 17, "f8", 3, 8, 1, 6.0f, 1, 0, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 26, 2, "4+4", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 85, "4+4", 5, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 26, 2, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 25, 17, "2+6", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 85, "2+6", 5, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "2+6", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 26, 2, "2+6", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 85, "3+3", 5, 16, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5"},
  {"2.30.7", 90, "GenuineIntel", 6, 207, "3+3", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.30.7", 100, "GenuineIntel", 6, 85, "3+3", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5"},
  {"2.30.7", 120, "GenuineIntel", 6, 85, "3+3", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5"},
  {"2.30.7", 89, "AuthenticAMD", 26, 2, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.30.7", 90, "GenuineIntel", 6, 207, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.30.7", 100, "AuthenticAMD", 26, 2, "4", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3"},
  {"2.30.7", 120, "AuthenticAMD", 26, 2, "4", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3"},
  {"2.30.7", 89, "GenuineIntel", 6, 207, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 85, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "GenuineIntel", 6, 207, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 25, 17, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.30.7", 90, "GenuineIntel", 6, 85, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f6", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.30.7", 120, "AuthenticAMD", 26, 2, "f6", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.30.7", 89, "AuthenticAMD", 25, 17, "4+4", 3, 16, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 26, 2, "4+4", 3, 16, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 85, "4+4", 3, 16, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 207, "4+4", 3, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 23, 49, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 191, 0, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "GenuineIntel", 6, 143, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 173, "4+4", 3, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "GenuineIntel", 6, 79, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f8", 3, 16, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "f8", 3, 16, 1, 12.0f, 1, 0, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 25, 17, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 26, 2, "4+4", 4, 8, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 85, "4+4", 4, 8, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 207, "4+4", 4, 8, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 23, 49, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 191, 0, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 143, "4+4", 4, 8, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 173, "4+4", 4, 8, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 79, "4+4", 4, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f8", 4, 8, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "f8", 4, 8, 1, 12.0f, 1, 0, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 25, 17, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 26, 2, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 85, "4+4", 4, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 207, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 23, 49, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 191, 0, "4+4", 4, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 143, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 173, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 79, "4+4", 4, 16, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f8", 4, 16, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "f8", 4, 16, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "4+4", 5, 8, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "AuthenticAMD", 26, 2, "4+4", 5, 8, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 85, "4+4", 5, 8, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 207, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 23, 49, "4+4", 5, 8, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 191, 0, "4+4", 5, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "GenuineIntel", 6, 143, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 173, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 79, "4+4", 5, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f8", 5, 8, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "f8", 5, 8, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 207, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 23, 49, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 191, 0, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 143, "4+4", 5, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "GenuineIntel", 6, 173, "4+4", 5, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 79, "4+4", 5, 16, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 25, 17, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 120, "AuthenticAMD", 26, 2, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 89, "GenuineIntel", 6, 85, "4+4", 3, 8, 1, 5.0f, 1, 2, 1, 5.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 207, "4+4", 3, 8, 1, 6.0f, 1, 8, 1, 6.0f, 1, 1, "0 4 1 5 2 6 3 7"},
  {"2.30.7", 90, "AuthenticAMD", 23, 49, "4+4", 3, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 191, 0, "4+4", 3, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 143, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "GenuineIntel", 6, 173, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "GenuineIntel", 6, 79, "4+4", 3, 8, 1, 3.0f, 1, 2, 1, 3.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 100, "AuthenticAMD", 25, 17, "f8", 3, 8, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.30.7", 90, "AuthenticAMD", 25, 17, "f8", 3, 8, 1, 6.0f, 1, 0, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 207, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "4+4", 5, 16, 1, 24.0f, 1, 2, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 207, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "GenuineIntel", 6, 207, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 85, "2+6", 5, 16, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 207, "2+6", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 85, "2+6", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "GenuineIntel", 6, 85, "2+6", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "AuthenticAMD", 26, 2, "3+3", 5, 16, 2, 15.0f, 1, 2, 2, 15.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.31.0", 90, "GenuineIntel", 6, 207, "3+3", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.31.0", 100, "AuthenticAMD", 26, 2, "3+3", 5, 16, 2, 15.0f, 1, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5"},
  {"2.31.0", 120, "AuthenticAMD", 26, 2, "3+3", 5, 16, 2, 15.0f, 1, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5"},
  {"2.31.0", 89, "GenuineIntel", 6, 207, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "4", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3"},
  {"2.31.0", 100, "GenuineIntel", 6, 85, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.31.0", 120, "GenuineIntel", 6, 207, "4", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3"},
  {"2.31.0", 89, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 85, "f8", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 85, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.31.0", 90, "GenuineIntel", 6, 207, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.31.0", 100, "GenuineIntel", 6, 85, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.31.0", 120, "GenuineIntel", 6, 85, "f6", 5, 16, 2, 20.0f, 1, 0, 2, 20.0f, 1, 2, "0 1 2 3 4 5"},
  {"2.31.0", 120, "AuthenticAMD", 25, 17, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 26, 2, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 85, "4+4", 3, 16, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 207, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "AuthenticAMD", 23, 49, "4+4", 3, 16, 1, 12.0f, 1, 2, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 191, 0, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 143, "4+4", 3, 16, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 173, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 79, "4+4", 3, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 25, 17, "f8", 3, 16, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "f8", 3, 16, 1, 12.0f, 1, 0, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 25, 17, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 26, 2, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 85, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 207, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 23, 49, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 191, 0, "4+4", 4, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 143, "4+4", 4, 8, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 173, "4+4", 4, 8, 1, 10.0f, 1, 2, 1, 10.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 79, "4+4", 4, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 25, 17, "f8", 4, 8, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "f8", 4, 8, 1, 12.0f, 1, 0, 1, 12.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "AuthenticAMD", 25, 17, "4+4", 4, 16, 2, 12.0f, 1, 2, 2, 12.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 26, 2, "4+4", 4, 16, 1, 24.0f, 1, 2, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 85, "4+4", 4, 16, 3, 3.0f, 1, 2, 3, 3.0f, 1, 3, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 207, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 23, 49, "4+4", 4, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 191, 0, "4+4", 4, 16, 1, 24.0f, 1, 2, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 143, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 173, "4+4", 4, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "GenuineIntel", 6, 79, "4+4", 4, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 25, 17, "f8", 4, 16, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "f8", 4, 16, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "AuthenticAMD", 25, 17, "4+4", 5, 8, 2, 12.0f, 1, 2, 2, 12.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "AuthenticAMD", 26, 2, "4+4", 5, 8, 2, 12.0f, 1, 2, 2, 12.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "GenuineIntel", 6, 85, "4+4", 5, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 207, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 23, 49, "4+4", 5, 8, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 191, 0, "4+4", 5, 8, 1, 24.0f, 1, 2, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 143, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 173, "4+4", 5, 8, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 79, "4+4", 5, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 25, 17, "f8", 5, 8, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "f8", 5, 8, 1, 24.0f, 1, 0, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 25, 17, "4+4", 5, 16, 1, 24.0f, 1, 2, 1, 24.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 26, 2, "4+4", 5, 16, 2, 15.0f, 1, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 85, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 207, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 23, 49, "4+4", 5, 16, 1, 15.0f, 1, 2, 1, 15.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 191, 0, "4+4", 5, 16, 2, 15.0f, 1, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 143, "4+4", 5, 16, 1, 20.0f, 1, 2, 1, 20.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 89, "GenuineIntel", 6, 173, "4+4", 5, 16, 2, 20.0f, 1, 2, 2, 20.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 79, "4+4", 5, 16, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "f8", 5, 16, 2, 24.0f, 1, 0, 2, 24.0f, 1, 2, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "4+4", 3, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 26, 2, "4+4", 3, 8, 1, 6.0f, 1, 2, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 85, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "GenuineIntel", 6, 207, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "AuthenticAMD", 23, 49, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 191, 0, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "GenuineIntel", 6, 143, "4+4", 3, 8, 1, 3.0f, 1, 2, 1, 3.0f, 1, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 120, "GenuineIntel", 6, 173, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "GenuineIntel", 6, 79, "4+4", 3, 8, 1, 0.1f, 0, 2, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 100, "AuthenticAMD", 25, 17, "f8", 3, 8, 1, 0.1f, 0, 0, 1, 0.1f, 0, 1, "0 1 2 3 4 5 6 7"},
  {"2.31.0", 90, "AuthenticAMD", 25, 17, "f8", 3, 8, 1, 6.0f, 1, 0, 1, 6.0f, 1, 1, "0 1 2 3 4 5 6 7"},
};

/* The system NCCL builds from such a file: GPUs in file order, ranks in bus order (= file order). */
static void build(const struct fact *f, struct nn_search_topo *t, const struct nn_nccl_release *r) {
  memset(t, 0, sizeof *t);
  int groups[NN_SEARCH_MAX_CPUS], ng = 0;
  if (f->layout[0] == 'f') {
    assert_int_equal(nn_int_parse_prefix(f->layout + 1, 1, NN_SEARCH_MAX_GPUS, &groups[ng++], NULL), 0);
  } else {
    for (const char *p = f->layout; *p; p++) {
      assert_int_equal(nn_int_parse_prefix(p, 1, NN_SEARCH_MAX_GPUS, &groups[ng++], NULL), 0);
      while (p[1] && p[1] != '+') p++;
      if (p[1] == '+') p++;
    }
  }
  for (int c = 0; c < ng; c++) {
    t->cpu_numa[c] = f->layout[0] == 'f' ? -1 : c;
    for (int i = 0; i < groups[c]; i++) {
      t->gpu_cpu[t->n_gpus] = c;
      t->gpu_rank[t->n_gpus] = t->n_gpus;
      t->gpu_link_gbps[t->n_gpus] = nn_nccl_pcie_gbps(f->gen, f->width);
      t->n_gpus++;
    }
  }
  t->n_cpus = ng;
  t->arch = NN_ARCH_X86;
  t->vendor = nn_nccl_vendor_from_name(f->vendor);
  t->cpu_link_gbps = nn_nccl_cpu_link_gbps(r, t->arch, t->vendor, f->family, f->model);
  t->sm = f->sm;
}

static void order_text(const struct nn_graph_pred *g, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < g->n_order && len + 4 < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? " " : "", g->order[i]);
}

static void test_against_nccl(void **state) {
  (void)state;
  int bad = 0, n = (int)(sizeof facts / sizeof facts[0]);
  for (int i = 0; i < n; i++) {
    const struct fact *f = &facts[i];
    int unverified;
    const struct nn_nccl_release *r = nn_nccl_release_find(nn_nccl_version_parse(f->rel), &unverified);
    assert_int_equal(unverified, 0);
    struct nn_search_topo t;
    struct nn_search_pred p;
    build(f, &t, r);
    assert_int_equal(nn_search_predict(r, &t, &p), 0);
    char order[160];
    order_text(&p.ring, order, sizeof order);
    int ok = p.ring.nchannels == f->ring_ch && p.ring.bw_intra == f->ring_bw && p.ring.ok == f->ring_ok &&
             p.ring.crossings == f->ring_cross && p.tree.nchannels == f->tree_ch && p.tree.bw_intra == f->tree_bw &&
             p.tree.ok == f->tree_ok && p.model_nchannels == f->model_ch && !strcmp(order, f->order);
    if (!ok) {
      bad++;
      printf("case %d (%s sm %d %s %d/%d %s gen%d x%d): NCCL ring %d x %.1f ok %d cross %d tree %d x %.1f ok %d "
             "model %d order %s; predicted ring %d x %.1f ok %d cross %d tree %d x %.1f ok %d model %d order %s\n",
             i, f->rel, f->sm, f->vendor, f->family, f->model, f->layout, f->gen, f->width, f->ring_ch,
             (double)f->ring_bw, f->ring_ok, f->ring_cross, f->tree_ch, (double)f->tree_bw, f->tree_ok, f->model_ch,
             f->order, p.ring.nchannels, (double)p.ring.bw_intra, p.ring.ok, p.ring.crossings, p.tree.nchannels,
             (double)p.tree.bw_intra, p.tree.ok, p.model_nchannels, order);
    }
  }
  printf("%d cases against NCCL's own search, %d differ\n", n, bad);
  assert_int_equal(bad, 0);
}

/* The served view of a mapping: one CPU per NUMA node in ascending order, GPUs in index order
 * under it, ranks in bus order; NCCL's flat view: one CPU numaid -1. */
static void test_build_from_mapping(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse("cpu vendor=AuthenticAMD family=25 model=17\n"
                                        "gpu 0 bus=81:00.0 numa=1 pcie=5x16\ngpu 1 bus=01:00.0 numa=0 pcie=4x8\n"
                                        "gpu 2 bus=82:00.0 numa=1\ngpu 3 bus=02:00.0 numa=0\n");
  const struct nn_nccl_release *r = nn_nccl_release_find(NN_NCCL_VERSION(2, 31, 2), NULL);
  struct nn_cpu_kind cpu = {"AuthenticAMD", 25, 17, 0};
  struct nn_pcie_link links[4] = {{5, 16, NN_LINK_CONFIG}, {4, 8, NN_LINK_CONFIG}, {0, 0, NN_LINK_ASSUMED},
                                  {0, 0, NN_LINK_ASSUMED}};
  struct nn_search_topo t;
  char err[128];
  assert_int_equal(cfg->gpus[0].pcie_gen, 5);
  assert_int_equal(cfg->gpus[1].pcie_width, 8);
  assert_int_equal(nn_search_topo_build(r, cfg, &cpu, 90, links, NULL, &t, err, sizeof err), 0);
  assert_int_equal(t.n_cpus, 2);
  assert_int_equal(t.cpu_numa[0], 0);
  assert_int_equal(t.gpu_rank[0], 0);      /* GPU 1, bus 01 */
  assert_int_equal(t.gpu_rank[1], 1);      /* GPU 3, bus 02 */
  assert_int_equal(t.gpu_rank[2], 2);      /* GPU 0, bus 81 */
  assert_true(t.gpu_link_gbps[0] == 12.0f);
  assert_true(t.gpu_link_gbps[2] == 48.0f);
  assert_true(t.gpu_link_gbps[3] == 48.0f); /* unknown: assumed gen5 x16 */
  assert_true(t.cpu_link_gbps == 24.0f);
  int flat[4] = {-1, -1, -1, -1};
  assert_int_equal(nn_search_topo_build(r, cfg, &cpu, 90, links, flat, &t, err, sizeof err), 0);
  assert_int_equal(t.n_cpus, 1);
  assert_int_equal(t.cpu_numa[0], -1);
  nn_config_free(cfg);
  const char *bad_keys[] = {"pcie=7x16", "pcie=4x3", "pcie=4", "pcie=x16", "pcie=4x16x", "pcie=gen4x16"};
  for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
    char text[128];
    struct nn_config *c2 = NULL;
    struct nn_diag d = {0};
    snprintf(text, sizeof text, "gpu 0 bus=01:00.0 numa=0 %s\n", bad_keys[i]);
    assert_int_equal(nn_config_parse("t.conf", text, strlen(text), NULL, &c2, &d), -1);
    assert_true(d.n >= 1 && strstr(d.msgs[0], "t.conf:1: gpu: bad pcie"));
    nn_diag_clear(&d);
  }
  struct nn_search_topo bad = {0};
  struct nn_search_pred p;
  assert_int_equal(nn_search_predict(r, &bad, &p), -1);
}

static void put(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* sysfs as each release reads it: 2.28 the lower of the GPU's and its port's maximum,
 * 2.30.7+ the GPU's current link (NVML's answer); `stable` always the maximum. */
static void test_sysfs(void **state) {
  (void)state;
  char root[] = "/tmp/nn-sysfs-XXXXXX", port[200], dev[300], cmd[1400];
  assert_non_null(mkdtemp(root));
  snprintf(port, sizeof port, "%s/sys/devices/pci0000:00/0000:00:01.0", root);
  snprintf(dev, sizeof dev, "%s/0000:01:00.0", port);
  snprintf(cmd, sizeof cmd, "mkdir -p %s %s/sys/bus/pci/devices && ln -s %s %s/sys/bus/pci/devices/0000:01:00.0",
           dev, root, dev, root);
  assert_int_equal(system(cmd), 0);
  put(dev, "max_link_speed", "32.0 GT/s PCIe\n");
  put(dev, "max_link_width", "16\n");
  put(dev, "current_link_speed", "2.5 GT/s PCIe\n");
  put(dev, "current_link_width", "16\n");
  put(dev, "numa_node", "1\n");
  put(port, "max_link_speed", "16.0 GT/s PCIe\n");
  put(port, "max_link_width", "16\n");
  struct nn_busid bus = {0, 1, 0, 0}, none = {0, 2, 0, 0};
  struct nn_pcie_link l;
  const struct nn_nccl_release *r228 = nn_nccl_release_find(22809, NULL), *r230 = nn_nccl_release_find(23007, NULL);
  assert_int_equal(nn_search_read_sysfs_link(r228, root, &bus, 0, &l), 0);
  assert_int_equal(l.gen, 4);              /* the port's 16 GT/s */
  assert_int_equal(l.width, 16);
  assert_int_equal(l.origin, NN_LINK_SYSFS);
  assert_int_equal(nn_search_read_sysfs_link(r230, root, &bus, 0, &l), 0);
  assert_int_equal(l.gen, 1);              /* idle GPU: current 2.5 GT/s */
  assert_int_equal(nn_search_read_sysfs_link(r230, root, &bus, 1, &l), 0);
  assert_int_equal(l.gen, 4);
  assert_int_equal(nn_search_read_sysfs_link(r228, root, &none, 0, &l), -1);
  assert_int_equal(nn_search_read_sysfs_numa(root, &bus), 1);
  assert_int_equal(nn_search_read_sysfs_numa(root, &none), -1);
  put(dev, "numa_node", "-1\n");
  assert_int_equal(nn_search_read_sysfs_numa(root, &bus), -1);
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_against_nccl), cmocka_unit_test(test_build_from_mapping), cmocka_unit_test(test_sysfs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
