// A CPU stand-in for the few CUDA features the fp32 ladder templates use, so the templates can
// be compiled by the host compiler and run block by block in tests without a GPU: the block's
// threads are ucontext coroutines on one OS thread, __syncthreads() switches back to a
// scheduler that resumes every thread once all have reached the barrier (or exited).
// Include this BEFORE any kernel template; compile with -fno-strict-aliasing (the templates
// reinterpret float arrays as float4, which is fine on a GPU but not in ISO C++).
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __align__(n) __attribute__((aligned(n)))

struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

struct EmuDim3 {
  unsigned x = 0, y = 0, z = 0;
};

inline EmuDim3 threadIdx;
inline EmuDim3 blockIdx;
inline EmuDim3 blockDim;
inline EmuDim3 gridDim;

namespace emu {

/// Scheduler state of the block being run.
struct BlockState {
  ucontext_t scheduler{};
  std::vector<ucontext_t> threads;
  std::vector<bool> done;
  unsigned current = 0;
  int barrier_calls = 0;
};
inline BlockState g_block;
inline void (*g_entry)(void*) = nullptr;
/// Runs a grid's blocks last to first: split-K's last slice to arrive is then slice 0, not the
/// last one (tests alternate, so both orders are exercised).
inline bool g_reverse_grid = false;
inline void* g_entry_arg = nullptr;

inline void thread_main() {
  g_entry(g_entry_arg);
  g_block.done[g_block.current] = true;  // returning resumes the scheduler through uc_link
}

/// Runs `body(arg)` as every thread of every block of a grid of `grid`×1×`grid_z` blocks.
inline void run_grid(unsigned grid, unsigned block, void (*body)(void*), void* arg,
                     unsigned grid_z = 1) {
  // Stacks are kept between launches: allocating (and faulting in) fresh ones per launch
  // would cost more than the emulated kernels.
  constexpr std::size_t kStack = 64 * 1024;
  static std::vector<std::vector<char>> stacks;
  while (stacks.size() < block) stacks.emplace_back(kStack);
  g_entry = body;
  g_entry_arg = arg;
  gridDim = {grid, 1, grid_z};
  blockDim = {block, 1, 1};
  for (unsigned i = 0; i < grid * grid_z; ++i) {
    unsigned const b = g_reverse_grid ? grid * grid_z - 1 - i : i;
    blockIdx = {b % grid, 0, b / grid};
    g_block.threads.assign(block, ucontext_t{});
    g_block.done.assign(block, false);
    for (unsigned t = 0; t < block; ++t) {
      ucontext_t& ctx = g_block.threads[t];
      if (getcontext(&ctx) != 0) throw std::runtime_error("getcontext failed");
      ctx.uc_stack.ss_sp = stacks[t].data();
      ctx.uc_stack.ss_size = kStack;
      ctx.uc_link = &g_block.scheduler;
      makecontext(&ctx, thread_main, 0);
    }
    while (true) {
      bool any_running = false;
      for (unsigned t = 0; t < block; ++t) {
        if (g_block.done[t]) continue;
        g_block.current = t;
        threadIdx = {t, 0, 0};
        swapcontext(&g_block.scheduler, &g_block.threads[t]);
        any_running = any_running || !g_block.done[t];
      }
      if (!any_running) break;
    }
  }
}

}  // namespace emu

inline void __syncthreads() {
  ++emu::g_block.barrier_calls;
  swapcontext(&emu::g_block.threads[emu::g_block.current], &emu::g_block.scheduler);
}

/// Block-wide OR vote: every thread gets whether any passed a nonzero predicate. The last
/// thread to read clears the vote before the second barrier releases anyone into the next one.
inline int __syncthreads_or(int predicate) {
  static int vote = 0;
  static unsigned reads = 0;
  if (predicate) vote = 1;
  __syncthreads();
  int const result = vote;
  if (++reads == emu::g_block.threads.size()) {
    vote = 0;
    reads = 0;
  }
  __syncthreads();
  return result;
}

// Split-K counters (common/split_k.cuh). Emulated threads switch only at barriers and blocks run
// one after another, so plain memory operations are atomic and ordered here.
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  unsigned const old = *p;
  *p = old + v;
  return old;
}
