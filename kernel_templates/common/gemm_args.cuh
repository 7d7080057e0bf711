// The one argument every gemmtune kernel takes, by value. Plain C++ with fixed-size fields, so
// the host (src/core/kernel_abi.hpp) includes this same file and the layouts cannot drift.
#pragma once

/// Arguments of C[M×N] = alpha · op(A) · op(B) + beta · C, row-major storage.
/// Leading dimensions are in elements. `workspace` is scratch the launch plan asked for
/// (split-K partials, counters); null when it asked for none.
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
  float alpha;
  float beta;
};
