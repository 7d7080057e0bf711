// Per-stream workspace blocks. Streams are told apart by cudaStreamGetId, which is unique for
// the life of the process: a stream handle that is destroyed and reused, or cudaStreamPerThread
// used from several threads, never maps two live streams to one block.
#include "src/runtime/workspace_pool.hpp"

#include <algorithm>
#include <set>

namespace gemmtune {
namespace {

/// Blocks are rounded up so that slightly different problems share one allocation.
constexpr std::size_t kGranule = std::size_t{1} << 20;

std::size_t round_up(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule * kGranule; }

}  // namespace

WorkspacePool::~WorkspacePool() {
  std::vector<Block> all = std::move(retired_);
  for (auto const& [key, block] : blocks_) all.push_back(block);
  int current = 0;
  bool const restore = cudaGetDevice(&current) == cudaSuccess;
  std::set<int> synced;
  for (Block const& b : all) {
    if (cudaSetDevice(b.device) != cudaSuccess) continue;
    // Work still queued may read the block (the application did not synchronise before
    // destroying the runtime); waiting is the only safe order.
    if (synced.insert(b.device).second) (void)cudaDeviceSynchronize();
    (void)cudaFree(b.ptr);
  }
  if (restore) (void)cudaSetDevice(current);
  (void)cudaGetLastError();  // at process exit the driver may already be gone
}

cudaError_t WorkspacePool::acquire(int device, cudaStream_t stream, std::size_t bytes,
                                   WorkspaceLease& out) {
  out = {};
  auto per_call = [&]() -> cudaError_t {
    out.owned = true;
    if (cudaError_t const e = cudaMallocAsync(&out.ptr, bytes, stream); e != cudaSuccess) return e;
    return clear(out.ptr, bytes, stream);
  };
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaError_t const e = cudaStreamIsCapturing(stream, &capture); e != cudaSuccess) return e;
  if (capture != cudaStreamCaptureStatusNone) {
    // Under capture the stream's block, where one is big enough, goes into the graph as it is:
    // blocks live as long as the pool, and the graph replays in the stream's order like its
    // other work. Allocating inside the capture would add an allocation, a clear and a free to
    // every replay.
    std::lock_guard<std::mutex> lock(mutex_);
    auto const seen = last_ids_.find(stream);
    if (seen != last_ids_.end()) {
      auto const it = blocks_.find(Key{device, seen->second});
      if (it != blocks_.end() && it->second.bytes >= bytes) {
        out.ptr = it->second.ptr;
        return cudaSuccess;
      }
    }
    return per_call();
  }
  unsigned long long id = 0;
  if (cudaError_t const e = cudaStreamGetId(stream, &id); e != cudaSuccess) return e;

  Key const key{device, id};
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_ids_.size() < kMaxStreams || last_ids_.count(stream)) last_ids_[stream] = id;
  auto it = blocks_.find(key);
  if (it != blocks_.end() && it->second.bytes >= bytes) {
    out.ptr = it->second.ptr;
    return cudaSuccess;
  }
  if (it == blocks_.end() && blocks_.size() >= kMaxStreams) return per_call();
  // Growing at least twice over keeps the outgrown blocks, which live until the pool does, to
  // less than the final block's size in all.
  std::size_t const want = it == blocks_.end() ? bytes : std::max(bytes, 2 * it->second.bytes);
  Block grown{device, nullptr, round_up(want)};
  // Not stream-ordered: the block must outlive this stream's queue, and allocating while the
  // stream's earlier work runs is safe because nothing frees memory that work uses.
  if (cudaError_t const e = cudaMalloc(&grown.ptr, grown.bytes); e != cudaSuccess) return e;
  if (cudaError_t const e = clear(grown.ptr, grown.bytes, stream); e != cudaSuccess) {
    (void)cudaFree(grown.ptr);
    return e;
  }
  if (it != blocks_.end()) {
    retired_.push_back(it->second);
    it->second = grown;
  } else {
    blocks_.emplace(key, grown);
  }
  out.ptr = grown.ptr;
  return cudaSuccess;
}

cudaError_t WorkspacePool::clear(void* ptr, std::size_t bytes, cudaStream_t stream) const {
  return zeroed_ ? cudaMemsetAsync(ptr, 0, bytes, stream) : cudaSuccess;
}

void WorkspacePool::release(WorkspaceLease const& lease, cudaStream_t stream) {
  if (lease.owned && lease.ptr != nullptr) (void)cudaFreeAsync(lease.ptr, stream);
}

}  // namespace gemmtune
