// gemmtune's runtime library: runs the kernel a tuning table picks for each GEMM call, and
// cuBLAS when the table has nothing that can run it. The only header an application includes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "src/core/precision.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; declared here so no CUDA header is needed

namespace gemmtune {

struct GemmCall;

/// The outcome of Runtime::gemm. Only kOk means C was written (or queued to be).
enum class GemmStatus {
  kOk,               ///< queued on the stream (tuned kernel or cuBLAS)
  kInvalidArgument,  ///< a size, leading dimension or pointer the GEMM cannot take; nothing ran
  kNoDevice,         ///< no usable CUDA device or driver; nothing ran
  kCudaError,        ///< CUDA refused the tuned kernel and cuBLAS, e.g. after a sticky error
  kCublasError,      ///< the cuBLAS fallback failed
};

/// Which code ran a call.
enum class GemmPath {
  kNone,    ///< nothing ran (see the status)
  kTuned,   ///< the table's kernel, compiled with NVRTC
  kCublas,  ///< cuBLAS with the precision's pinned compute type (also a table's cublas:default)
  kCublasLt,  ///< the table's cuBLASLt algorithm, exactly as tuned (a vendor pick), or for
              ///< FP8, which cublasGemmEx does not take, cuBLASLt's heuristic algorithm
};

/// "ok", "invalid_argument", "no_device", "cuda_error", "cublas_error".
std::string_view to_string(GemmStatus status);
/// "none", "tuned", "cublas", "cublaslt".
std::string_view to_string(GemmPath path);

/// What one call did, for tests, logs and users who want to know.
struct GemmInfo {
  GemmStatus status = GemmStatus::kOk;
  GemmPath path = GemmPath::kNone;
  std::string rule;    ///< the table rule that matched: "exact", "nearest", "gpu_default",
                       ///< "arch_default" or "none" ("" when the call stopped before the lookup)
  std::string kernel;  ///< the table's kernel id (ours or a vendor pick such as
                       ///< "cublas:default"), even when it fell back to cuBLAS; else ""
  int align = 0;       ///< alignment class of the pointers and leading dimensions (bytes)
  std::string detail;  ///< one line: why this path (a fallback names its reason)
};

/// The scales of an FP8 call in device memory, each 16-byte aligned, read on the GPU when the
/// call runs (so a captured graph sees the values of each replay): for e4m3 one float each; for
/// e4m3-row M floats for the rows of op(A) and N for the columns of op(B); for e4m3-blk one
/// float per row i of op(A) and 128-deep K block kb at a[kb·M + i], and one per 128×128 block
/// of op(B) at b[(j/128)·L + kb], L = ⌈K/128⌉ rounded up to 4.
struct Fp8Scales {
  float const* a = nullptr;  ///< the scales of A
  float const* b = nullptr;  ///< the scales of B
};

/// Settings of a Runtime.
struct RuntimeOptions {
  /// Directory of the on-disk cubin cache; "" = $GEMMTUNE_CUBIN_CACHE, else
  /// $XDG_CACHE_HOME/gemmtune/cubins, else $HOME/.cache/gemmtune/cubins.
  std::string cubin_cache_dir;
  /// false: every call uses cuBLAS (same checks and statuses), e.g. to compare against.
  bool use_tuned = true;
};

/// Runs GEMMs with the kernels of a tuning table.
///
/// Each call looks the problem up in the table for the current device (exact shape, nearest
/// tuned shape, GPU default, same-arch default), with the alignment class computed from the
/// actual pointers and leading dimensions, so a config tuned on 16-byte-aligned data is never
/// run on less-aligned data. The first call of a kernel compiles it with NVRTC (cubin cached on
/// disk) and loads it; later calls of the same problem cost a hash lookup and a launch. A
/// problem with no entry, a kernel the current build or device cannot run, or a failed compile,
/// load or launch goes to cuBLAS, and the kernel is not tried again for that problem. A table
/// entry whose pick is a vendor call runs it: cublas:default as cuBLAS, a cuBLASLt algorithm
/// with exactly its tuned configuration (built once per problem), but only under the cuBLAS
/// version it was tuned with and when this cuBLAS accepts it; otherwise cuBLAS, and GemmInfo
/// says why.
///
/// Under CUDA-graph capture, a call whose stream already has a workspace block (from an
/// earlier call outside the capture) records that block's address in the graph; replay the
/// graph in order with the stream's other work, as for cuBLAS's own workspace.
///
/// Thread-safe: one Runtime may serve many threads and streams. gemm() never throws and never
/// aborts; it queues work on the caller's stream and does not synchronise.
class Runtime {
 public:
  /// No table: every call uses cuBLAS.
  explicit Runtime(RuntimeOptions options = {});
  /// Loads and validates a table (format "gemmtune-table" v1). Throws std::runtime_error naming
  /// the file and the JSON path of the first problem when the table is unreadable or invalid.
  explicit Runtime(std::filesystem::path const& table, RuntimeOptions options = {});
  ~Runtime();
  Runtime(Runtime const&) = delete;
  Runtime& operator=(Runtime const&) = delete;

