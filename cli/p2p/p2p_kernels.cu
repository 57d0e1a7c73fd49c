// SPDX-License-Identifier: BSD-3-Clause
// p2p_kernels.cu - the kernels of `nccl-numa p2p`. The build does not compile this file:
// p2p_kernels.ptx, made from it once with
//   nvcc -ptx -arch=compute_75 -o cli/p2p/p2p_kernels.ptx cli/p2p/p2p_kernels.cu
// is committed and embedded (the command needs no nvcc), with its header lowered by hand to
// `.version 7.0` and `.target sm_60` so that drivers from CUDA 11 on load it (the kernels use
// nothing newer). Regenerate the .ptx, and lower it again, after an edit.
// The word pattern is nn_p2p_pattern in p2ptest.h: keep the two equal.

__device__ __forceinline__ unsigned pattern(unsigned i, unsigned seed) {
  return (i * 0x9E3779B1u) ^ seed;
}

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// dst[i] = pattern(i, seed) for i < n; dst may be a peer GPU's memory.
extern "C" __global__ void nn_p2p_fill(unsigned *dst, unsigned n, unsigned seed) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    dst[i] = pattern(i, seed);
  __threadfence_system();
}

// *wrong += the number of words of src (possibly a peer's memory) that differ from the pattern.
extern "C" __global__ void nn_p2p_verify(const volatile unsigned *src, unsigned n, unsigned seed,
                                         unsigned *wrong) {
  unsigned bad = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    bad += src[i] != pattern(i, seed);
  if (bad) atomicAdd(wrong, bad);
}

// One side of a ping-pong through peer memory, one thread. Role 0 writes 2k+1 into the other
// GPU's flag and waits for 2k+2 in its own; role 1 answers. A flag that does not arrive within
// spin_ns ends the kernel: result[0] = the round that failed (1-based), else 0; result[1] =
// the nanoseconds of all rounds.
extern "C" __global__ void nn_p2p_pingpong(volatile unsigned *mine, volatile unsigned *theirs,
                                           unsigned rounds, unsigned role,
                                           unsigned long long spin_ns, unsigned long long *result) {
  unsigned long long start = now_ns();
  for (unsigned k = 0; k < rounds; k++) {
    unsigned want = 2 * k + (role == 0 ? 2 : 1);
    if (role == 0) {
      theirs[0] = 2 * k + 1;
      __threadfence_system();
    }
    unsigned long long wait_from = now_ns();
    while (mine[0] != want) {
      if (now_ns() - wait_from > spin_ns) {
        result[0] = k + 1;
        result[1] = now_ns() - start;
        return;
      }
    }
    if (role == 1) {
      theirs[0] = 2 * k + 2;
      __threadfence_system();
    }
  }
  result[0] = 0;
  result[1] = now_ns() - start;
}

// NCCL's LL protocol stores (storeLL, src/device/prims_ll.h, 2.28.9): data and a flag side by
// side, written by one volatile vector store into the peer's buffer. Word 2i of dst holds
// pattern(i, seed) and word 2i+1 the flag; ll8 writes one {data, flag} pair per 8-byte store,
// ll16 two pairs per 16-byte store, as LL does. `pairs` is even.
extern "C" __global__ void nn_p2p_ll8(unsigned *dst, unsigned pairs, unsigned seed, unsigned flag) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x)
    asm volatile("st.volatile.global.v2.u32 [%0], {%1,%2};" ::"l"(dst + 2 * i),
                 "r"(pattern(i, seed)), "r"(flag)
                 : "memory");
  __threadfence_system();
}

extern "C" __global__ void nn_p2p_ll16(unsigned *dst, unsigned pairs, unsigned seed,
                                       unsigned flag) {
  for (unsigned l = blockIdx.x * blockDim.x + threadIdx.x; l < pairs / 2;
       l += gridDim.x * blockDim.x)
    asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(dst + 4 * l),
                 "r"(pattern(2 * l, seed)), "r"(flag), "r"(pattern(2 * l + 1, seed)), "r"(flag)
                 : "memory");
  __threadfence_system();
}

// *wrong += the pairs of src whose data is not the pattern or whose flag is not `flag`.
extern "C" __global__ void nn_p2p_ll_verify(const volatile unsigned *src, unsigned pairs,
                                            unsigned seed, unsigned flag, unsigned *wrong) {
  unsigned bad = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x)
    bad += src[2 * i] != pattern(i, seed) || src[2 * i + 1] != flag;
  if (bad) atomicAdd(wrong, bad);
}
