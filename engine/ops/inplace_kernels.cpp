#include "engine/ops/inplace_kernels.h"

#include "engine/tensor/parallel.h"

#include <immintrin.h>

namespace kiln::ops {

namespace {

// self + alpha * other rounded twice (the product, then the sum), as Kiln's out-of-place add
// with alpha (a mul, then an add) and the compiled kernels compute it, so an eager step equals a
// compiled one bit for bit. (ATen's vectorized CPU add fuses the two into one multiply-add: a
// last-ulp difference from PyTorch eager, as Inductor's compiled step also has.) Eight lanes at a
// time by hand on AVX2, where the build's -O2 would not vectorize the loop; no FMA instruction,
// so the compiler cannot contract the two roundings into one either.
__attribute__((target("avx2"))) void axpyAvx2(float* s, const float* o, float a, int64_t b, int64_t e) {
  const __m256 va = _mm256_set1_ps(a);
  int64_t i = b;
  for (; i + 8 <= e; i += 8) _mm256_storeu_ps(s + i, _mm256_add_ps(_mm256_loadu_ps(s + i), _mm256_mul_ps(_mm256_loadu_ps(o + i), va)));
  const __m128 sa = _mm_set_ss(a);
  for (; i < e; ++i) _mm_store_ss(s + i, _mm_add_ss(_mm_load_ss(s + i), _mm_mul_ss(_mm_load_ss(o + i), sa)));
}
void axpyPlain(float* s, const float* o, float a, int64_t b, int64_t e) {
  const __m128 sa = _mm_set_ss(a);
  for (int64_t i = b; i < e; ++i) _mm_store_ss(s + i, _mm_add_ss(_mm_load_ss(s + i), _mm_mul_ss(_mm_load_ss(o + i), sa)));
}

bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

}  // namespace

bool addScaledInPlace(tensor::Tensor& self, const tensor::Tensor& other, double alpha) {
  using ir::DType;
  if (!self.isCpu() || !other.isCpu() || self.dtype() != DType::Float32 || other.dtype() != DType::Float32) return false;
  if (self.sizes() != other.sizes() || !self.isContiguous() || !other.isContiguous() || self.numel() == 0) return false;
  // Separate storage: an overlapping `other` (x.add_(x[1:]) and the like) must read the old
  // values, which the out-of-place path guarantees.
  if (!self.storage() || !other.storage() || self.storage() == other.storage()) return false;
  float* s = self.ptr<float>();
  const float* o = other.ptr<float>();
  const float a = static_cast<float>(alpha);  // ATen casts alpha to the tensor's type
  const bool avx2 = hasAvx2();
  tensor::parallelRanges(self.numel(), [&](int64_t b, int64_t e) { avx2 ? axpyAvx2(s, o, a, b, e) : axpyPlain(s, o, a, b, e); });
  return true;
}

}  // namespace kiln::ops
