// f32 2-D convolution on oneDNN (Debian's libdnnl, 2.6): forward (bias fused), backward data
// (a transposed convolution, and the input gradient) and backward weights. conv_ops.cpp calls
// these first and keeps its im2col + GEMM path for what they decline (f64, shapes oneDNN has
// no implementation for). 1-D convolutions come here as 2-D with H = 1.
#pragma once

#include <cstdint>

namespace kiln::ops::onednn {

// One convolution x [N, C, H, W] * w [O, C/G, KH, KW] -> y [N, O, OH, OW] with PyTorch's
// symmetric padding (the output sizes are PyTorch's, floor division). Every size is > 0.
struct ConvShape {
  int64_t N, C, H, W;  // input
  int64_t O, KH, KW;   // weight: O output channels, C/G input channels per group
  int64_t OH, OW;      // output
  int64_t G;           // groups
  int64_t sh, sw, ph, pw, dh, dw;
};

// All pointers are contiguous f32 in the plain layouts (nchw, oihw). Each returns false, having
// written nothing, where oneDNN cannot take the problem; the caller then runs its own kernel.
// y = conv(x, w) + bias (bias may be null).
bool convForward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y);
// dx = the input gradient of y = conv(x, w) given dy: the transposed convolution of dy with w.
bool convBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx);
// dw = the weight gradient of y = conv(x, w) given dy, summed over the batch.
bool convBackwardWeights(const ConvShape& s, const float* x, const float* dy, float* dw);

}  // namespace kiln::ops::onednn
