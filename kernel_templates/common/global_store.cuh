// 16-byte global stores issued as one instruction. A plain uint4 store is one in PTX only when
// the compiler keeps it so: in the wgmma register epilogue the front end split the first of a
// row's four 16-byte stores into four 4-byte ones, so every warp instruction of it wrote each
// 32-byte sector in pieces (1.75x the store sectors of C at 1024^3 on an H100).
#pragma once

namespace gemmtune {
namespace global_store {

/// Stores x, y, z, w at `ptr` (16-byte aligned) with one st.global.v4.
__device__ __forceinline__ void v4(void* ptr, unsigned x, unsigned y, unsigned z, unsigned w) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(ptr), "r"(x), "r"(y), "r"(z),
               "r"(w)
               : "memory");
}

}  // namespace global_store
}  // namespace gemmtune
