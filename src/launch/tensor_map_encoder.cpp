// Descriptor encoding through cuTensorMapEncodeTiled (resolved once with
// cudaGetDriverEntryPointByVersion) with tiled mode, no interleave, 256-byte L2 promotion and
// zero fill out of bounds, so a tile hanging over a ragged edge reads zeros.
#include "src/launch/tensor_map_encoder.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "src/core/tensor_map_geometry.hpp"

namespace gemmtune {
namespace {

// The bytes are copied, so only the size must agree; the hardware needs 64-byte alignment,
// which TmaDescriptor has (CUDA 13's CUtensorMap asks for 128).
static_assert(sizeof(CUtensorMap) == sizeof(TmaDescriptor), "TmaDescriptor must hold a CUtensorMap");

struct EntryPoint {
  PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  std::string error;
};

EntryPoint const& entry_point() {
  static EntryPoint const ep = [] {
    EntryPoint e;
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    cudaError_t const err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                             cudaEnableDefault, &q);
    if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == nullptr) {
      (void)cudaGetLastError();
      e.error = std::string("the driver has no cuTensorMapEncodeTiled (") +
                (err != cudaSuccess ? cudaGetErrorName(err) : "symbol not found") + ")";
    } else {
      e.fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }
    return e;
  }();
  return ep;
}

CUtensorMapDataType data_type(TensorElement e) {
  switch (e) {
    case TensorElement::kFloat32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case TensorElement::kFloat16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case TensorElement::kBFloat16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case TensorElement::kUint8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

CUtensorMapSwizzle swizzle(int bytes) {
  switch (bytes) {
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

std::string encode_one(TensorMapSpec const& spec, Problem const& problem, GemmArgs const& args,
                       TmaDescriptor& out) {
  std::int64_t ld = 0;
  void const* base = nullptr;
  switch (spec.operand) {
    case TmaOperand::kA: ld = args.lda; base = args.A; break;
    case TmaOperand::kB: ld = args.ldb; base = args.B; break;
    case TmaOperand::kC: ld = args.ldc; base = args.C; break;
  }
  // A padded copy stands in only for a matrix TMA cannot read in place, as the copy kernel
  // decides on the device; a K-major copy always.
  bool const copied =
      spec.workspace_offset >= 0 &&
      (!spec.padded_copy ||
       needs_padded_copy(reinterpret_cast<std::uintptr_t>(base), ld,
                         input_bytes(stored_precision(spec.operand, problem.precision)),
                         spec.in_place_pitch));
  if (copied) {
    if (args.workspace == nullptr) {
      return std::string("tensor map of ") + to_string(spec.operand) +
             ": reads a workspace copy but the launch has no workspace";
    }
    base = static_cast<char const*>(args.workspace) + spec.workspace_offset;
    if (spec.padded_copy) ld = padded_copy_ld(spec.operand, problem);
  }
  TensorMapGeometry g;
  if (std::string why = tensor_map_geometry(spec, problem, ld, g); !why.empty()) return why;
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) {
    return std::string("tensor map of ") + to_string(spec.operand) +
           ": base address is not 16-byte aligned";
  }
  EntryPoint const& ep = entry_point();
  if (ep.fn == nullptr) return ep.error;
  cuuint64_t const dims[2] = {g.cols, g.rows};
  cuuint64_t const strides[1] = {g.row_stride_bytes};
  cuuint32_t const box[2] = {g.box_cols, g.box_rows};
  cuuint32_t const element_strides[2] = {1, 1};
  CUtensorMap map;
  CUresult const r = ep.fn(&map, data_type(g.element), 2, const_cast<void*>(base), dims, strides,
                           box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           swizzle(g.swizzle_bytes), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    return std::string("cuTensorMapEncodeTiled refused the descriptor of ") +
           to_string(spec.operand) + " (CUresult " + std::to_string(static_cast<int>(r)) + ")";
  }
  std::memcpy(&out, &map, sizeof map);
  return {};
}

}  // namespace

std::size_t TensorMapEncoder::KeyHash::operator()(Key const& k) const noexcept {
  std::size_t h = 0;
  auto mix = [&h](std::uint64_t v) { h ^= std::hash<std::uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (std::int64_t d : k.dims) mix(static_cast<std::uint64_t>(d));
  for (void const* p : k.pointers) mix(reinterpret_cast<std::uintptr_t>(p));
  return h;
}

std::string TensorMapEncoder::encode(std::vector<TensorMapSpec> const& specs,
                                     Problem const& problem, GemmArgs const& args,
                                     TensorMaps& out) const {
  Key const key{{args.M, args.N, args.K, args.lda, args.ldb, args.ldc},
                {args.A, args.B, args.C, args.workspace}};
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = remembered_.find(key); it != remembered_.end()) {
    // One encoder may serve several plans (the worker's runner prepares one candidate after
    // another), so the specs and problem are part of what must match.
    if (it->second.specs == specs && it->second.problem == problem) {
      out = it->second.maps;
      return {};
    }
    remembered_.erase(it);
  }
  Entry e;
  e.specs = specs;
  e.problem = problem;
  for (TensorMapSpec const& spec : specs) {
    TmaDescriptor* slot = spec.operand == TmaOperand::kA   ? &e.maps.a
                          : spec.operand == TmaOperand::kB ? &e.maps.b
                                                           : &e.maps.c;
    if (std::string why = encode_one(spec, problem, args, *slot); !why.empty()) return why;
  }
  out = e.maps;
  if (remembered_.size() >= kRemembered) remembered_.clear();
  remembered_.emplace(key, std::move(e));
  return {};
}

}  // namespace gemmtune
