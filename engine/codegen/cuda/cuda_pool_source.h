// CUDA C++ for 2-D pooling on CUDA tensors (engine/runtime/cuda_pool_ops.cpp launches them):
// windows over [planes, H, W] that the kernel IR does not express (a window whose bounds depend
// on the output point, an argmax index), written once here like the index kernels and compiled
// by NVRTC. Each kernel mirrors Kiln's CPU kernel of the op (engine/ops/conv_ops.cpp,
// engine/autograd/backward_ops.cpp) point for point, in the same order, so the two give the same
// values, bit for bit where the CPU's order is kept:
//
//   kiln_max_pool2d_<t>(x, y, indices or null, total, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw)
//       one thread per output point: the first maximum of the window in row-major order (a later
//       equal value does not replace it), a NaN wins and ends the search; indices are h * W + w
//   kiln_avg_pool2d_<t>(x, y, total, H, W, OH, OW, kh, kw, sh, sw, ph, pw, count_include_pad,
//                       divisor_override or 0)
//       the window's sum in T, row-major, divided as the CPU does
//   kiln_avg_pool2d_backward_<t>(grad, out, total, <same geometry>)
//       one thread per INPUT point: the windows that hold it, in ascending output order, each
//       adding grad / divisor (in double, rounded to T after each add, as the CPU's loop)
//   kiln_adaptive_avg_pool2d_<t>(x, y, total, H, W, OH, OW)  and  ..._backward_<t>(grad, out, ...)
//       windows [floor(o * H / OH), ceil((o + 1) * H / OH)), forward and backward alike
//
// Every kernel runs a grid-stride loop over `total` points; tensors are contiguous; all scalar
// parameters are long long. <t> is f32 / f64 / i64 / i32 for max pooling and f32 / f64 for the
// others (PyTorch's CUDA average pooling takes floating types only; the CPU's also takes int64).
#pragma once

#include "engine/ir/types.h"

#include <string>

namespace kiln::codegen::cuda {

// The translation unit (plain text: needs no CUDA toolkit).
const std::string& cudaPoolKernelsSource();
// The entry-point suffix of `dtype` ("f32", "f64", "i64", "i32"), or "" where the kernel `kind`
// ("max", "avg", "adaptive", "backward") has no entry point for it.
std::string cudaPoolSuffix(ir::DType dtype, const std::string& kind);

}  // namespace kiln::codegen::cuda
