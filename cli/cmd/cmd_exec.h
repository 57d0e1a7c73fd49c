/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_exec.h - `nccl-numa exec` and `nccl-numa env`: switch nccl-numa on for one
 * command (e.g. an SGLang server) by setting NCCL_TUNER_PLUGIN and
 * NCCL_ENV_PLUGIN to the absolute path of the installed library and
 * NCCL_NUMA_CONFIG to the absolute path of the mapping; nothing else changes.
 * Also where the CLI finds the library and the mapping, shared with `ab`.
 */
#ifndef NCCL_NUMA_CLI_CMD_EXEC_H
#define NCCL_NUMA_CLI_CMD_EXEC_H

#include <stddef.h>

#define NN_PLUGIN_FILE "libnccl-tuner-numa.so"

/* The plugin library's absolute path: `override` when given (made absolute),
 * else <dir of this executable>/../lib/libnccl-tuner-numa.so (installed
 * layout), else <dir of this executable>/libnccl-tuner-numa.so (build tree).
 * Returns 0, or -1 with a reason in err. */
int nn_plugin_locate(const char *override, char *buf, size_t size, char *err, size_t errsz);

/* The mapping's absolute path, found as the plugin finds it (nn_config_source_find:
 * `given`, else $NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf); it must exist. Returns 0,
 * or -1 with a reason in err. */
int nn_config_locate(const char *given, char *buf, size_t size, char *err, size_t errsz);


/* nccl-numa exec [--config FILE] [--plugin PATH] [--bind-for sglang|vllm] [--sysfs-root DIR]
 * -- COMMAND [ARGS...] (bindfor.h: the engine's NUMA binding options, appended) */
int nn_cmd_exec(int argc, char **argv);
/* nccl-numa env [--config FILE] [--plugin PATH]: the same settings as `export` lines. */
int nn_cmd_env(int argc, char **argv);

#endif
