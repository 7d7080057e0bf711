// Where the blocks of a one-wave launch land: which SM each block index runs on, with and
// without 2- and 4-block clusters, and groups of SMs that share a GPC (the SMs of one cluster
// always do; the union over many clusters of 16, 8 and 2 gives the groups). Prints one JSON
// object:
//   {"sms": N, "gpcs": [[sm, ...], ...], "plain": [sm of block 0, ...], "pairs": [...],
//    "fours": [...]}
// A GEMM kernel's tile raster decides which tiles are computed next to each other only through
// this mapping. Build: nvcc -arch=sm_90 -o sm_placement sm_placement.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

__global__ void record_sm(unsigned* sm_of_block) {
  unsigned sm = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) sm_of_block[blockIdx.x] = sm;
  // Hold the SM long enough that every block of the grid is resident at once.
  unsigned long long const start = clock64();
  while (clock64() - start < 2000000ull) {
  }
}

void check(cudaError_t e, char const* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "sm_placement: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

/// Block index -> SM of one launch of `blocks` blocks (one per SM: the shared memory asks for
/// most of it), in clusters of `cluster` blocks (1: a plain launch); empty if the launch fails
/// (a cluster of 16 where no GPC has 16 SMs free).
std::vector<unsigned> placement(int blocks, int cluster, int smem) {
  unsigned* d = nullptr;
  check(cudaMalloc(&d, blocks * sizeof(unsigned)), "cudaMalloc");
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  config.attrs = &attr;
  config.numAttrs = cluster > 1 ? 1 : 0;
  if (cudaLaunchKernelEx(&config, record_sm, d) != cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "sm_placement: %d blocks in clusters of %d did not launch\n", blocks,
                 cluster);
    cudaGetLastError();
    cudaFree(d);
    return {};
  }
  std::vector<unsigned> out(blocks);
  check(cudaMemcpy(out.data(), d, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
  cudaFree(d);
  return out;
}

int find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

void print_list(char const* name, std::vector<unsigned> const& v, bool last) {
  std::printf("  \"%s\": [", name);
  for (std::size_t i = 0; i < v.size(); ++i) std::printf("%s%u", i ? ", " : "", v[i]);
  std::printf("]%s\n", last ? "" : ",");
}

}  // namespace

int main(int argc, char** argv) {
  int const blocks = argc > 1 ? std::atoi(argv[1]) : 128;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  int const sms = prop.multiProcessorCount;
  int const smem = static_cast<int>(prop.sharedMemPerBlockOptin) - 1024;
  check(cudaFuncSetAttribute(record_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
        "smem attribute");
  // Clusters of 16 (non-portable): one spans a whole GPC of 16 SMs, where clusters of 8 land
  // on the same halves launch after launch and never join them.
  check(cudaFuncSetAttribute(record_sm, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
        "non-portable cluster attribute");
  // GPCs: SMs that ever share a cluster of 16, 8 or 2 are in one GPC.
  std::vector<int> parent(sms);
  std::iota(parent.begin(), parent.end(), 0);
  for (int cluster : {16, 8, 2}) {
    int const grid = sms / cluster * cluster;
    for (int round = 0; round < 8; ++round) {
      std::vector<unsigned> const p = placement(grid, cluster, smem);
      for (int b = 0; b + cluster <= static_cast<int>(p.size()); b += cluster) {
        for (int i = 1; i < cluster; ++i) {
          parent[find(parent, static_cast<int>(p[b + i]))] = find(parent, static_cast<int>(p[b]));
        }
      }
    }
  }
  std::vector<std::vector<unsigned>> gpcs;
  std::vector<int> index(sms, -1);
  for (int s = 0; s < sms; ++s) {
    int const r = find(parent, s);
    if (index[r] < 0) {
      index[r] = static_cast<int>(gpcs.size());
      gpcs.emplace_back();
    }
    gpcs[index[r]].push_back(static_cast<unsigned>(s));
  }
  std::printf("{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"blocks\": %d,\n", prop.name, sms,
              blocks);
  std::printf("  \"gpcs\": [");
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    std::printf("%s[", g ? ", " : "");
    for (std::size_t i = 0; i < gpcs[g].size(); ++i) std::printf("%s%u", i ? ", " : "", gpcs[g][i]);
    std::printf("]");
  }
  std::printf("],\n");
  print_list("plain", placement(blocks, 1, smem), false);
  print_list("plain_again", placement(blocks, 1, smem), false);
  print_list("pairs", placement(blocks, 2, smem), false);
  print_list("pairs_again", placement(blocks, 2, smem), false);
  print_list("fours", placement(blocks / 4 * 4, 4, smem), true);
  std::printf("}\n");
  return 0;
}
