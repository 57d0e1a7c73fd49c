/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl_model.c - the table of NCCL's PCIe-node model per release (facts, cited per row). */
#include "nccl_model.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_config.h"
#include "numparse.h"

/* Intra-node search steps, src/graph/search.cc speedArrayIntra / sm90SpeedArrayIntra /
 * sm100SpeedArrayIntra. The first two are the same from v2.21.5-1 to dev (2.31). */
static const float steps_base[] = {40.0f, 30.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f,
                                   9.0f,  7.0f,  6.0f,  5.0f,  4.0f,  3.0f};
static const float steps_sm90[] = {60.0f, 50.0f, 40.0f, 30.0f, 24.0f, 20.0f,
                                   15.0f, 12.0f, 11.0f, 6.0f,  3.0f};
/* v2.25.1-1 .. v2.26.6-1: ends at 19 */
static const float steps_sm100_225[] = {90.0f, 80.0f, 70.0f, 60.0f, 50.0f,
                                        40.0f, 30.0f, 24.0f, 20.0f, 19.0f};
/* v2.27.3-1 .. v2.28.9-1: 18 added */
static const float steps_sm100_227[] = {90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 40.0f,
                                        30.0f, 24.0f, 20.0f, 19.0f, 18.0f};
/* v2.29.2-1 .. dev: 45 added */
static const float steps_sm100_229[] = {90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 45.0f,
                                        40.0f, 30.0f, 24.0f, 20.0f, 19.0f, 18.0f};

/* Inter-node search steps, search.cc speedArrayInter / sm90SpeedArrayInter (the same from
 * v2.21.5-1 to dev) and sm100SpeedArrayInter: v2.25.1-1..v2.26.6-1 sm90's list, v2.27.3-1..
 * v2.30.0 96 and 45.1 added, from v2.30.3-1 86 and 80 too. */
