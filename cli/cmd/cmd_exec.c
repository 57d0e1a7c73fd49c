/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_exec.c - nccl-numa exec / env: run a command with nccl-numa switched on. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common/bindfor.h"
#include "numparse.h"
#include "cli/common/cliconfig.h"
#include "cli/common/locate.h"
#include "cli/common/options.h"
#include "cli/predict/allreduce.h"
#include "cli/predict/job.h"
#include "cli/commands.h"
#include "cli/common/glooenv.h"
#include "errbuf.h"
#include "nn_config.h"

struct exec_opts {
  const char *config, *plugin;
  const char *sysfs_root; /* exec --sysfs-root: where --bind-for looks for NUMA nodes */
  int bind;               /* exec --bind-for, env --engine: enum nn_bind_engine */
  int no_allreduce;       /* --no-engine-allreduce: leave the engine's PCIe all-reduce alone */
  int cmd;                /* index of COMMAND in argv, 0 when none */
  int help;
};

/* Parses exec's (want_cmd) or env's options; on a usage error says what is wrong in why.
 * exec's optstring starts with '+': its options end at COMMAND, whose own arguments
 * (`--config` of the wrapped program, say) pass through untouched. */
static int parse_opts(int argc, char **argv, int want_cmd, struct exec_opts *o, char *why,
                      size_t whysz) {
  static const struct option exec_opts[] = {{"config", required_argument, 0, 'c'},
                                            {"plugin", required_argument, 0, 'p'},
                                            {"bind-for", required_argument, 0, 'b'},
                                            {"sysfs-root", required_argument, 0, 's'},
                                            {"no-engine-allreduce", no_argument, 0, 'A'},
                                            {"help", no_argument, 0, 'h'},
                                            {0, 0, 0, 0}};
  int c;
  memset(o, 0, sizeof *o);
  nn_options_begin();
  /* env has no --bind-for or --sysfs-root (it appends nothing); --engine names the engine */
  static const struct option env_opts[] = {{"config", required_argument, 0, 'c'},
                                           {"plugin", required_argument, 0, 'p'},
                                           {"engine", required_argument, 0, 'e'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  while ((c = getopt_long(argc, argv, want_cmd ? "+:h" : ":h", want_cmd ? exec_opts : env_opts,
                          NULL)) != -1) {
    switch (c) {
    case 'h':
      o->help = 1;
      break;
    case 'c':
      o->config = optarg;
      break;
    case 'p':
      o->plugin = optarg;
      break;
    case 's':
      o->sysfs_root = optarg;
      break;
    case 'A':
      o->no_allreduce = 1;
      break;
    case 'b':
    case 'e':
      if ((o->bind = nn_bind_engine_parse(optarg))) break;
      nn_errbuf_set(why, whysz, "--%s '%s': expected sglang or vllm",
                    c == 'b' ? "bind-for" : "engine", optarg);
      return -1;
    default:
      nn_options_problem(c, argc, argv, why, whysz);
      return -1;
    }
  }
  if (!want_cmd && optind < argc) {
    nn_errbuf_set(why, whysz, "unexpected argument '%s'", argv[optind]);
    return -1;
  }
  o->cmd = want_cmd && optind < argc ? optind : 0;
  if (want_cmd && !o->help && !o->cmd) {
    int after_dashes = optind > 1 && !strcmp(argv[optind - 1], "--");
    nn_errbuf_set(why, whysz, after_dashes ? "no COMMAND after --" : "no COMMAND to run");
    return -1;
  }
  return 0;
}

/* Resolves and validates; fills the two paths. Returns an exit code. */
static int resolve(const struct exec_opts *o, const char *who, char *so, char *cfg) {
  char err[PATH_MAX + 256];
  if (nn_locate_plugin(o->plugin, so, PATH_MAX, err, sizeof err) ||
      nn_locate_config(o->config, cfg, PATH_MAX, err, sizeof err)) {
    fprintf(stderr, "nccl-numa %s: %s\n", who, err);
    return NN_EXIT_INVALID;
  }
  if (nn_config_validate(cfg)) {
    fprintf(stderr, "nccl-numa %s: %s is not a valid mapping; nothing started\n", who, cfg);
    return NN_EXIT_INVALID;
  }
  if (getenv("NCCL_TOPO_FILE"))
    fprintf(stderr,
            "nccl-numa %s: note: NCCL_TOPO_FILE is set and wins over the topology "
            "nccl-numa would serve\n",
            who);
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
  fprintf(
    f,
    "usage: nccl-numa exec [--config FILE] [--plugin PATH] [--bind-for sglang|vllm]\n"
    "                      [--no-engine-allreduce] [--sysfs-root DIR] -- COMMAND [ARGS...]\n\n"
    "Runs COMMAND with NCCL_TUNER_PLUGIN and NCCL_ENV_PLUGIN set to the absolute path of\n"
    "%s and NCCL_NUMA_CONFIG to the mapping (--config, else $NCCL_NUMA_CONFIG,\n"
    "else %s), and GLOO_SOCKET_IFNAME, when unset, to the interfaces of NCCL_SOCKET_IFNAME\n"
    "(the environment's, else the mapping's env line; prefixes expanded to this host's\n"
    "interfaces): Gloo, the CPU process group of SGLang and vLLM, otherwise picks its own.\n"
    "Nothing else in the environment changes. Example:\n"
    "  nccl-numa exec --bind-for sglang -- python3 -m sglang.launch_server --tp 8 ...\n\n"
    "  --bind-for ENGINE  append the engine's own NUMA binding: the NUMA node of each GPU the job\n"
    "                     sees (CUDA_VISIBLE_DEVICES, in the engine's order; when unset, the GPUs\n"
    "                     the NVIDIA driver shows this container, else every GPU of the\n"
    "                     mapping): sglang --numa-node N0 N1 ..., vllm --numa-bind\n"
    "                     --numa-bind-nodes N0 N1 ...; only when this OS has those NUMA nodes,\n"
    "                     else it says why and appends nothing; and sets the engine's PCIe\n"
    "                     all-reduce (SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1,\n"
    "                     VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1) where the mapping's p2p line\n"
    "                     is ok with its cross-process test passed on the job's GPUs, TP "
    "(COMMAND's\n"
    "                     --tp/-tp, else the GPUs' count) is 2, 4 or 8, and the installed engine "
    "and\n"
    "                     FlashInfer have it (read from the Python environment's files, never "
    "run);\n"
    "                     else it says why; the user's own value wins\n"
    "  --no-engine-allreduce  leave the engine's PCIe all-reduce variable alone\n"
    "  --sysfs-root DIR   look for /sys/devices/system/node/nodeN and the GPUs the NVIDIA driver\n"
    "                     shows this container (/proc/driver/nvidia/gpus) under DIR\n",
    NN_PLUGIN_FILE, NN_DEFAULT_CONFIG_PATH);
}

/* Which GPUs the appended list is for, after the list on stderr. */
/* The engine's tensor-parallel size in its command (--tp, --tp-size, --tensor-parallel-size, vLLM's
 * -tp; N or =N), 0 when not given. */
static int command_tp(char *const *args) {
  static const char *const names[] = {"--tp", "--tp-size", "--tensor-parallel-size", "-tp"};
  for (; args && *args; args++)
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
      size_t n = strlen(names[k]);
      if (strncmp(*args, names[k], n) || ((*args)[n] != 0 && (*args)[n] != '=')) continue;
      const char *v = (*args)[n] == '=' ? *args + n + 1 : args[1];
      int tp;
      if (v && nn_int_parse(v, 1, NN_MAX_GPUS, &tp) == 0) return tp;
    }
  return 0;
}

/* The whole mapping's nodes for an engine asking for fewer GPUs: say so, and how to name them. */
static void say_tp(const struct nn_job *job, char *const *args, int listed) {
  int tp = command_tp(args);
  if (job->vis.set || job->vis.n > 0 || tp <= 0 || tp >= listed) return;
  fprintf(
    stderr,
    "nccl-numa exec: the command asks for tensor parallelism %d, but nothing names the job's GPUs "
    "(CUDA_VISIBLE_DEVICES unset, no driver list), so the list above has all %d of the mapping's; "
    "the "
    "engine reads its first %d entries for GPUs 0-%d: set CUDA_VISIBLE_DEVICES to the job's GPUs\n",
    tp, listed, tp, tp - 1);
}

static void say_whose(const struct nn_job *job) {
  if (!job->vis.set && job->vis.source == NN_VISIBLE_FROM_PROC) {
    fprintf(
      stderr,
      " (the NUMA node of each GPU the NVIDIA driver shows this container, in PCI bus order: the "
      "mapping's GPU%s",
      job->vis.n > 1 ? "s" : "");
    for (int i = 0; i < job->vis.n; i++) fprintf(stderr, " %d", job->vis.gpu[i]);
    fprintf(stderr, "; CUDA_VISIBLE_DEVICES is unset)\n");
    return;
  }
  if (!job->vis.set) {
    fprintf(stderr, " (the NUMA node of each GPU of the mapping: CUDA_VISIBLE_DEVICES is unset)\n");
    return;
  }
  fprintf(stderr,
          " (the NUMA node of each GPU the job sees, in the engine's order: CUDA_VISIBLE_DEVICES=%s"
          " is the mapping's GPU",
          job->vis.list);
  for (int i = 0; i < job->vis.n;
       i++) /* positions in the mapping are its gpu indices (nn_config.h) */
    fprintf(stderr, "%s%d", i ? " " : job->vis.n > 1 ? "s " : " ", job->vis.gpu[i]);
  fprintf(stderr, ")\n");
}

/* COMMAND's argv with --bind-for's options appended (malloc'd; argv itself when none). */
static char **bound_argv(const struct exec_opts *o, int argc, char **argv, const char *cfg) {
  static const char *const names[] = {"", "sglang", "vllm"};
  static struct nn_job job;
  struct nn_cli_config cc;
  if (nn_cli_config_load("exec", cfg, NULL, 0, &cc) != NN_CFG_OK) return NULL;
  const char *add[NN_BIND_MAX_ARGS];
  char why[PATH_MAX + 512];
  nn_job_resolve_at(cc.cfg, NULL, 1, o->sysfs_root ? o->sysfs_root : nn_visible_driver_root(),
                    &job);
  int n =
    nn_bind_args(cc.cfg, &job.vis, o->bind, o->sysfs_root, argv + o->cmd, add, why, sizeof why);
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
  say_whose(&job);
  int listed = 0;
  for (int i = 0; i < n; i++) listed += add[i][0] != '-';
  say_tp(&job, argv + o->cmd, listed);
  return v;
}

/* The engine's PCIe all-reduce variable (allreduce.h) for the job of the mapping at cfg_path:
 * "1" into value and returns 1 when to set it; says in one line on stderr why or why not.
 * The user's own setting wins; --no-engine-allreduce turns the hand-off off. */
static int engine_allreduce(const struct exec_opts *o, const char *cfg_path, char *const *args,
                            const char *who, const char **var) {
  static const char *const names[] = {"", "sglang", "vllm"};
  const char *flag = !strcmp(who, "exec") ? "--bind-for" : "--engine";
  char why[PATH_MAX * 4 + 512];
  *var = nn_allreduce_variable(o->bind);
  const char *user = getenv(*var);
  int set = 0;
  if (user)
    snprintf(why, sizeof why, "%s=%s is set in the environment: the user's value wins", *var, user);
  else if (o->no_allreduce) snprintf(why, sizeof why, "%s not set: --no-engine-allreduce", *var);
  else {
    static struct nn_job job;
    struct nn_cli_config cc;
    struct nn_allreduce_install in;
    char because[sizeof why - 128];
    if (nn_cli_config_load(who, cfg_path, NULL, 0, &cc) != NN_CFG_OK) return 0;
    nn_job_resolve_at(cc.cfg, NULL, 1, o->sysfs_root ? o->sysfs_root : nn_visible_driver_root(),
                      &job);
    set = nn_allreduce_for_job(cc.cfg, &job.vis, command_tp(args), o->bind, &in, because,
                               sizeof because);
    nn_cli_config_free(&cc);
    snprintf(why, sizeof why, "%s%s: %s", *var, set ? "=1 set" : " not set", because);
  }
  fprintf(stderr, "nccl-numa %s: %s %s: %s\n", who, flag, names[o->bind], why);
  return set;
}

/* GLOO_SOCKET_IFNAME's value from NCCL_SOCKET_IFNAME (glooenv.h) into value, said on stderr;
 * 1 when there is one to set. */
static int gloo_value(const char *cfg_path, const char *who, char *value, size_t size) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  struct nn_parse_opts po = {0};
  if (nn_config_load(cfg_path, &po, &cfg, &d)) cfg = NULL;
  nn_diag_clear(&d);
  char why[768];
  int set = nn_glooenv_ifname(cfg, NULL, value, size, why, sizeof why);
  nn_config_free(cfg);
  if (why[0]) fprintf(stderr, "nccl-numa %s: %s\n", who, why);
  return set;
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
  char gloo[512];
  if (gloo_value(cfg, "exec", gloo, sizeof gloo) && setenv("GLOO_SOCKET_IFNAME", gloo, 1)) {
    perror("nccl-numa exec: setenv");
    return NN_EXIT_INVALID;
  }
  const char *ar_var;
  if (o.bind && engine_allreduce(&o, cfg, argv + o.cmd, "exec", &ar_var) &&
      setenv(ar_var, "1", 1)) {
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
  fprintf(
    f, "usage: nccl-numa env [--config FILE] [--plugin PATH] [--engine sglang|vllm]\n\n"
       "Prints the settings `nccl-numa exec` makes as export lines:\n"
       "  eval \"$(nccl-numa env --config /etc/nccl-numa.conf)\"\n"
       "  --engine ENGINE  also the engine's PCIe all-reduce variable, where `exec --bind-for "
       "ENGINE`\n"
       "                   would set it (the job's GPUs: CUDA_VISIBLE_DEVICES; TP: their count);\n"
       "                   stderr says why or why not\n");
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
  char gloo[512];
  if (gloo_value(cfg, "env", gloo, sizeof gloo)) {
    printf("export GLOO_SOCKET_IFNAME=");
    put_quoted(gloo);
    putchar('\n');
  }
  const char *ar_var;
  if (o.bind && engine_allreduce(&o, cfg, NULL, "env", &ar_var)) printf("export %s=1\n", ar_var);
  return NN_EXIT_OK;
}
