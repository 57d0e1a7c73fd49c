/*
 * fuzz_env.c - libFuzzer target: the env plugin over arbitrary mappings.
 *
 * Input: a first line with a variable name, then a mapping. The mapping is written to a
 * file named by NCCL_NUMA_CONFIG (a new version each time), then the env plugin runs as
 * NCCL drives it: init, getEnv of NCCL_TOPO_FILE (generating the topology when the
 * mapping allows), of the fuzzed name, of every `env` name of the mapping and of a few
 * fixed ones, finalize. Served values must be NUL-terminated strings and a name the
 * mapping does not serve must be forwarded to getenv. Topology files go to a private
 * XDG_RUNTIME_DIR that test/fuzz/run.sh removes afterwards.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[256];

static void setup(void) {
  const char *base = getenv("NN_FUZZ_TMP");
  char dir[200];
  snprintf(dir, sizeof dir, "%s/nn-fuzz-env-%ld", base && *base ? base : "/tmp", (long)getpid());
  mkdir(dir, 0700);
  snprintf(g_path, sizeof g_path, "%s/map.conf", dir);
  setenv("NCCL_NUMA_CONFIG", g_path, 1);
  setenv("XDG_RUNTIME_DIR", dir, 1);
  setenv("NCCL_FUZZ_REAL", "real-value", 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_SOCKET_IFNAME");
}

static void query(const char *name) {
  const char *v = nn_env_get(name);
  if (v) (void)strlen(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_path[0]) setup();
  const uint8_t *nl = memchr(data, '\n', size);
  size_t name_len = nl ? (size_t)(nl - data) : 0;
  char name[128];
  if (name_len >= sizeof name) name_len = sizeof name - 1;
  memcpy(name, data, name_len);
  name[name_len] = 0;
  const uint8_t *map = nl ? nl + 1 : data;
  size_t map_len = size - (size_t)(map - data);
  int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 0;
  if (write(fd, map, map_len) != (ssize_t)map_len) { close(fd); return 0; }
  close(fd);
  nn_env_init(2, 30, 7, "", NULL, 2);
  query("NCCL_TOPO_FILE");
  query(name);
  query("NCCL_SOCKET_IFNAME");
  query("NCCL_NUMA_CONFIG");
  const char *real = nn_env_get("NCCL_FUZZ_REAL");
  if (!real || strcmp(real, "real-value")) abort();   /* the real environment wins */
  if (nn_env_get("NCCL_FUZZ_UNSET_NAME_X") && !memmem(map, map_len, "NCCL_FUZZ_UNSET_NAME_X", 22)) abort();
  query(NULL);
  query("");
  nn_env_finalize();
  return 0;
}
