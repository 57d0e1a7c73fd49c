/*
 * config_load.c - a mapping read from its file (size-capped, regular files only,
 * never blocking on a FIFO), rules merged in from a CSV file named outside the
 * mapping (NCCL_TUNER_CONFIG_FILE), and the questions the plugin asks of a
 * parsed config.
 */
#include "nn_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_parser.h"
#include "csv_rules.h"

static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

/* Reads at most `cap` + 1 bytes so a file growing after fstat is still caught. */
static char *read_capped(int fd, size_t cap, size_t *len) {
  size_t size = 0, alloc = 4096;
  char *buf = malloc(alloc);
  while (buf) {
    if (size == alloc) {
      size_t na = alloc * 2 > cap + 1 ? cap + 1 : alloc * 2;
      char *nb = na > alloc ? realloc(buf, na) : NULL;
      if (!nb) break;
      buf = nb;
      alloc = na;
    }
    ssize_t r = read(fd, buf + size, alloc - size);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    if (r == 0) {
      *len = size;
      return buf;
    }
    size += (size_t)r;
  }
  if (buf && size == cap + 1) {
    *len = size;
    return buf;
  }
  free(buf);
  return NULL;
}

int nn_config_load(const char *path, const struct nn_parse_opts *opts,
                   struct nn_config **out, struct nn_diag *diag) {
  if (out) *out = NULL;
  if (!path || !*path) {
    nn_diag_add(diag, "(empty path): cannot open: no file name");
    return -1;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    nn_diag_add(diag, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    nn_diag_add(diag, "%s: cannot open: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    nn_diag_add(diag, "%s: cannot open: %s, not a regular file", path, file_kind(st.st_mode));
    close(fd);
    return -1;
  }
  if ((uint64_t)st.st_size > NN_MAX_FILE_BYTES) {
    nn_diag_add(diag, "%s: file is %lld bytes, over the %u MiB limit", path,
                (long long)st.st_size, NN_MAX_FILE_BYTES >> 20);
    close(fd);
    return -1;
  }
  size_t len = 0;
  errno = 0;
  char *buf = read_capped(fd, NN_MAX_FILE_BYTES, &len);
  int read_errno = errno;
  close(fd);
  if (!buf) {
    nn_diag_add(diag, "%s: cannot read: %s", path, strerror(read_errno ? read_errno : ENOMEM));
    return -1;
  }
  int r = nn_config_parse(path, buf, len, opts, out, diag);
  free(buf);
  return r;
}

int nn_config_add_csv_rules(struct nn_config *cfg, const char *path, struct nn_diag *diag) {
  char *copy = strdup(path);
  const char *owned = copy ? nn_config_own_file(cfg, copy) : NULL;
  if (!owned) {
    nn_diag_add(diag, "%s: out of memory", path);
    return -1;
  }
  struct nn_rule *rules = NULL;
  int n = 0;
  if (nn_csv_rules_load(owned, &rules, &n, diag) != 0) return -1;
  if (cfg->n_rules + n > NN_MAX_RULES) {
    nn_diag_add(diag, "%s: %d more rules would exceed %d rules", owned, n, NN_MAX_RULES);
    free(rules);
    return -1;
  }
  struct nn_rule *grown = n ? realloc(cfg->rules, (size_t)(cfg->n_rules + n) * sizeof *grown) : cfg->rules;
  if (n && !grown) {
    nn_diag_add(diag, "%s: out of memory", owned);
    free(rules);
    return -1;
  }
  cfg->rules = grown;
  if (n) memcpy(cfg->rules + cfg->n_rules, rules, (size_t)n * sizeof *rules);
  cfg->n_rules += n;
  free(rules);
  return 0;
}

/* ------------------------------------------------------------------ queries */

int nn_config_numa_count(const struct nn_config *cfg) {
  if (!cfg) return 0;
  unsigned char used[NN_MAX_NUMA_ID + 1] = {0};
  int n = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa;
    if (node >= 0 && node <= NN_MAX_NUMA_ID && !used[node]++) n++;
  }
  return n;
}

int nn_config_max_gpus_per_numa(const struct nn_config *cfg) {
  if (!cfg) return 0;
  int count[NN_MAX_NUMA_ID + 1] = {0};
  int best = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa;
    if (node >= 0 && node <= NN_MAX_NUMA_ID && ++count[node] > best) best = count[node];
  }
  return best;
}

const struct nn_numa *nn_config_find_numa(const struct nn_config *cfg, int node) {
  for (int i = 0; cfg && i < cfg->n_numas; i++)
    if (cfg->numas[i].node == node) return &cfg->numas[i];
  return NULL;
}

const char *nn_config_env(const struct nn_config *cfg, const char *name) {
  for (int i = 0; cfg && name && i < cfg->n_envs; i++)
    if (!strcmp(cfg->envs[i].name, name)) return cfg->envs[i].value;
  return NULL;
}
