/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commands.h - the CLI's subcommands. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code:
 * 0 ok, 1 invalid input or a problem found, 2 usage.
 */
#ifndef NCCL_NUMA_CLI_COMMANDS_H
#define NCCL_NUMA_CLI_COMMANDS_H

#define NN_EXIT_OK 0
#define NN_EXIT_INVALID 1
#define NN_EXIT_USAGE 2

/* One subcommand: its name, its entry point and the line `nccl-numa --help` shows. The table
 * in commands.c is the one list: `--help` prints it, the manual pages are made from it (make
 * man), and test/cli/test_commands.sh checks that each has its test file, its row in
 * docs/user/cli.md and what help2man needs, and test_options.sh runs each. */
struct nn_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};
extern const struct nn_command nn_commands[];
extern const int nn_n_commands;

/* The subcommand called `name`, or NULL. */
const struct nn_command *nn_command_find(const char *name);

int nn_cmd_explain(int argc, char **argv);
int nn_cmd_topo(int argc, char **argv);
int nn_cmd_check_config(int argc, char **argv);
int nn_cmd_discover(int argc, char **argv);
int nn_cmd_check(int argc, char **argv);
int nn_cmd_ab(int argc, char **argv);
int nn_cmd_report(int argc, char **argv);
int nn_cmd_calibrate(int argc, char **argv);
int nn_cmd_exec(int argc, char **argv);
int nn_cmd_env(int argc, char **argv);
int nn_cmd_proxmox_numa(int argc, char **argv);
int nn_cmd_p2p(int argc, char **argv);

#endif
