/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * allocconf.h - whether PyTorch's CUDA caching allocator in this process grows its memory in
 * expandable segments, read from the variables PyTorch reads (c10/cuda/CUDAAllocatorConfig.h:
 * PYTORCH_CUDA_ALLOC_CONF and PYTORCH_ALLOC_CONF, the order depending on the release), a
 * comma-separated list of key:value options of which `expandable_segments:True` is the one.
 *
 * NCCL's peer-to-peer transport with CUDA-graph buffer registration and expandable segments
 * has hung CUDA-graph capture (pytorch/pytorch #158029, NVIDIA/Megatron-LM #5474); with
 * NCCL_GRAPH_REGISTER=0 it did not, at no measured cost. The env plugin serves that where it
 * serves peer access (env.c).
 */
#ifndef NCCL_NUMA_ALLOCCONF_H
#define NCCL_NUMA_ALLOCCONF_H

/* 1 when the option list `conf` turns expandable segments on (the last expandable_segments
 * option wins, as PyTorch's parser overwrites), else 0; NULL is 0. */
int nn_allocconf_expandable(const char *conf);

/* 1 when either variable turns them on (one release reads one first, another the other:
 * either may be the one in force), with that variable's name in *var; else 0. */
int nn_allocconf_process_expandable(const char **var);

#endif
