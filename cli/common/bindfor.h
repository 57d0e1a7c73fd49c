/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bindfor.h - `exec --bind-for ENGINE`: the NUMA node of each GPU the job can see, in the
 * order the engine numbers them, in the form the engine's own NUMA binding takes it, as
 * options appended to the engine's command line.
 * SGLang: `--numa-node N0 N1 ...`, element i for GPU id i (sgl-project/sglang,
 * python/sglang/srt/server_args.py `--numa-node` type=int nargs="+", read as
 * numa_node[gpu_id] in python/sglang/srt/utils/numa_utils.py get_numa_node_if_available).
 * vLLM: `--numa-bind --numa-bind-nodes N0 N1 ...`, one node per visible GPU (vllm-project/vllm,
 * vllm/config/parallel.py numa_bind_nodes, which requires numa_bind; vllm/engine/arg_utils.py).
 * Both engines' GPU ids are CUDA's device ordinals, i.e. positions in CUDA_VISIBLE_DEVICES,
 * so the list follows the visible set (visible.h), not the mapping's indices. Both hand the
 * nodes to numactl, so each must be a NUMA node of this (guest) OS.
 */
#ifndef NCCL_NUMA_CLI_BINDFOR_H
#define NCCL_NUMA_CLI_BINDFOR_H

#include <stddef.h>

#include "nn_config.h"
#include "visible.h"

enum nn_bind_engine { NN_BIND_NONE, NN_BIND_SGLANG, NN_BIND_VLLM };

/* The most options nn_bind_args appends: the flags and one node per GPU. */
#define NN_BIND_MAX_ARGS (NN_MAX_GPUS + 2)

/* "sglang" or "vllm"; NN_BIND_NONE for anything else. */
int nn_bind_engine_parse(const char *name);

/* The options for `engine` for the job's GPUs (nn_visible_order of cfg and vis; vis from
 * nn_visible_resolve): written to out (pointers into a static buffer, valid until the next
 * call), and their count returned. 0 with the reason in why when nothing is to be added: no gpu
 * lines, a host-side mapping, devices not matched to the mapping, a NUMA node that
 * SYSFS_ROOT/sys/devices/system/node/nodeN does not show (sysfs_root NULL = /), or `args`
 * (the engine's command line, NULL-terminated) already giving the engine's option. */
int nn_bind_args(const struct nn_config *cfg, const struct nn_visible *vis, int engine,
                 const char *sysfs_root, char *const *args, const char **out, char *why,
                 size_t whysz);

/* Whether --bind-for has something to bind: the mapping's GPUs on at least two NUMA nodes, each
 * a node of this OS (under sysfs_root, NULL = /: else the OS has no real nodes to pin to), and
 * the job's GPUs matched to the mapping. Then fills
 * `list` with the job's list ("0 0 0 0") and returns 1; else 0. For explain and check. */
int nn_bind_applies(const struct nn_config *cfg, const struct nn_visible *vis,
                    const char *sysfs_root, char *list, size_t size);

#endif