static const float inter_base[] = {48.0f, 30.0f, 28.0f, 24.0f, 20.0f, 18.0f, 15.0f,
                                   12.0f, 10.0f, 9.0f,  7.0f,  6.0f,  5.0f,  4.0f,
                                   3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
static const float inter_sm90[] = {48.0f, 45.0f, 42.0f, 40.0f, 30.0f, 24.0f, 22.0f, 20.0f, 17.5f,
                                   15.0f, 12.0f, 6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
static const float inter_sm100_227[] = {96.0f, 48.0f, 45.1f, 42.0f, 40.0f, 30.0f,
                                        24.0f, 22.0f, 20.0f, 17.5f, 15.0f, 12.0f,
                                        6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
static const float inter_sm100_230[] = {96.0f, 86.0f, 80.0f, 48.0f, 45.1f, 42.0f, 40.0f,
                                        30.0f, 24.0f, 22.0f, 20.0f, 17.5f, 15.0f, 12.0f,
                                        6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};

#define NN_STEPS(a) \
  { (a), (int)(sizeof(a) / sizeof((a)[0])) }

/* What each release reads of the environment (git grep of the tags in NVIDIA/nccl):
 * NCCL_NETDEVS_POLICY from v2.28.3-1 (src/graph/topo.cc); NCCL_CTA_POLICY's names from
 * v2.29.2-1 (src/init.cc getEnvCtaPolicyOnce; v2.28.9-1 NCCL_PARAM(CtaPolicy) reads a number);
 * from v2.30.7-1 NCCL_NET_MERGE_POLICY (src/graph/topo.cc), parseStringList's
 * hca[:port[:rail[:plane]]] with an empty field read as -1 (src/misc/utils.cc; before, atoi of
 * what follows the first ':'), and neither NCCL_SHM_MEMCPY_MODE nor NCCL_SHM_USE_CUDA_MEMCPY
 * (src/transport/shm.cc, read up to v2.30.4-1). dev (2.31) as v2.30.7-1. */
#define NN_ENV_2_28 .env_netdevs_policy = 1
#define NN_ENV_2_29 NN_ENV_2_28, .env_cta_policy_names = 1
#define NN_ENV_2_30_7 \
  NN_ENV_2_29, .env_net_merge_policy = 1, .env_ib_hca_rail = 1, .env_shm_memcpy_gone = 1
#define NN_NO_STEPS \
  { NULL, 0 }

/* Values common to every row (src/graph/topo.h of v2.21.5-1 .. dev): BDW_QPI_BW 6, SKL_QPI_BW 10,
 * SRP_QPI_BW 22, ERP_QPI_BW 40, P9_BW 32, ARM_BW 6, ZPI_BW 6, YONGFENG_ZPI_BW 9; an x86 vendor
 * NCCL does not know keeps LOC_BW 5000 (ncclTopoGetInterCpuBw). AMD_BW 16 before 2.31. */
#define NN_COMMON_CPU \
  .intel_bdw_gbps = 6.0f, .intel_skl_gbps = 10.0f, .intel_srp_gbps = 22.0f, \
  .intel_erp_gbps = 40.0f, .power_gbps = 32.0f, .arm_gbps = 6.0f, .zhaoxin_gbps = 6.0f, \
  .zhaoxin_yongfeng_gbps = 9.0f, .unknown_gbps = 5000.0f

/* Blackwell's per-channel Ring LL128 caps (src/graph/tuning.cc perChMaxRingLL128Bws; 2.31+
 * src/tuning/cost_model.cc): v2.25.1-1..v2.28.3-1 2 x 36.7 each, v2.28.7-1..v2.28.9-1 34.6 on
 * 2 nodes, v2.29.2-1..v2.29.3-1 34.5/34.6/34.5, from v2.29.7-1 40 each. Releases before 2.25
 * have no row for compute capability 10.0; the model gives them 2.25's. */
#define NN_RING_LL128_SM100_225 .ring_ll128_sm100 = {2 * 36.7, 2 * 36.7, 2 * 36.7}
#define NN_RING_LL128_SM100_40 .ring_ll128_sm100 = {40.0, 40.0, 40.0}

/* PCIe-node models that several rows share (rows that differ only in a plugin fact). */
#define NN_PCIE_MODEL_2_21 \
  .name = "2.21-2.24", .intra_base = NN_STEPS(steps_base), .intra_sm90 = NN_STEPS(steps_sm90), \
  .intra_sm100 = NN_NO_STEPS, .inter_sm100 = NN_NO_STEPS, .amd_zen12_gbps = 16.0f, \
  .amd_zen34_gbps = 16.0f, .amd_zen5_gbps = 16.0f, .amd_by_family = 0, .intel_tiers = 2, \
  .intel_erp_granite = 0, NN_COMMON_CPU, .gpulink = NN_GPULINK_SYSFS_MAX, .ll128_pcie_default = 0, \
  .tuner_constants_effective = 1, NN_RING_LL128_SM100_225
#define NN_PCIE_MODEL_2_27 \
  .name = "2.27-2.28", .intra_base = NN_STEPS(steps_base), .intra_sm90 = NN_STEPS(steps_sm90), \
  .intra_sm100 = NN_STEPS(steps_sm100_227), .inter_sm100 = NN_STEPS(inter_sm100_227), \
  .amd_zen12_gbps = 16.0f, .amd_zen34_gbps = 16.0f, .amd_zen5_gbps = 16.0f, .amd_by_family = 0, \
  .intel_tiers = 4, .intel_erp_granite = 0, NN_COMMON_CPU, .gpulink = NN_GPULINK_SYSFS_MAX, \
  .ll128_pcie_default = 0, .tuner_constants_effective = 1
#define NN_PCIE_MODEL_2_29 \
  .name = "2.29", .intra_base = NN_STEPS(steps_base), .intra_sm90 = NN_STEPS(steps_sm90), \
  .intra_sm100 = NN_STEPS(steps_sm100_229), .inter_sm100 = NN_STEPS(inter_sm100_227), \
  .amd_zen12_gbps = 16.0f, .amd_zen34_gbps = 16.0f, .amd_zen5_gbps = 16.0f, .amd_by_family = 0, \
  .intel_tiers = 4, .intel_erp_granite = 0, NN_COMMON_CPU, .gpulink = NN_GPULINK_SYSFS_MAX, \
  .ll128_pcie_default = 0, .tuner_constants_effective = 1, .fallback_bwinter_zero = 1
#define NN_PCIE_MODEL_2_32 \
  .name = "2.32", .intra_base = NN_STEPS(steps_base), .intra_sm90 = NN_STEPS(steps_sm90), \
  .intra_sm100 = NN_STEPS(steps_sm100_229), .inter_sm100 = NN_STEPS(inter_sm100_230), \
  .amd_zen12_gbps = 16.0f, .amd_zen34_gbps = 24.0f, .amd_zen5_gbps = 32.0f, .amd_by_family = 1, \
  .intel_tiers = 4, .intel_erp_granite = 1, NN_COMMON_CPU, .gpulink = NN_GPULINK_NVML_CURRENT, \
  .ll128_pcie_default = 0, .tuner_constants_effective = 1, .fallback_bwinter_zero = 1, \
  .dev_nodes = 1, .tuner_chunk_size = 1, .tuner_channels_lower_only = 1, \
  .negative_cost_selects = 1, .cost_model_subsystem = 1, .ll128_mixed_cc_sm90 = 1, \
  NN_RING_LL128_SM100_40, .local_net_mod_gpus = 1

/* getChunkSize: tuner v6 (src/include/plugin/tuner/tuner_v6.h from v2.30.3-1), called by
 * calcCollChunking (src/enqueue.cc, v2.30.3-1 .. dev); the released 2.30.7, 2.31.2 and 2.32.3
 * binaries carry its clamp message. No release before 2.30.3 asks for a chunk size.
 *
 * How a release reads a tuner's answer. Up to 2.30.7 (src/enqueue.cc, v2.21.5-1 getTunerInfo and
 * v2.22.3-1..v2.30.7-1 ncclGetAlgoInfo) a non-zero nChannels replaces NCCL's count for the call
 * (raise or lower, within the communicator's channels), and topoGetAlgoInfo takes the smallest
 * entry >= 0, so a negative one is disabled. From 2.31 (dev src/tuning/tuning_general.cc
 * ncclTuningGetChannels; tuning.cc ncclTuningCompute) only a count below NCCL's own is taken,
 * and the table is copied back into every candidate whose minimum wins with no >= 0 test, so a
 * negative entry would be chosen. Both read from the released 2.31.2 and 2.32.3 binaries too
 * (rows below). */
static const struct nn_nccl_release nn_table[] = {
  {
    .first = NN_NCCL_VERSION(2, 21, 0),
    .last = NN_NCCL_VERSION(2, 21, 99),
    NN_PCIE_MODEL_2_21,
    .tuner_abi = 2,
    .env_abi = 0,
    .source = "v2.21.5-1: src/include/nccl_tuner.h (ncclTuner_v2_t only); as all of 2.21-2.24: "
              "src/graph/search.cc (ccMin >= 90 -> sm90 steps, no sm100 class), src/graph/topo.cc "
              "ncclTopoAddCpu (Intel: SKL for model >= 0x55, else BDW), src/graph/xml.cc (sysfs "
              "max_link_*), src/graph/tuning.cc (LL128 needs typeIntra <= NVB)",
  },
  {
    .first = NN_NCCL_VERSION(2, 22, 0),
    .last = NN_NCCL_VERSION(2, 23, 99),
    NN_PCIE_MODEL_2_21,
    .tuner_abi = 3,
    .env_abi = 0,
    .source =
      "v2.22.3-1..v2.23.4-1: src/include/nccl_tuner.h (ncclTuner_v3_t, the cost table); the "
      "PCIe model as 2.21",
  },
  {
    .first = NN_NCCL_VERSION(2, 24, 0),
    .last = NN_NCCL_VERSION(2, 24, 99),
    NN_PCIE_MODEL_2_21,
    .tuner_abi = 4,
    .env_abi = 0,
    .source = "v2.24.3-1: src/include/nccl_tuner.h (ncclTuner_v4_t); the PCIe model as 2.21",
  },
  {
    .first = NN_NCCL_VERSION(2, 25, 0),
    .last = NN_NCCL_VERSION(2, 25, 99),
    .name = "2.25",
    .intra_base = NN_STEPS(steps_base),
    .intra_sm90 = NN_STEPS(steps_sm90),
    .intra_sm100 = NN_STEPS(steps_sm100_225),
    .inter_sm100 = NN_STEPS(inter_sm90),
    .amd_zen12_gbps = 16.0f,
    .amd_zen34_gbps = 16.0f,
    .amd_zen5_gbps = 16.0f,
    .amd_by_family = 0,
    .intel_tiers = 2,
    .intel_erp_granite = 0,
    NN_COMMON_CPU,
    .gpulink = NN_GPULINK_SYSFS_MAX,
    .ll128_pcie_default = 0,
    .tuner_constants_effective = 1,
    .tuner_abi = 4,
    .env_abi = 0,
    NN_RING_LL128_SM100_225,
    .source = "v2.25.1-1: src/graph/search.cc sm100SpeedArrayIntra (floor 19), src/graph/topo.cc "
              "(Intel SKL/BDW only), src/graph/xml.cc (sysfs max_link_*), src/graph/tuning.cc",
  },
  {
    .first = NN_NCCL_VERSION(2, 26, 0),
    .last = NN_NCCL_VERSION(2, 26, 99),
    .name = "2.26",
    .intra_base = NN_STEPS(steps_base),
    .intra_sm90 = NN_STEPS(steps_sm90),
    .intra_sm100 = NN_STEPS(steps_sm100_225),
    .inter_sm100 = NN_STEPS(inter_sm90),
    .amd_zen12_gbps = 16.0f,
    .amd_zen34_gbps = 16.0f,
    .amd_zen5_gbps = 16.0f,
    .amd_by_family = 0,
    .intel_tiers = 4,
    .intel_erp_granite = 0,
    NN_COMMON_CPU,
    .gpulink = NN_GPULINK_SYSFS_MAX,
    .ll128_pcie_default = 0,
    .tuner_constants_effective = 1,
    .tuner_abi = 4,
    .env_abi = 0,
    NN_RING_LL128_SM100_225,
    .source =
      "v2.26.2-1..v2.26.6-1: src/graph/search.cc (sm100 floor 19), src/graph/topo.cc "
      "(Intel ERP >= 0xCF, SRP >= 0x8F, SKL >= 0x55), src/graph/xml.cc, src/graph/tuning.cc",
  },
  {
    .first = NN_NCCL_VERSION(2, 27, 0),
    .last = NN_NCCL_VERSION(2, 27, 99),
    NN_PCIE_MODEL_2_27,
    .tuner_abi = 4,
    .env_abi = 0,
    NN_RING_LL128_SM100_225,
    .source = "v2.27.3-1..v2.27.7-1: src/graph/search.cc (sm100 floor 18), src/graph/topo.cc, "
              "src/graph/xml.cc (sysfs max_link_*), src/graph/tuning.cc; tuner v4 at most "
              "(src/include/plugin/tuner/), no \"none\" in src/plugin/tuner.cc, no env plugin",
  },
  {
    .first = NN_NCCL_VERSION(2, 28, 0),
    .last = NN_NCCL_VERSION(2, 28, 6),
    NN_PCIE_MODEL_2_27,
    .tuner_abi = 5,
    .env_abi = 0,
    NN_ENV_2_28,
    .tuner_none = 1,
    NN_RING_LL128_SM100_225,
    .source = "v2.28.3-1: the PCIe model as 2.27; src/include/plugin/tuner/tuner_v5.h (init gets "
              "the constants), src/plugin/tuner.cc (NCCL_TUNER_PLUGIN=none loads nothing); no "
              "src/plugin/env.cc",
  },
  {
    .first = NN_NCCL_VERSION(2, 28, 7),
    .last = NN_NCCL_VERSION(2, 28, 99),
    NN_PCIE_MODEL_2_27,
    .tuner_abi = 5,
    .env_abi = 1,
    NN_ENV_2_28,
    .tuner_none = 1,
    .ring_ll128_sm100 = {2 * 36.7, 34.6, 2 * 36.7},
    .source = "v2.28.7-1..v2.28.9-1: the PCIe model as 2.27 (checked with NCCL's own search built "
              "from v2.28.9-1); src/plugin/env.cc and src/include/plugin/env/env_v1.h (the env "
              "plugin); tuner v5 as 2.28.3",
  },
  {
    .first = NN_NCCL_VERSION(2, 29, 0),
    .last = NN_NCCL_VERSION(2, 29, 6),
    NN_PCIE_MODEL_2_29,
    .tuner_abi = 5,
    .env_abi = 1,
    NN_ENV_2_29,
    .tuner_none = 1,
    .ring_ll128_sm100 = {34.5, 34.6, 34.5},
    .source =
      "v2.29.2-1..v2.29.3-1: src/graph/search.cc (sm100 steps with 45; a failed search keeps "
      "bwInter 0 without a NIC), src/graph/topo.cc, src/graph/xml.cc (sysfs max_link_*), "
      "src/graph/tuning.cc",
  },
  {
    .first = NN_NCCL_VERSION(2, 29, 7),
    .last = NN_NCCL_VERSION(2, 30, 2),
    NN_PCIE_MODEL_2_29,
    .tuner_abi = 5,
    .env_abi = 1,
    NN_ENV_2_29,
    .tuner_none = 1,
    NN_RING_LL128_SM100_40,
    .source =
      "v2.29.7-1: as 2.29.2 but src/graph/tuning.cc perChMaxRingLL128Bws, Blackwell 40 GB/s "
      "per channel",
  },
  {
    .first = NN_NCCL_VERSION(2, 30, 3),
    .last = NN_NCCL_VERSION(2, 30, 6),
    .name = "2.30.3-2.30.4",
    .intra_base = NN_STEPS(steps_base),
    .intra_sm90 = NN_STEPS(steps_sm90),
    .intra_sm100 = NN_STEPS(steps_sm100_229),
    .inter_sm100 = NN_STEPS(inter_sm100_230),
    .amd_zen12_gbps = 16.0f,
    .amd_zen34_gbps = 16.0f,
    .amd_zen5_gbps = 16.0f,
    .amd_by_family = 0,
    .intel_tiers = 4,
    .intel_erp_granite = 0,
    NN_COMMON_CPU,
    .gpulink = NN_GPULINK_SYSFS_MAX,
    .ll128_pcie_default = 0,
    .tuner_constants_effective = 1,
    .fallback_bwinter_zero = 1,
    .dev_nodes = 1,
    .tuner_chunk_size = 1,
    .tuner_abi = 6,
    .env_abi = 1,
    NN_ENV_2_29,
    .tuner_none = 1,
    .ll128_mixed_cc_sm90 = 1,
    NN_RING_LL128_SM100_40,
    .source = "v2.30.3-1..v2.30.4-1: src/graph/topo.cc (each GPU behind a DEV node), "
              "src/graph/search.cc, src/graph/xml.cc (still sysfs max_link_*), src/graph/tuning.cc",
  },
  {
    .first = NN_NCCL_VERSION(2, 30, 7),
    .last = NN_NCCL_VERSION(2, 30, 99),
    .name = "2.30.7",
    .intra_base = NN_STEPS(steps_base),
    .intra_sm90 = NN_STEPS(steps_sm90),
    .intra_sm100 = NN_STEPS(steps_sm100_229),
    .inter_sm100 = NN_STEPS(inter_sm100_230),
    .amd_zen12_gbps = 16.0f,
    .amd_zen34_gbps = 16.0f,
    .amd_zen5_gbps = 16.0f,
    .amd_by_family = 0,
    .intel_tiers = 4,
    .intel_erp_granite = 0,
    NN_COMMON_CPU,
    .gpulink = NN_GPULINK_NVML_CURRENT,
    .ll128_pcie_default = 0,
    .tuner_constants_effective = 1,
    .fallback_bwinter_zero = 1,
    .dev_nodes = 1,
    .tuner_chunk_size = 1,
    .tuner_abi = 6,
    .env_abi = 2,
    NN_ENV_2_30_7,
    .tuner_none = 1,
    .ll128_mixed_cc_sm90 = 1,
    NN_RING_LL128_SM100_40,
    .local_net_mod_gpus = 1,
    .source = "v2.30.7-1: src/graph/xml.cc ncclTopoGetXmlFromGpu (NVML current PCIe generation and "
              "width when the file has none), src/graph/search.cc, src/graph/topo.cc, "
              "src/graph/tuning.cc; checked with NCCL's own search built from v2.30.7-1; topo.cc "
              "ncclTopoGetLocalNetType starts at gpu.dev % localGpuCount (v2.30.4-1: gpu.dev)",
  },
  {
    .first = NN_NCCL_VERSION(2, 31, 0),
    .last = NN_NCCL_VERSION(2, 31, 1),
    .name = "2.31.0 (dev)",
    .intra_base = NN_STEPS(steps_base),
    .intra_sm90 = NN_STEPS(steps_sm90),
    .intra_sm100 = NN_STEPS(steps_sm100_229),
    .inter_sm100 = NN_STEPS(inter_sm100_230),
    .amd_zen12_gbps = 16.0f,
    .amd_zen34_gbps = 24.0f,
    .amd_zen5_gbps = 32.0f,
    .amd_by_family = 1,
    .intel_tiers = 4,
    .intel_erp_granite = 1,
    NN_COMMON_CPU,
    .gpulink = NN_GPULINK_NVML_CURRENT,
    .ll128_pcie_default = 1,
    .tuner_constants_effective = 0,
    .fallback_bwinter_zero = 1,
    .dev_nodes = 1,
    .tuner_chunk_size = 1,
    .tuner_channels_lower_only = 1,
    .negative_cost_selects = 1,
    .tuner_abi = 6,
    .env_abi = 2,
    NN_ENV_2_30_7,
    .tuner_none = 1,
    .cost_model_subsystem = 1,
    .ll128_mixed_cc_sm90 = 1,
    NN_RING_LL128_SM100_40,
    .local_net_mod_gpus = 1,
    .source =
      "branch dev (2.31.0, no release): src/graph/topo.h AMD_ZEN12/34/5_BW, src/graph/topo.cc "
      "ncclTopoAddCpu (familyid 26/0xBF Zen 5, 25/0xAF Zen 3/4, else Zen 1/2; Intel 0xAD-0xAF "
      "as ERP), src/tuning/cost_model.cc (the LL128 check runs only when NCCL_ALGO/NCCL_PROTO "
      "is set, so LL128 is on by default over PCIe; the defaults are copied over the tuner's "
      "constants after its init, src/tuning/tuning.cc; tuner channels only lower, negative "
      "costs compete: src/tuning/tuning_general.cc, tuning.cc); checked with NCCL's own code "
      "built from dev",
  },
  {
    .first = NN_NCCL_VERSION(2, 31, 2),
    .last = NN_NCCL_VERSION(2, 31, 99),
    .name = "2.31.2",
    .intra_base = NN_STEPS(steps_base),
    .intra_sm90 = NN_STEPS(steps_sm90),
    .intra_sm100 = NN_STEPS(steps_sm100_229),
    .inter_sm100 = NN_STEPS(inter_sm100_230),
    .amd_zen12_gbps = 16.0f,
    .amd_zen34_gbps = 24.0f,
    .amd_zen5_gbps = 32.0f,
    .amd_by_family = 1,
    .intel_tiers = 4,
    .intel_erp_granite = 1,
    NN_COMMON_CPU,
    .gpulink = NN_GPULINK_NVML_CURRENT,
    .ll128_pcie_default = 0,
    .tuner_constants_effective = 0,
    .fallback_bwinter_zero = 1,
    .dev_nodes = 1,
    .tuner_chunk_size = 1,
    .tuner_channels_lower_only = 1,
    .negative_cost_selects = 1,
    .tuner_abi = 6,
    .env_abi = 2,
    NN_ENV_2_30_7,
    .tuner_none = 1,
    .cost_model_subsystem = 1,
    .ll128_mixed_cc_sm90 = 1,
    NN_RING_LL128_SM100_40,
    .local_net_mod_gpus = 1,
    .source =
      "released 2.31.2 libnccl.so.2 (PyPI nvidia-nccl-cu12, objdump -d with its symbol "
      "table): ncclTopoConnectCpus loads 16.0/24.0/32.0 for AMD, ncclTopoAddCpu compares "
      "familyid with 0xBF/0xAF/0x8F/26/25 and Intel models 0xAD-0xAF, >= 0xCF, >= 0x8F; "
      "ncclTuningInit calls ncclTunerPluginLoad, the tuner's init, then "
      "ncclTuningCostModelInit, which starts with a rep movsq of ncclTunerConstantsDefaults; "
      "ncclTuningCostModelInit applies the LL128 check (typeIntra <= NVB) to the default "
      "setting before the forced test, so LL128 stays off over PCIe; ncclTuningGetChannels "
      "keeps the tuner's maxChannels only when 0 < it < nc; ncclTuningCompute's minimum "
      "over the candidates' copied-back times has one compare, no >= 0 test; search as dev",
  },
  {
    .first = NN_NCCL_VERSION(2, 32, 0),
    .last = NN_NCCL_VERSION(2, 32, 5),
    NN_PCIE_MODEL_2_32,
    .tuner_abi = 6,
    .env_abi = 2,
    NN_ENV_2_30_7,
    .tuner_none = 1,
    .source =
      "released 2.32.3 libnccl.so.2 (PyPI nvidia-nccl-cu12, objdump -d with its symbol "
      "table): ncclTopoConnectCpus and ncclTopoAddCpu as 2.31.2; the rep movsq of "
      "ncclTunerConstantsDefaults moved to ncclTuningCostModelPreInit, which ncclTuningInit "
      "calls before ncclTunerPluginLoad, so a tuner's constants stay; LL128 check as 2.31.2; "
      "ncclTuningGetChannels as 2.31.2; ncclTuningCompute writes the tuner's table into each "
      "candidate's timeUs and ranks by selectionTimeUs > 0 ? selectionTimeUs : timeUs, no "
      ">= 0 test; no source tag, search as dev",
  },
  {
    .first = NN_NCCL_VERSION(2, 32, 6),
    .last = NN_NCCL_VERSION(2, 32, 99),
    NN_PCIE_MODEL_2_32,
    .tuner_abi = 7,
    .env_abi = 2,
    NN_ENV_2_30_7,
    .tuner_none = 1,
    .source =
      "NVIDIA/nccl commit 2449986 (the tuner v7 source include/nccl_abi.h cites for 2.32.6; "
      "no v2.32.6-1 tag in the mirror, so no nccl-oracle build): "
      "src/include/plugin/tuner/tuner_v7.h (ncclTuner_v7_t: v6's calls, constants with a "
      "fifth, Rubin, row); src/tuning/cost_model.cc: ncclTuningCostModelPreInit copies "
      "ncclTunerConstantsDefaults before the tuner loads, isLL128Enabled runs for the "
      "default setting (typeIntra <= NVB; mixed compute capabilities from 9.0), Ring LL128 "
      "Blackwell 40 GB/s per channel; where its constants differ from 2.32.3 (Blackwell "
      "llMaxBws N1 2 x 141.2, Tree LL128 N2 36.7) a PCIe node's LL bandwidth stays below "
      "the cap or the entry is multi-node. Search, topology and selection not in that "
      "snapshot: as 2.32.3",
  },
};

#define NN_TABLE_N ((int)(sizeof nn_table / sizeof nn_table[0]))

const struct nn_nccl_release *nn_nccl_release_table(int *count) {
  if (count) *count = NN_TABLE_N;
  return nn_table;
}

const struct nn_nccl_release *nn_nccl_release_find(int version_code, int *unverified) {
  int off = 1;
  const struct nn_nccl_release *r = &nn_table[NN_TABLE_N - 1];
  if (version_code < nn_table[0].first) {
    r = &nn_table[0];
  } else {
    for (int i = 0; i < NN_TABLE_N; i++)
      if (version_code >= nn_table[i].first && version_code <= nn_table[i].last) {
        r = &nn_table[i];
        off = 0;
      }
  }
  if (unverified) *unverified = off;
  return r;
}

const struct nn_speed_steps *nn_nccl_speed_steps(const struct nn_nccl_release *r, int sm) {
  if (sm >= 100 && r->intra_sm100.n > 0) return &r->intra_sm100;
  if (sm >= 90) return &r->intra_sm90;
  return &r->intra_base;
}

const struct nn_speed_steps *nn_nccl_inter_speed_steps(const struct nn_nccl_release *r, int sm) {
  static const struct nn_speed_steps base = NN_STEPS(inter_base), sm90 = NN_STEPS(inter_sm90);
  if (sm >= 100 && r->inter_sm100.n > 0) return &r->inter_sm100;
  return sm >= 90 ? &sm90 : &base;
}

float nn_nccl_search_floor(const struct nn_nccl_release *r, int sm) {
  const struct nn_speed_steps *s = nn_nccl_speed_steps(r, sm);
  return s->gbps[s->n - 1];
}

int nn_nccl_vendor_from_name(const char *vendor) {
  if (!vendor) return NN_VENDOR_UNKNOWN;
  if (!strcmp(vendor, "GenuineIntel")) return NN_VENDOR_INTEL;
  if (!strcmp(vendor, "AuthenticAMD")) return NN_VENDOR_AMD;
  if (!strcmp(vendor, "CentaurHauls") || !strcmp(vendor, "  Shanghai  ")) return NN_VENDOR_ZHAOXIN;
  return NN_VENDOR_UNKNOWN;
}

/* Intel tiers (ncclTopoAddCpu): 0 BDW, 1 SKL, 2 SRP, 3 ERP. */
static int intel_tier(const struct nn_nccl_release *r, int family, int model) {
  if (family != 6) return 0;
  if (r->intel_tiers >= 4) {
    if (model >= 0xCF || (r->intel_erp_granite && model >= 0xAD && model <= 0xAF)) return 3;
    if (model >= 0x8F) return 2;
  }
  return model >= 0x55 ? 1 : 0;
}

/* AMD class (2.31+ ncclTopoAddCpu): 0 Zen 1/2, 1 Zen 3/4, 2 Zen 5; the old XML numbering
 * 0xBF/0xAF/0x8F is read first. */
static int amd_class(int family) {
  if (family == 0xBF || family == 26) return 2;
  if (family == 0xAF || family == 25) return 1;
  return 0;
}

float nn_nccl_cpu_link_gbps(const struct nn_nccl_release *r, int arch, int vendor, int family,
                            int model) {
  if (arch == NN_ARCH_POWER) return r->power_gbps;
  if (arch == NN_ARCH_ARM) return r->arm_gbps;
  switch (vendor) {
  case NN_VENDOR_INTEL: {
    int t = intel_tier(r, family, model);
    return t == 3   ? r->intel_erp_gbps
           : t == 2 ? r->intel_srp_gbps
           : t == 1 ? r->intel_skl_gbps
                    : r->intel_bdw_gbps;
  }
  case NN_VENDOR_AMD: {
    if (!r->amd_by_family) return r->amd_zen12_gbps;
    int c = amd_class(family);
    return c == 2 ? r->amd_zen5_gbps : c == 1 ? r->amd_zen34_gbps : r->amd_zen12_gbps;
  }
  case NN_VENDOR_ZHAOXIN:
    return family == 7 && model == 0x5B ? r->zhaoxin_yongfeng_gbps : r->zhaoxin_gbps;
  default:
    return r->unknown_gbps;
  }
}

void nn_nccl_cpu_class(const struct nn_nccl_release *r, int arch, int vendor, int family, int model,
                       char *buf, size_t size) {
  static const char *const intel[] = {"Intel Broadwell class", "Intel Skylake class",
                                      "Intel Sapphire Rapids class", "Intel Emerald Rapids class"};
  static const char *const amd[] = {"AMD Zen 1/2 class", "AMD Zen 3/4 class", "AMD Zen 5 class"};
  if (arch == NN_ARCH_POWER) {
    snprintf(buf, size, "POWER");
    return;
  }
  if (arch == NN_ARCH_ARM) {
    snprintf(buf, size, "ARM");
    return;
  }
  if (vendor == NN_VENDOR_INTEL)
    snprintf(buf, size, "%s (family %d model 0x%X)", intel[intel_tier(r, family, model)], family,
             model < 0 ? 0 : (unsigned)model);
  else if (vendor == NN_VENDOR_AMD && r->amd_by_family)
    snprintf(buf, size, "%s (familyid %d)", amd[amd_class(family)], family);
  else if (vendor == NN_VENDOR_AMD)
    snprintf(buf, size, "AMD (one value for every family in this release)");
  else if (vendor == NN_VENDOR_ZHAOXIN)
    snprintf(buf, size, "Zhaoxin%s", family == 7 && model == 0x5B ? " Yongfeng" : "");
  else snprintf(buf, size, "an x86 vendor NCCL does not know");
}

float nn_nccl_pcie_gbps(int gen, int width) {
  /* kvDictPciGen, x100 Mbps per lane; NCCL's fallback for an unknown string is 60 */
  static const int speed[] = {60, 15, 30, 60, 120, 240, 480};
  int s = gen >= 1 && gen <= 6 ? speed[gen] : speed[0];
  if (width <= 0) width = 16;
  return (float)(width * s) / 80.0f;
}

int nn_nccl_proto_enabled_pcie(const struct nn_nccl_release *r, int proto, int sm) {
  (void)sm;
  if (proto == NN_PROTO_LL || proto == NN_PROTO_SIMPLE) return 1;
  if (proto == NN_PROTO_LL128) return r->ll128_pcie_default;
  return 0;
}

int nn_nccl_constants_ignored(int version_code, char *why, size_t size) {
  char v[16];
  if (version_code <= 0) {
    snprintf(why, size,
             "NCCL's release is unknown to the tuner (no env plugin init); NCCL 2.31.x copies its "
             "default constants over a tuner's after init, so there this has no effect");
    return 2;
  }
  const struct nn_nccl_release *r = nn_nccl_release_find(version_code, NULL);
  if (r->tuner_constants_effective) return 0;
  nn_nccl_version_format(version_code, v, sizeof v);
  snprintf(why, size,
           "no effect on NCCL %s: it copies its default constants over the tuner's after init "
           "(ncclTuningCostModelInit); nothing changes NCCL's choice on this release",
           v);
  return 1;
}

int nn_nccl_channels_no_effect(const struct nn_nccl_release *r, int channels, int comm_channels) {
  return r->tuner_channels_lower_only && comm_channels > 0 && channels >= comm_channels;
}

void nn_nccl_tuner_semantics(const struct nn_nccl_release *r, char *buf, size_t size) {
  if (r->tuner_channels_lower_only)
    snprintf(buf, size,
             "NCCL %s takes a rule's channels=N only below its own count for the call (it "
             "cannot raise it), and reads a negative cost as a time that can win",
             r->name);
  else
    snprintf(buf, size,
             "NCCL %s lets a rule's channels=N replace its own count (up to the "
             "communicator's channels), and reads a negative cost as disabled",
             r->name);
}

static _Atomic int nn_loaded_version;

int nn_nccl_loaded_version(void) { return nn_loaded_version; }

void nn_nccl_set_loaded_version(int version_code) { nn_loaded_version = version_code; }

int nn_nccl_release_since(size_t fact) {
  for (int i = 0; i < NN_TABLE_N; i++) {
    int value;
    memcpy(&value, (const char *)&nn_table[i] + fact, sizeof value);
    if (value) return nn_table[i].first;
  }
  return 0;
}

int nn_nccl_lacks_env_plugin(int version_code) {
  return version_code > 0 && !nn_nccl_release_find(version_code, NULL)->env_abi;
}

void nn_nccl_release_since_text(size_t fact, char *buf, size_t size) {
  nn_nccl_version_format(nn_nccl_release_since(fact), buf, size);
}

void nn_nccl_env_plugin_since(char *buf, size_t size) {
  nn_nccl_release_since_text(offsetof(struct nn_nccl_release, env_abi), buf, size);
}

int nn_nccl_version_plausible(int code) {
  return code >= NN_NCCL_VERSION(2, 9, 0) && code <= 99999;
}

int nn_nccl_version_assumed(void) { return NN_NCCL_VERSION(2, 28, 9); }