  /// C = alpha·op(A)·op(B) + beta·C on `stream`, row-major as torch.matmul: C is M×N with ldc;
  /// A is M×K (lda ≥ K), or K×M (lda ≥ M) when the layout transposes A; B is K×N (ldb ≥ N),
  /// or N×K (ldb ≥ K) when it transposes B. Leading dimensions are in elements. Element type
  /// by precision: fp32/tf32 float, fp16 __half, bf16 __nv_bfloat16; alpha and beta are float
  /// (FP32 accumulation). C is not read when beta == 0. M, N or K of 0 is valid. `info`, when
  /// given, receives what the call did.
  GemmStatus gemm(Precision precision, Layout layout, std::int64_t m, std::int64_t n,
                  std::int64_t k, float alpha, void const* a, std::int64_t lda, void const* b,
                  std::int64_t ldb, float beta, void* c, std::int64_t ldc,
                  CUstream_st* stream = nullptr, GemmInfo* info = nullptr) noexcept;

  /// FP8 (e4m3): C = alpha·(*scales.a)·(*scales.b)·op(A)·op(B) + beta·C, A and B one byte per
  /// element, C bf16, FP32 accumulation; e4m3-row and e4m3-blk take row-wise and block scales
  /// instead (Fp8Scales). Any layout (NT, A stored M×K and B stored N×K as torch.nn.Linear
  /// keeps its weight, is read in place), K a multiple of 16 and M or N too where A or B is
  /// stored MN-major, pointers and leading dimensions in whole 16-byte rows; anything else is
  /// kInvalidArgument, as is a precision other than FP8 (which takes no scales) or the call
  /// above with an FP8 precision. Runs the table's kernel or cuBLASLt algorithm; otherwise
  /// cuBLASLt's heuristic algorithm, since cublasGemmEx takes no FP8 (GemmInfo's path is then
  /// kCublasLt and its detail says so; on Hopper it takes layout NT only).
  GemmStatus gemm(Precision precision, Layout layout, std::int64_t m, std::int64_t n,
                  std::int64_t k, float alpha, void const* a, std::int64_t lda, void const* b,
                  std::int64_t ldb, float beta, void* c, std::int64_t ldc, Fp8Scales scales,
                  CUstream_st* stream = nullptr, GemmInfo* info = nullptr) noexcept;

  /// Entries in the loaded table (0 without a table).
  std::size_t table_entries() const;
  /// One line: the table's origin and size, and the cubin cache directory.
  std::string describe() const;

 private:
  /// Both gemm() overloads: checks, the decision for the call's problem, and its launch with
  /// the fallbacks.
  GemmStatus run(GemmCall const& call, CUstream_st* stream, GemmInfo* info) noexcept;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gemmtune
