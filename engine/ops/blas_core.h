// OpenBLAS chooses its kernels at load from the CPU's family and model. A model it does not know
// gets its generic kernels: on the GPU machine's Xeon (family 6, model 207) Debian's OpenBLAS
// 0.3.21 picks "Prescott" (SSE3), and a 512x1024 @ 1024x1024 product takes 61 ms at one thread;
// with OPENBLAS_CORETYPE=SkylakeX it takes 7.0 ms (PyTorch's, on MKL: 6.9 ms; docs/perf.md).
// The kiln executable asks here before anything runs and, where OpenBLAS fell back to a generic
// core on a CPU with AVX2 or AVX-512, starts itself again with OPENBLAS_CORETYPE naming the
// kernels the CPU can run (app/cli/main.cpp). A value the user set is never changed.
#pragma once

#include <string>

namespace kiln::ops {

// The core OpenBLAS chose in this process ("" when the BLAS is not OpenBLAS).
std::string openBlasCore();

// What OPENBLAS_CORETYPE should name, given the core OpenBLAS chose and the CPU's features: ""
// (keep it) unless `core` is one of OpenBLAS's generic or pre-AVX2 cores while the CPU has
// AVX-512 (F, BW, DQ, VL: "SkylakeX") or AVX2 with FMA ("Haswell").
std::string betterBlasCore(const std::string& core, bool avx2Fma, bool avx512);

// betterBlasCore() for this process and CPU.
std::string betterBlasCoreHere();

}  // namespace kiln::ops
