/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_exec.c - nccl-numa exec / env: run a command with nccl-numa switched on. */
#include "cli/cmd/cmd_exec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common/bindfor.h"
#include "cli/common/cliconfig.h"
#include "cli/commands.h"
#include "errbuf.h"
#include "nn_config.h"

static int is_regular(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int absolute(const char *path, char *buf, size_t size, char *err, size_t errsz,
                    const char *what) {
  char tmp[PATH_MAX];
  if (!realpath(path, tmp)) {
    nn_errbuf_set(err, errsz, "%s %s: %s", what, path, strerror(errno));
    return -1;
  }
  if (!is_regular(tmp)) {
    nn_errbuf_set(err, errsz, "%s %s: not a regular file", what, path);
    return -1;
  }
  if (strlen(tmp) >= size) {
    nn_errbuf_set(err, errsz, "%s %s: path too long", what, path);
    return -1;
  }
  strcpy(buf, tmp);
  return 0;
}

int nn_plugin_locate(const char *override, char *buf, size_t size, char *err, size_t errsz) {
  if (override) return absolute(override, buf, size, err, errsz, "plugin");
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    nn_errbuf_set(err, errsz, "cannot find this executable (/proc/self/exe): %s; use --plugin PATH",
            strerror(errno));
    return -1;
  }
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  /* PREFIX/lib (make install), PREFIX/lib/<multiarch> (the Debian package), the build dir */
  static const char *const tails[] = {"/../lib/" NN_PLUGIN_FILE,
#ifdef NN_MULTIARCH
                                      "/../lib/" NN_MULTIARCH "/" NN_PLUGIN_FILE,
#endif
                                      "/" NN_PLUGIN_FILE};
  for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
    char cand[PATH_MAX + 64];
    snprintf(cand, sizeof cand, "%s%s", exe, tails[i]);
    if (is_regular(cand)) return absolute(cand, buf, size, err, errsz, "plugin");
  }
  nn_errbuf_set(err, errsz, "%s not found in %s/../lib or %s; use --plugin PATH", NN_PLUGIN_FILE, exe,
          exe);
  return -1;
}

int nn_config_locate(const char *given, char *buf, size_t size, char *err, size_t errsz) {
  struct nn_config_source src;
  nn_config_source_find(given, &src);
  if (!src.named && access(src.path, F_OK)) {
    nn_errbuf_set(err, errsz, "no mapping: give --config FILE, set NCCL_NUMA_CONFIG, or create %s",
            NN_DEFAULT_CONFIG_PATH);
    return -1;
  }
  return absolute(src.path, buf, size, err, errsz, "config");
}

struct exec_opts {
  const char *config, *plugin;
  const char *sysfs_root; /* exec --sysfs-root: where --bind-for looks for NUMA nodes */
  int bind;               /* exec --bind-for: enum nn_bind_engine */
  int cmd;                /* index of COMMAND in argv, 0 when none */
  int help;
};

/* exec's own options, VALUE given as the next argument or after '='. Returns 1 when `a` is
 * one (i advanced past a separate value), 0 when not, -1 on a usage error. */
static int exec_only_opt(int argc, char **argv, int *i, struct exec_opts *o, char *why, size_t whysz) {
  static const char *const names[] = {"--bind-for", "--sysfs-root"};
  const char *a = argv[*i];
  for (int k = 0; k < 2; k++) {
    size_t n = strlen(names[k]);
    if (strncmp(a, names[k], n) || (a[n] && a[n] != '=')) continue;
    if (!a[n] && *i + 1 >= argc) {
      nn_errbuf_set(why, whysz, "%s needs a value", names[k]);
      return -1;
    }
    const char *v = a[n] ? a + n + 1 : argv[++*i];
    if (k == 1) {
      o->sysfs_root = v;
    } else if (!(o->bind = nn_bind_engine_parse(v))) {
      nn_errbuf_set(why, whysz, "--bind-for '%s': expected sglang or vllm", v);
      return -1;
    }
    return 1;
  }
  return 0;
}

