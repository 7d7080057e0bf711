// stmatrix (sm_90+): a warp stores 8×8 matrices of 16-bit elements, held in the mma
// accumulator fragment layout, to shared memory, each matrix row at an address its lane gives;
// so a staged tile can take whatever row layout its reader wants (the wgmma epilogue's 128-byte
// swizzle for TMA stores) at one instruction per four matrices.
#pragma once

namespace gemmtune {
namespace stmatrix {

/// Four 8×8 matrices of 16-bit elements to shared memory: lane l gives the address of row l%8 of
/// matrix l/8, and register i holds, in every lane, its two elements of matrix i (row lane/4,
/// columns 2·(lane%4) and + 1: the accumulator fragment's layout).
__device__ __forceinline__ void x4(unsigned addr, unsigned r0, unsigned r1, unsigned r2,
                                   unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

}  // namespace stmatrix
}  // namespace gemmtune
