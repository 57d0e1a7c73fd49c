/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * locate.h - where the command finds the plugin library and the mapping: the paths that
 * exec and env export, and that ab and calibrate hand to every run.
 */
#ifndef NCCL_NUMA_CLI_LOCATE_H
#define NCCL_NUMA_CLI_LOCATE_H

#include <stddef.h>

#define NN_PLUGIN_FILE "libnccl-tuner-numa.so"

/* The plugin library's absolute path: `override` when given (made absolute),
 * else <dir of this executable>/../lib/libnccl-tuner-numa.so (installed
 * layout), else <dir of this executable>/libnccl-tuner-numa.so (build tree).
 * Returns 0, or -1 with a reason in err. */
int nn_locate_plugin(const char *override, char *buf, size_t size, char *err, size_t errsz);

/* The mapping's absolute path, found as the plugin finds it (nn_config_source_find:
 * `given`, else $NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf); it must exist. Returns 0,
 * or -1 with a reason in err. */
int nn_locate_config(const char *given, char *buf, size_t size, char *err, size_t errsz);

#endif
