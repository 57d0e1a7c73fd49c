/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * job.h - "this job" for exec, explain, check and topo: the GPUs it can see
 * (--visible-devices, else CUDA_VISIBLE_DEVICES) resolved against the mapping as the plugin
 * resolves them (visible.h), and the rank count a command assumes when none is given.
 */
#ifndef NCCL_NUMA_CLI_JOB_H
#define NCCL_NUMA_CLI_JOB_H

#include <stddef.h>

#include "nn_config.h"
#include "visible.h"

struct nn_job {
  struct nn_visible vis;
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view; /* the mapping as the job sees it (nn_visible_view); points into own */
};

/* Resolves `visible` (NULL: CUDA_VISIBLE_DEVICES; empty: unset) against cfg into *job (filled
 * in place: view points into it). UUID and MIG entries are matched through the CUDA driver when
 * use_driver and one loads, with the list as this process's CUDA_VISIBLE_DEVICES so that the
 * driver enumerates the same devices the job's would; else the whole mapping applies and
 * job->vis.why says why. */
void nn_job_resolve(const struct nn_config *cfg, const char *visible, int use_driver,
                    struct nn_job *job);

/* nn_job_resolve with the NVIDIA driver's list of this container's GPUs read under `root`
 * (NULL = /; nn_job_resolve gives NCCL_NUMA_DRIVER_ROOT, visible.h): with the list unset, the
 * job's GPUs are the container's, as the plugin takes them. */
void nn_job_resolve_at(const struct nn_config *cfg, const char *visible, int use_driver,
                       const char *root, struct nn_job *job);

/* The communicator's ranks when none is given: the visible GPUs' count when two or more are
 * visible (one visible GPU is one rank of a larger communicator), else the mapping's GPUs,
 * else 8. */
size_t nn_job_ranks(const struct nn_config *cfg, const struct nn_job *job);

#endif
