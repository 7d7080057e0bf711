// `gemmtune emit` of a vendor id: the equivalent cuBLAS call as a standalone C++ file, so a
// table's vendor pick can be built into a program as plainly as one of our kernels.
#pragma once

#include <string>

#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// The source of a function that runs `vendor` (cublas:default, or a cublaslt algorithm with its
/// whole configuration, checked by cublasLtMatmulAlgoCheck before it runs) on `p`, row-major as
/// the table's entry was timed. Throws UsageError for an invalid vendor id.
std::string emit_vendor_source(KernelConfig const& vendor, Problem const& p);

}  // namespace gemmtune
