// The floor under a memory-bound GEMM: how long one launch takes to read a matrix of a given
// size once, back to back as the tuner times kernels (events around a batch of launches, the
// buffers rotated past twice the L2 so every launch reads from DRAM). A skinny GEMM such as
// 16×4096×4096 reads its B operand (32 MiB in 16 bits) and little else, so this is the time no
// kernel for it can beat on this GPU.
//
// Three readers: `linear` (a grid-stride sweep of 16-byte loads, the best case), `tile` (each
// block reads a strip of W bytes by K/S rows of a row-major matrix with an 8 KiB row pitch, as a
// GEMM block reads its B tile under split-K S), and `empty` (no load: the launch-to-launch floor);
// the first two also with programmatic dependent launch.
//
//   nvcc -O3 -arch=sm_90 -o read_ceiling bench/read_ceiling.cu && ./read_ceiling [MiB]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t const e_ = (x);                                                   \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));               \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// With PDL (programmatic dependent launch, as the tuner launches its sm_90 kernels) a launch may
// start while the previous one drains; it waits for it before its first load.
template <bool PDL>
__device__ __forceinline__ void enter() {
  if constexpr (PDL) asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory");
}

// Eight loads in flight per thread before any is used; the xor keeps them from being dropped.
template <bool PDL>
__global__ void linear(uint4 const* __restrict__ p, size_t n, unsigned* sink) {
  enter<PDL>();
  unsigned acc = 0;
  size_t const stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 7 * stride < n; i += 8 * stride) {
    uint4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) v[u] = __ldcs(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n; i += stride) {
    uint4 const v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

// Block (x, z) reads columns [x·W, (x+1)·W) bytes of rows [z·R, (z+1)·R), R = rows / gridDim.z.
template <bool PDL>
__global__ void tile(unsigned char const* __restrict__ base, int pitch, int width, int rows,
                     unsigned* sink) {
  enter<PDL>();
  int const per_row = width / 16;
  int const rows_per_pass = blockDim.x / per_row;
  int const r_per_block = rows / gridDim.z;
  unsigned char const* p = base + static_cast<size_t>(blockIdx.z) * r_per_block * pitch +
                           static_cast<size_t>(blockIdx.x) * width;
  int const lane_row = threadIdx.x / per_row;
  int const col = (threadIdx.x % per_row) * 16;
  unsigned acc = 0;
  int r = lane_row;
  for (; r + 7 * rows_per_pass < r_per_block; r += 8 * rows_per_pass) {
    uint4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u)
      v[u] = __ldcs(reinterpret_cast<uint4 const*>(p + static_cast<size_t>(r + u * rows_per_pass) * pitch + col));
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; r < r_per_block; r += rows_per_pass) {
    uint4 const v = __ldcs(reinterpret_cast<uint4 const*>(p + static_cast<size_t>(r) * pitch + col));
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

__global__ void empty(unsigned* sink) {
  if (threadIdx.x == 1024) *sink = 0;
}

// Launches kernel<<<grid, block>>>(args...), with programmatic stream serialization if pdl.
template <class... P, class... A>
void launch(bool pdl, void (*kernel)(P...), dim3 grid, dim3 block, A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl ? 1 : 0;
  CHECK(cudaLaunchKernelEx(&cfg, kernel, static_cast<P>(args)...));
}

// Median over 7 batches of the per-launch time in microseconds; `launch(i)` issues launch i.
template <class F>
double time_us(F const& launch, int batch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < batch; ++i) launch(i);  // warm-up
  std::vector<double> us;
  for (int r = 0; r < 7; ++r) {
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < batch; ++i) launch(i);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    us.push_back(1000.0 * ms / batch);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  size_t const mib = argc > 1 ? std::strtoul(argv[1], &end, 10) : 32;
  if (argc > 2 || (argc > 1 && (*end != '\0' || mib < 1 || mib > 16384))) {
    std::fprintf(stderr, "usage: read_ceiling [MiB per launch, 1..16384, default 32]\n");
    return 2;
  }
  size_t const bytes = mib << 20;
  int sms = 0, l2 = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  int const sets = static_cast<int>(std::max<size_t>(2, (2 * static_cast<size_t>(l2)) / bytes + 2));
  std::vector<unsigned char*> buf(sets);
  for (auto& b : buf) {
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(b, 1, bytes));
  }
  unsigned* sink = nullptr;
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  std::printf("%zu MiB per launch, %d buffers rotated, %d SMs\n", mib, sets, sms);
  std::printf("%-40s %9s %9s\n", "reader", "us", "GB/s");
  auto report = [&](char const* name, double us) {
    std::printf("%-40s %9.2f %9.0f\n", name, us, bytes / us / 1e3);
  };
  report("empty (launch floor)", time_us([&](int) { empty<<<sms, 128>>>(sink); }, 400));
  size_t const n16 = bytes / 16;
  for (bool pdl : {false, true}) {
    for (int per_sm : {1, 2, 4, 8}) {
      char name[64];
      std::snprintf(name, sizeof name, "linear, %d x 512 threads per SM%s", per_sm, pdl ? ", PDL" : "");
      report(name, time_us([&](int i) {
               launch(pdl, pdl ? linear<true> : linear<false>, dim3(sms * per_sm), dim3(512),
                      reinterpret_cast<uint4 const*>(buf[i % sets]), n16, sink);
             }, 200));
    }
  }
  // A 16-bit K×N matrix with N = 4096 (8 KiB rows), as B of 16×4096×4096.
  int const pitch = 8192;
  int const rows = static_cast<int>(bytes / pitch);
  struct Shape { int width, split, threads; };
  for (bool pdl : {false, true}) {
    for (Shape s : {Shape{128, 8, 256}, Shape{128, 2, 256}, Shape{256, 4, 256}, Shape{256, 4, 512},
                    Shape{512, 8, 512}, Shape{512, 2, 512}, Shape{64, 1, 256}}) {
      dim3 const grid(pitch / s.width, 1, s.split);
      char name[64];
      std::snprintf(name, sizeof name, "tile %d B x rows/%d, %d x %d%s", s.width, s.split,
                    static_cast<int>(grid.x * grid.z), s.threads, pdl ? ", PDL" : "");
      report(name, time_us([&](int i) {
               launch(pdl, pdl ? tile<true> : tile<false>, grid, dim3(s.threads),
                      buf[i % sets], pitch, s.width, rows, sink);
             }, 200));
    }
  }
  return 0;
}
