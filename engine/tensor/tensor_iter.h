// forEachIndex: strided multi-operand iteration in row-major order.
#pragma once

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
  if (nd == 0) { f(off); return; }
  std::vector<int64_t> idx(nd, 0);
  const int64_t inner = sizes[nd - 1];
  std::array<int64_t, N> innerStride{};
  for (size_t k = 0; k < N; ++k) innerStride[k] = (*strides[k])[nd - 1];
  while (true) {
    std::array<int64_t, N> o = off;
    for (int64_t i = 0; i < inner; ++i) {
      f(o);
      for (size_t k = 0; k < N; ++k) o[k] += innerStride[k];
    }
    // advance the outer index
    int64_t d = static_cast<int64_t>(nd) - 2;
    for (; d >= 0; --d) {
      idx[d]++;
      for (size_t k = 0; k < N; ++k) off[k] += (*strides[k])[d];
      if (idx[d] < sizes[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= (*strides[k])[d] * sizes[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace kiln::tensor