/* Parses exec's (want_cmd) or env's options; on a usage error says what is wrong in why. */
static int parse_opts(int argc, char **argv, int want_cmd, struct exec_opts *o, char *why, size_t whysz) {
  memset(o, 0, sizeof *o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int own;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      o->help = 1;
    } else if (!strcmp(a, "--config") || !strcmp(a, "--plugin")) {
      if (i + 1 >= argc) {
        nn_errbuf_set(why, whysz, "%s needs a value", a);
        return -1;
      }
      if (a[2] == 'c') o->config = argv[++i];
      else o->plugin = argv[++i];
    } else if (!strncmp(a, "--config=", 9)) {
      o->config = a + 9;
    } else if (!strncmp(a, "--plugin=", 9)) {
      o->plugin = a + 9;
    } else if (want_cmd && a[0] == '-' && (own = exec_only_opt(argc, argv, &i, o, why, whysz)) != 0) {
      if (own < 0) return -1;
    } else if (want_cmd && !strcmp(a, "--")) {
      o->cmd = i + 1 < argc ? i + 1 : 0;
      if (!o->cmd) nn_errbuf_set(why, whysz, "no COMMAND after --");
      return o->cmd ? 0 : -1;
    } else if (want_cmd && a[0] != '-') {
      o->cmd = i;
      return 0;
    } else {
      nn_errbuf_set(why, whysz, a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
      return -1;
    }
  }
  if (want_cmd && !o->help && !o->cmd) {
    nn_errbuf_set(why, whysz, "no COMMAND to run");
    return -1;
  }
  return 0;
}

/* Resolves and validates; fills the two paths. Returns an exit code. */
static int resolve(const struct exec_opts *o, const char *who, char *so, char *cfg) {
  char err[PATH_MAX + 256];
  if (nn_plugin_locate(o->plugin, so, PATH_MAX, err, sizeof err) ||
      nn_config_locate(o->config, cfg, PATH_MAX, err, sizeof err)) {
    fprintf(stderr, "nccl-numa %s: %s\n", who, err);
    return NN_EXIT_INVALID;
  }
  if (nn_config_validate(cfg)) {
    fprintf(stderr, "nccl-numa %s: %s is not a valid mapping; nothing started\n", who, cfg);
    return NN_EXIT_INVALID;
  }
  if (getenv("NCCL_TOPO_FILE"))
    fprintf(stderr, "nccl-numa %s: note: NCCL_TOPO_FILE is set and wins over the topology "
            "nccl-numa would serve\n", who);
  return NN_EXIT_OK;
}

/* Parses exec's (want_cmd) or env's options and answers --help and usage
 * errors with `usage`. Returns -1 to go on, else the exit code. */
