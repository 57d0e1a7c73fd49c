/* SPDX-License-Identifier: BSD-3-Clause */
/* env_names.c - the NCCL variables a mapping may serve (env_names.h). */
#include "env_names.h"

#include <stdlib.h>
#include <string.h>

/* Names as NCCL 2.28.9 reads them (its NCCL_PARAM names in libnccl.so.2.28.9), sorted for
 * bsearch. Each only tunes what NCCL does with the devices and links it finds. */
static const char *const allowed[] = {
  "NCCL_ALGO", "NCCL_BUFFSIZE", "NCCL_CGA_CLUSTER_SIZE", "NCCL_CHUNK_SIZE",
  "NCCL_COLLNET_ENABLE", "NCCL_CROSS_NIC", "NCCL_CTA_POLICY", "NCCL_CUMEM_ENABLE",
  "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DMABUF_ENABLE", "NCCL_GRAPH_REGISTER",
  "NCCL_IB_ADAPTIVE_ROUTING", "NCCL_IB_DISABLE", "NCCL_IB_GID_INDEX", "NCCL_IB_HCA",
  "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_RETRY_CNT",
  "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_SL", "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_TC",
  "NCCL_IB_TIMEOUT", "NCCL_IGNORE_CPU_AFFINITY", "NCCL_IGNORE_DISABLED_P2P", "NCCL_LAUNCH_MODE",
  "NCCL_LL128_BUFFSIZE", "NCCL_LL128_NTHREADS", "NCCL_LL_BUFFSIZE", "NCCL_LOCAL_REGISTER",
  "NCCL_MAX_CTAS", "NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS", "NCCL_MAX_P2P_NCHANNELS",
  "NCCL_MIN_CTAS", "NCCL_MIN_NCHANNELS", "NCCL_MIN_NRINGS", "NCCL_MIN_P2P_NCHANNELS",
  "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ",
  "NCCL_NET_SHARED_BUFFERS", "NCCL_NET_SHARED_COMMS", "NCCL_NSOCKS_PERTHREAD", "NCCL_NTHREADS",
  "NCCL_NVB_DISABLE", "NCCL_NVLS_ENABLE", "NCCL_P2P_DIRECT_DISABLE", "NCCL_P2P_DISABLE",
  "NCCL_P2P_LEVEL", "NCCL_P2P_LL_THRESHOLD", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_NVL_CHUNKSIZE",
  "NCCL_P2P_PCI_CHUNKSIZE", "NCCL_P2P_PXN_LEVEL", "NCCL_P2P_READ_ENABLE",
  "NCCL_P2P_USE_CUDA_MEMCPY", "NCCL_PAT_ENABLE", "NCCL_PROTO", "NCCL_PXN_DISABLE",
  "NCCL_RUNTIME_CONNECT", "NCCL_SHM_DISABLE", "NCCL_SHM_LOCALITY", "NCCL_SHM_MEMCPY_MODE",
  "NCCL_SHM_USE_CUDA_MEMCPY", "NCCL_SOCKET_FAMILY", "NCCL_SOCKET_IFNAME", "NCCL_SOCKET_NTHREADS",
  "NCCL_THREAD_THRESHOLDS", "NCCL_WORK_FIFO_BYTES", NULL};

static int by_name(const void *key, const void *elem) {
  return strcmp(key, *(const char *const *)elem);
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

const char *nn_env_refusal(const char *name) {
  if (!strncmp(name, "NCCL_NUMA_", 10)) return "nccl-numa's own settings come only from the real environment";
  if (ends_with(name, "_PLUGIN")) return "it names a library for NCCL to load";
  if (ends_with(name, "_FILE")) return "it names a file for NCCL to read or write";
  if (!strcmp(name, "NCCL_COMM_ID")) return "it names the peer NCCL's bootstrap connects to";
  size_t n = sizeof allowed / sizeof allowed[0] - 1;
  if (bsearch(name, allowed, n, sizeof allowed[0], by_name)) return NULL;
  return "not one of the tuning variables a mapping may serve (docs/user/mapping.md lists them)";
}

const char *const *nn_env_allowed_names(void) { return allowed; }
