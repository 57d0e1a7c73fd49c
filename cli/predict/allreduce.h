/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * allreduce.h - the engine's own all-reduce over PCIe peer memory, and whether a job may use
 * it. At TP 4 and 8 on PCIe both engines switch their custom all-reduce off (world_size > 2
 * and not fully connected) and send every all-reduce to NCCL. Both now have an opt-in one over
 * GPU peer memory, FlashInfer's PcieIpcAllReduceWorkspace (flashinfer-ai/flashinfer #4393,
 * world sizes 2, 4 and 8 only, in flashinfer/comm: _SUPPORTED_WORLD_SIZES):
 *   SGLang: SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1 (sgl-project/sglang #34528, read in
 *           python/sglang/srt/environ.py and distributed/parallel_state.py);
 *   vLLM:   VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1 (vllm-project/vllm #53576, v0.30.0, read in
 *           vllm/envs.py); without FlashInfer's kernels it silently falls back to NCCL.
 * Both need working cross-process peer access, which is what the mapping's p2p line records
 * (`nccl-numa p2p`). The installed engine and FlashInfer are found by reading files only, in
 * the Python environment explain reads NCCL's release from (pyenv.h): its dist-info METADATA
 * and the source files that must mention the variable or define the class. Nothing of the
 * environment is run, imported or loaded.
 */
#ifndef NCCL_NUMA_CLI_ALLREDUCE_H
#define NCCL_NUMA_CLI_ALLREDUCE_H

#include <limits.h>
#include <stddef.h>

#include "nn_config.h"
#include "visible.h"

/* What the Python environment holds of one engine (bindfor.h's NN_BIND_SGLANG or NN_BIND_VLLM). */
struct nn_allreduce_install {
  char env[PATH_MAX + 64]; /* the environment, for messages ("python3 on PATH: /usr/bin/python3") */
  char engine_version[32]; /* its METADATA's Version; "" when the engine is not installed */
  char engine_source[PATH_MAX]; /* the engine's file naming the variable; "" when none does */
  char fi_version[32];          /* flashinfer-python's Version; "" when not installed */
  char fi_source[PATH_MAX];     /* FlashInfer's file defining PcieIpcAllReduceWorkspace; "" none */
};

/* The engine's variable: "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE" or
 * "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC"; NULL for another engine. */
const char *nn_allreduce_variable(int engine);

/* "SGLang" or "vLLM". */
const char *nn_allreduce_engine_name(int engine);

/* Reads the environment of `python` (pyenv.h's nn_pyenv_python) for the engine: its site
 * directories in sys.path order, the first holding the engine's dist-info (and FlashInfer's,
 * looked for in the same order). Returns 0, or -1 with why (no such interpreter). */
int nn_allreduce_scan(int engine, const char *python, struct nn_allreduce_install *out, char *why,
                      size_t whysz);

/* Whether the job may use the engine's PCIe all-reduce: the p2p line is `ok`, its cross-process
 * test passed, it covers the job's GPUs (mapping_gpus, n of them; n < 1: not matched) and is
 * served under the running driver (nn_config_p2p_serve), the engine's kernel takes the TP size
 * `tp` (2, 4, 8), and the installed engine reads the variable and FlashInfer has the kernels.
 * 1 with what it rests on in why, else 0 with the first reason it fails. */
int nn_allreduce_decide(const struct nn_config *cfg, const int *mapping_gpus, int n, int tp,
                        int engine, const struct nn_allreduce_install *in, char *why, size_t whysz);

/* The whole question for a job whose GPUs are `vis` (visible.h): the active Python environment
 * (pyenv.h's nn_pyenv_python) scanned into *in, then nn_allreduce_decide with TP `tp` (< 1: the
 * job's GPU count). Returns decide's answer; why says the first reason against, or what it
 * rests on. */
int nn_allreduce_for_job(const struct nn_config *cfg, const struct nn_visible *vis, int tp,
                         int engine, struct nn_allreduce_install *in, char *why, size_t whysz);

/* For the summary explain and check end with (summary.h), the job being the GPUs of `cfg` (the
 * mapping as the job sees it): which path its decode-size all-reduces take (NCCL over host
 * memory, NCCL over peer access, the engines' own custom all-reduce at TP=2 with peer access)
 * and, per engine installed in the active Python environment, whether exec --bind-for would
 * hand it its PCIe all-reduce; then how to measure. One sentence into buf (no leading capital,
 * no final stop; \x01 a space that must not wrap); returns 0 (buf empty) for fewer than two GPUs.
 */
int nn_allreduce_words(const struct nn_config *cfg, char *buf, size_t size);

#endif