static int parse_or_usage(int argc, char **argv, int want_cmd, struct exec_opts *o,
                          void (*usage)(FILE *)) {
  char why[512];
  if (parse_opts(argc, argv, want_cmd, o, why, sizeof why)) {
    fprintf(stderr, "nccl-numa %s: %s\n", want_cmd ? "exec" : "env", why);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  if (o->help) {
    usage(stdout);
    return NN_EXIT_OK;
  }
  return -1;
}

static void exec_usage(FILE *f) {
  fprintf(f, "usage: nccl-numa exec [--config FILE] [--plugin PATH] [--bind-for sglang|vllm]\n"
          "                      [--sysfs-root DIR] -- COMMAND [ARGS...]\n\n"
          "Runs COMMAND with NCCL_TUNER_PLUGIN and NCCL_ENV_PLUGIN set to the absolute path of\n"
          "%s and NCCL_NUMA_CONFIG to the mapping (--config, else $NCCL_NUMA_CONFIG,\n"
          "else %s). Nothing else in the environment changes. Example:\n"
          "  nccl-numa exec -- python3 -m sglang.launch_server --tp 8 --disable-custom-all-reduce ...\n\n"
          "  --bind-for ENGINE  append the engine's own NUMA binding with the mapping's GPU -> node\n"
          "                     list: sglang --numa-node N0 N1 ..., vllm --numa-bind --numa-bind-nodes\n"
          "                     N0 N1 ...; only when this OS has those NUMA nodes, else it says why\n"
          "                     and appends nothing\n"
          "  --sysfs-root DIR   look for /sys/devices/system/node/nodeN under DIR\n",
          NN_PLUGIN_FILE, NN_DEFAULT_CONFIG_PATH);
}

/* COMMAND's argv with --bind-for's options appended (malloc'd; argv itself when none). */
static char **bound_argv(const struct exec_opts *o, int argc, char **argv, const char *cfg) {
  static const char *const names[] = {"", "sglang", "vllm"};
  struct nn_cli_config cc;
  if (nn_cli_config_load("exec", cfg, NULL, 0, &cc) != NN_CFG_OK) return NULL;
  const char *add[NN_BIND_MAX_ARGS];
  char why[PATH_MAX + 160];
  int n = nn_bind_args(cc.cfg, o->bind, o->sysfs_root, argv + o->cmd, add, why, sizeof why);
  nn_cli_config_free(&cc);
  if (n == 0) {
    fprintf(stderr, "nccl-numa exec: --bind-for %s: nothing added: %s\n", names[o->bind], why);
    return argv + o->cmd;
  }
  int have = argc - o->cmd;
  char **v = calloc((size_t)have + (size_t)n + 1, sizeof *v);
  if (!v) return NULL;
  memcpy(v, argv + o->cmd, (size_t)have * sizeof *v);
  fprintf(stderr, "nccl-numa exec: --bind-for %s: appended", names[o->bind]);
  for (int i = 0; i < n; i++) {
    v[have + i] = (char *)add[i];
    fprintf(stderr, " %s", add[i]);
  }
  fprintf(stderr, " (the mapping's NUMA node of each GPU)\n");
  return v;
}

int nn_cmd_exec(int argc, char **argv) {
  struct exec_opts o;
  int rc = parse_or_usage(argc, argv, 1, &o, exec_usage);
  if (rc >= 0) return rc;
  char so[PATH_MAX], cfg[PATH_MAX];
  if ((rc = resolve(&o, "exec", so, cfg))) return rc;
  if (setenv("NCCL_TUNER_PLUGIN", so, 1) || setenv("NCCL_ENV_PLUGIN", so, 1) ||
      setenv("NCCL_NUMA_CONFIG", cfg, 1)) {
    perror("nccl-numa exec: setenv");
    return NN_EXIT_INVALID;
  }
  char **cmd = o.bind ? bound_argv(&o, argc, argv, cfg) : argv + o.cmd;
  if (!cmd) return NN_EXIT_INVALID;
  execvp(cmd[0], cmd);
  int e = errno;
  fprintf(stderr, "nccl-numa exec: %s: %s\n", cmd[0], strerror(e));
  if (cmd != argv + o.cmd) free(cmd);
  return e == ENOENT ? 127 : 126;
}

/* Single-quoted for POSIX shells. */
static void put_quoted(const char *s) {
  putchar('\'');
  for (; *s; s++) {
    if (*s == '\'') fputs("'\\''", stdout);
    else putchar(*s);
  }
  putchar('\'');
}

static void env_usage(FILE *f) {
  fprintf(f, "usage: nccl-numa env [--config FILE] [--plugin PATH]\n\n"
          "Prints the settings `nccl-numa exec` makes as export lines:\n"
          "  eval \"$(nccl-numa env --config /etc/nccl-numa.conf)\"\n");
}

int nn_cmd_env(int argc, char **argv) {
  struct exec_opts o;
  int rc = parse_or_usage(argc, argv, 0, &o, env_usage);
  if (rc >= 0) return rc;
  char so[PATH_MAX], cfg[PATH_MAX];
  if ((rc = resolve(&o, "env", so, cfg))) return rc;
  const char *names[] = {"NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_NUMA_CONFIG"};
  const char *values[] = {so, so, cfg};
  for (int i = 0; i < 3; i++) {
    printf("export %s=", names[i]);
    put_quoted(values[i]);
    putchar('\n');
  }
  return NN_EXIT_OK;
}
