/* SPDX-License-Identifier: BSD-3-Clause */
/* commands.c - the one list of the command's subcommands (commands.h). */
#include "cli/commands.h"

#include <string.h>

const struct nn_command nn_commands[] = {
  {"explain", nn_cmd_explain, "show the decision for each collective and size"},
  {"topo", nn_cmd_topo, "write (or --validate) an NCCL topology XML"},
  {"check-config", nn_cmd_check_config, "validate a mapping file"},
  {"discover", nn_cmd_discover, "print the GPU -> NUMA mapping (host, Proxmox host, or --guest)"},
  {"check", nn_cmd_check, "diagnose this machine: GPUs, NUMA, topology files, mapping, hazards"},
  {"ab", nn_cmd_ab, "A/B: nccl-tests with stock NCCL vs nccl-numa arms, alternated, then report"},
  {"report", nn_cmd_report, "markdown report and plots of an ab/calibrate run directory"},
  {"calibrate", nn_cmd_calibrate, "forced algo x proto sweeps (or --from RUNDIR) -> rule lines"},
  {"exec", nn_cmd_exec, "run a command (e.g. an SGLang server) with nccl-numa switched on"},
  {"env", nn_cmd_env, "print the variables that switch nccl-numa on, as export lines"},
  {"proxmox-numa", nn_cmd_proxmox_numa,
   "Proxmox host: rewrite a VM config so the guest sees each GPU on its NUMA node"},
  {"p2p", nn_cmd_p2p,
   "test GPU peer-to-peer as a job uses it: every pair, across processes, all at once"},
};
const int nn_n_commands = (int)(sizeof nn_commands / sizeof nn_commands[0]);

const struct nn_command *nn_command_find(const char *name) {
  for (int i = 0; i < nn_n_commands; i++)
    if (!strcmp(name, nn_commands[i].name)) return &nn_commands[i];
  return NULL;
}
