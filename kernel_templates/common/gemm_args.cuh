// The arguments every gemmtune kernel takes, by value. Plain C++ with fixed-size fields, so
// the host (src/core/kernel_abi.hpp) includes this same file and the layouts cannot drift.
#pragma once

/// Shared memory a block may use without opting in through
/// cudaFuncAttributeMaxDynamicSharedMemorySize (48 KiB on every arch since sm_70). Static shared
/// memory can never exceed it, so templates make larger tiles dynamic and launches above it opt in.
constexpr int kSmemWithoutOptIn = 48 * 1024;

/// Arguments of C[M×N] = alpha · op(A) · op(B) + beta · C, row-major storage.
/// Leading dimensions are in elements. `workspace` is scratch the launch plan asked for
/// (split-K partials, operand copies); null when it asked for none. `counters` are the split-K
/// tile counters the plan asked for: zero before a launch, and every launch leaves them zero;
/// null when it asked for none. `scale_a` and `scale_b` point at one FP32 scale each in device
/// memory for the FP8 precisions (C = alpha·sa·sb·op(A)·op(B) + beta·C); null otherwise.
struct GemmArgs {
  long long M;
  long long N;
  long long K;
  long long lda;
  long long ldb;
  long long ldc;
  const void* A;
  const void* B;
  void* C;
  void* workspace;
  unsigned int* counters;
  float alpha;
  float beta;
  const float* scale_a;
  const float* scale_b;
};

/// One TMA descriptor (CUtensorMap): 128 opaque bytes the host encodes, 64-byte aligned.
struct alignas(64) TmaDescriptor {
  unsigned long long opaque[16];
};

/// The second kernel parameter of launches that read or write through TMA, passed as
/// `const __grid_constant__ TensorMaps`. The host encodes the slots the launch plan names
/// (over the same pointers and leading dimensions as GemmArgs) and leaves the others zero.
struct TensorMaps {
  TmaDescriptor a;
  TmaDescriptor b;
  TmaDescriptor c;
};
