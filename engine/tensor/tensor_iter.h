// forEachIndex: strided multi-operand iteration in row-major order.
#pragma once

#include "engine/tensor/stop.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace kiln::tensor {

template <size_t N, typename F>
void forEachIndex(const std::vector<int64_t>& sizes, const std::array<const std::vector<int64_t>*, N>& strides, F&& f) {
  const size_t nd = sizes.size();
  std::array<int64_t, N> off{};
  for (auto s : sizes)
    if (s == 0) return;
  if (nd == 0) {
    f(off);
    return;
  }
  std::vector<int64_t> idx(nd, 0);
  const int64_t inner = sizes[nd - 1];
  std::array<int64_t, N> innerStride{};
  for (size_t k = 0; k < N; ++k) innerStride[k] = (*strides[k])[nd - 1];
  // Offsets only ever step to elements of the view: never one past a dim's end (a size-1 dim
  // may have any stride, and stepping past it could overflow int64). A stop request is checked
  // after every kStopChunk elements of a row and after every row (engine/tensor/stop.h).
  while (true) {
    std::array<int64_t, N> o = off;
    for (int64_t i = 0;;) {
      const int64_t blockEnd = std::min(inner, i + kStopChunk);
      for (;; ++i) {
        f(o);
        if (i + 1 == blockEnd) break;
        for (size_t k = 0; k < N; ++k) o[k] += innerStride[k];
      }
      if (++i == inner) break;
      for (size_t k = 0; k < N; ++k) o[k] += innerStride[k];
      checkStop();
    }
    checkStop();
    // advance the outer index
    int64_t d = static_cast<int64_t>(nd) - 2;
    for (; d >= 0; --d) {
      if (idx[d] + 1 < sizes[d]) {
        idx[d]++;
        for (size_t k = 0; k < N; ++k) off[k] += (*strides[k])[d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= (*strides[k])[d] * (sizes[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace kiln::tensor
