// WorkspacePool: the runtime's device scratch space (split-K partial sums, operand copies; or,
// in a zeroed pool, split-K tile counters), kept per (device, stream) across calls so a repeated
// gemm() allocates nothing. A block is only used by work queued on its own stream, so calls on
// one stream never overlap in it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

namespace gemmtune {

/// A workspace for one call. `owned` blocks were allocated for this call alone (a capture on a
/// stream without a block yet, or more streams than the pool keeps) and must be released with release() after the launches.
struct WorkspaceLease {
  void* ptr = nullptr;
  bool owned = false;
};

/// Thread-safe. Blocks grow by allocating a larger one; the smaller one is kept until the pool is
/// destroyed, because work queued earlier (or a graph captured earlier, or another thread about
/// to launch on the same stream) may still read it.
class WorkspacePool {
 public:
  /// A zeroed pool clears every block it allocates, in stream order before any work that uses
  /// it; the work must leave it zero (split-K counters), so a pooled block is never cleared again.
  explicit WorkspacePool(bool zeroed = false) : zeroed_(zeroed) {}
  WorkspacePool(WorkspacePool const&) = delete;
  WorkspacePool& operator=(WorkspacePool const&) = delete;
  /// Synchronises the devices the pool allocated on, then frees every block.
  ~WorkspacePool();

  /// A workspace of at least `bytes` on the current device (`device`) for work queued on
  /// `stream`. While the stream is being captured into a graph, the stream's block is used when
  /// it exists and is large enough (the graph then reads it on every replay, which must stay in
  /// order with the stream's other work); otherwise the block is a stream-ordered allocation of
  /// the graph's own.
  cudaError_t acquire(int device, cudaStream_t stream, std::size_t bytes, WorkspaceLease& out);

  /// Frees an owned lease in stream order; nothing for a pooled block.
  static void release(WorkspaceLease const& lease, cudaStream_t stream);

  /// Streams the pool keeps a block for; calls on further streams allocate per call.
  static constexpr std::size_t kMaxStreams = 256;

 private:
  struct Key {
    int device;
    unsigned long long stream_id;
    bool operator==(Key const&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(Key const& k) const noexcept {
      return std::hash<unsigned long long>{}(k.stream_id * 31 + static_cast<unsigned>(k.device));
    }
  };
  struct Block {
    int device = 0;
    void* ptr = nullptr;
    std::size_t bytes = 0;
  };

  /// Clears a fresh block on `stream` when the pool is zeroed.
  cudaError_t clear(void* ptr, std::size_t bytes, cudaStream_t stream) const;

  bool const zeroed_;
  std::mutex mutex_;
  std::unordered_map<Key, Block, KeyHash> blocks_;
  std::vector<Block> retired_;  // outgrown blocks, freed with the pool
  /// The id each stream handle had when last seen outside a capture: cudaStreamGetId is not
  /// allowed while a stream is being captured (the call would invalidate the capture).
  std::unordered_map<cudaStream_t, unsigned long long> last_ids_;
};

}  // namespace gemmtune
