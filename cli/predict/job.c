/* SPDX-License-Identifier: BSD-3-Clause */
/* job.c - the job's visible GPUs and rank count; see job.h. */
#include "cli/predict/job.h"

#include <stdlib.h>
#include <string.h>

#include "cli/predict/cudaprobe.h"
#include "cudrv.h"

static int names_uuid(const char *list) { return strstr(list, "GPU-") || strstr(list, "MIG-"); }

void nn_job_resolve(const struct nn_config *cfg, const char *visible, int use_driver,
                    struct nn_job *job) {
  nn_job_resolve_at(cfg, visible, use_driver, nn_visible_driver_root(), job);
}

void nn_job_resolve_at(const struct nn_config *cfg, const char *visible, int use_driver,
                       const char *root, struct nn_job *job) {
  if (!visible) visible = getenv("CUDA_VISIBLE_DEVICES");
  if (visible && !*visible) visible = NULL;
  struct nn_cudaprobe *probe = NULL;
  if (visible && use_driver && names_uuid(visible) &&
      setenv("CUDA_VISIBLE_DEVICES", visible, 1) == 0) {
    char why[160];
    probe = nn_cudaprobe_open(why, sizeof why); /* loaded and initialised: nn_cudrv finds it */
  }
  nn_visible_resolve_at(cfg, visible, probe ? nn_cudrv_visible_busids : NULL, root, &job->vis);
  nn_cudaprobe_close(probe);
  nn_visible_view(cfg, &job->vis, job->own, &job->view);
}

size_t nn_job_ranks(const struct nn_config *cfg, const struct nn_job *job) {
  if (job->vis.n >= 2) return (size_t)job->vis.n;
  return cfg && cfg->n_gpus ? (size_t)cfg->n_gpus : 8;
}
