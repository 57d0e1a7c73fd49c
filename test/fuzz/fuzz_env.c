/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_env.c - libFuzzer target: the env plugin over arbitrary mappings.
 *
 * Input: a first line with a variable name, then a mapping. The mapping is written to one
 * of two files, in turn, and NCCL_NUMA_CONFIG names it, so every input is a new version of
 * the config whatever the filesystem's timestamp granularity; then the env plugin runs as
 * NCCL drives it: init, getEnv of NCCL_TOPO_FILE (generating the topology when the mapping
 * allows), of the fuzzed name, of a few fixed ones, finalize.
 *
 * Checked beyond "no crash": the harness parses the mapping itself and, when it is
 * accepted, every `env` line of this input is served with this input's value (so the
 * plugin really read this input, not an earlier one), and no `env` line of the previous
 * input that this one lacks is still served; no name a mapping may not serve (a library,
 * a file, a peer: env_names.h) is ever served from it. Served values are
 * NUL-terminated; a variable set in the real environment always wins; a name the mapping
 * does not serve is forwarded to getenv. Topology files go to a private XDG_RUNTIME_DIR
 * that test/fuzz/run.sh removes afterwards.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "env_names.h"
#include "nn_config.h"

/* A name a mapping may not serve (env_names.h) never comes from it, whatever the input, and a
 * served NCCL_TOPO_FILE is always the plugin's own descriptor. */
static void check_refused(const char *fuzzed) {
  static const char *const names[] = {"NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN",   "NCCL_COMM_ID",
                                      "NCCL_DEBUG_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_FILE"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!getenv(names[i]) && nn_env_get(names[i])) abort();
  if (fuzzed[0] && strcmp(fuzzed, "NCCL_TOPO_FILE") && nn_env_refusal(fuzzed) && !getenv(fuzzed) &&
      nn_env_get(fuzzed))
    abort();
  const char *topo = nn_env_get("NCCL_TOPO_FILE");
  if (topo && strncmp(topo, "/proc/self/fd/", 14)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[2][256];
static int g_turn;
static char **g_prev; /* NAME=value of the `env` lines of the previous input */
static int g_n_prev;

static void setup(void) {
  const char *base = getenv("NN_FUZZ_TMP");
  char dir[200];
  snprintf(dir, sizeof dir, "%s/nn-fuzz-env-%ld", base && *base ? base : "/tmp", (long)getpid());
  mkdir(dir, 0700);
  snprintf(g_path[0], sizeof g_path[0], "%s/a.conf", dir);
  snprintf(g_path[1], sizeof g_path[1], "%s/b.conf", dir);
  setenv("XDG_RUNTIME_DIR", dir, 1);
  setenv("NCCL_FUZZ_REAL", "real-value", 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
}

static void query(const char *name) {
  const char *v = nn_env_get(name);
  if (v) (void)strlen(v);
}

/* What the plugin must serve for `name` given this input's parsed mapping (NULL: rejected). */
static const char *expected(const struct nn_config *cfg, const char *name) {
  const char *real = getenv(name);
  if (real) return real;
  return nn_config_env(cfg, name);
}

static void check_served(const struct nn_config *cfg) {
  for (int i = 0; cfg && i < cfg->n_envs; i++) {
    const char *want = expected(cfg, cfg->envs[i].name), *got = nn_env_get(cfg->envs[i].name);
    if (!got || strcmp(got, want)) abort(); /* this input's own value, not an earlier one's */
  }
  for (int i = 0; i < g_n_prev; i++) {
    char *eq = strchr(g_prev[i], '=');
    *eq = 0;
    const char *got =
      getenv(g_prev[i]) || nn_config_env(cfg, g_prev[i]) ? NULL : nn_env_get(g_prev[i]);
    *eq = '=';
    /* An earlier input's line still served (NCCL_TOPO_FILE may be served a generated file). */
    if (got && !strcmp(got, eq + 1)) abort();
  }
}

static void remember(const struct nn_config *cfg) {
  for (int i = 0; i < g_n_prev; i++) free(g_prev[i]);
  free(g_prev);
  g_prev = NULL;
  g_n_prev = 0;
  if (!cfg || !cfg->n_envs) return;
  g_prev = calloc((size_t)cfg->n_envs, sizeof *g_prev);
  for (int i = 0; g_prev && i < cfg->n_envs; i++) {
    size_t n = strlen(cfg->envs[i].name) + strlen(cfg->envs[i].value) + 2;
    if ((g_prev[g_n_prev] = malloc(n))) {
      snprintf(g_prev[g_n_prev++], n, "%s=%s", cfg->envs[i].name, cfg->envs[i].value);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_path[0][0]) setup();
  const uint8_t *nl = memchr(data, '\n', size);
  size_t name_len = nl ? (size_t)(nl - data) : 0;
  char name[128];
  if (name_len >= sizeof name) name_len = sizeof name - 1;
  memcpy(name, data, name_len);
  name[name_len] = 0;
  const uint8_t *map = nl ? nl + 1 : data;
  size_t map_len = size - (size_t)(map - data);
  const char *path = g_path[g_turn];
  g_turn ^= 1;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 0;
  if (write(fd, map, map_len) != (ssize_t)map_len) {
    close(fd);
    return 0;
  }
  close(fd);
  setenv("NCCL_NUMA_CONFIG", path, 1);

  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  if (nn_config_parse(path, (const char *)map, map_len, NULL, &cfg, &diag) != 0) cfg = NULL;
  nn_diag_clear(&diag);

  nn_env_init(2, 30, 7, "", NULL, 2);
  query("NCCL_TOPO_FILE");
  query(name);
  query("NCCL_SOCKET_IFNAME");
  query("NCCL_NUMA_CONFIG");
  check_served(cfg);
  check_refused(name);
  const char *real = nn_env_get("NCCL_FUZZ_REAL");
  if (!real || strcmp(real, "real-value")) abort(); /* the real environment wins */
  if (nn_env_get("NCCL_FUZZ_UNSET_NAME_X") && !memmem(map, map_len, "NCCL_FUZZ_UNSET_NAME_X", 22))
    abort();
  query(NULL);
  query("");
  nn_env_finalize();
  remember(cfg);
  nn_config_free(cfg);
  return 0;
}
