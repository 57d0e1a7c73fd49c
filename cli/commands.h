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
