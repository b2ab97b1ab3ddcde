// LLVM CPU backend: 16-bit floats. Kernels load f16 / bf16 widened to f32, compute in f32 and
// round to nearest even at the store; the results must be bit for bit what the eager tensors'
// conversions (engine/tensor/half.h, c10::BFloat16 / c10::Half's) give, for every 16-bit value.
#include "engine/tensor/half.h"
#include "tests/codegen/jit_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

namespace kiln::codegen {
namespace {

using testing::jit;

// y = x * 3 + 1 over every 16-bit pattern: exercises ties, overflow to inf, subnormals and NaN.
std::string mulAdd(const char* dt) {
  return std::string("kernel k pointwise\n  in x: ") + dt + "[65536]\n  out y: " + dt +
         "[65536]\n  loop i0 in 0..65536\n  %0 = load x[i0] : f32\n  %1 = const 3.0 : f32\n  %2 = mul %0, %1\n"
         "  %3 = const 1.0 : f32\n  %4 = add %2, %3\n  store y[i0], %4\nend\n";
}

template <class ToFloat, class FromFloat>
void checkEveryValue(const char* dt, ToFloat toFloat, FromFloat fromFloat) {
  std::vector<uint16_t> x(65536), y(65536, 0);
  for (uint32_t h = 0; h < 65536; ++h) x[h] = static_cast<uint16_t>(h);
  auto k = jit(mulAdd(dt));
  k.run({x.data(), y.data()}, 0, 65536);
  int nans = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = toFloat(x[h]) * 3.0f + 1.0f;
    if (std::isnan(want)) {
      ++nans;
      ASSERT_TRUE(std::isnan(toFloat(y[h]))) << dt << " " << h;  // NaN stays NaN
      continue;
    }
    ASSERT_EQ(y[h], fromFloat(want)) << dt << " " << h << ": " << want;
  }
  EXPECT_GT(nans, 0);
}

TEST(LlvmHalf, BFloat16RoundsToNearestEvenLikeC10) { checkEveryValue("bf16", tensor::bf16ToFloat, tensor::floatToBf16); }

TEST(LlvmHalf, Float16RoundsToNearestEvenLikeC10) { checkEveryValue("f16", tensor::f16ToFloat, tensor::floatToF16); }

// Casts between f32, f64, integers and the 16-bit types go through f32, as c10 converts; a cast
// to bf16 and back inside a kernel rounds (the kernel builder's spelling of x.to(torch.bfloat16)).
TEST(LlvmHalf, CastsRoundThroughFloat) {
  const char* text = R"(kernel c pointwise
  in x: f32[6]
  out a: bf16[6]
  out b: f16[6]
  out c: f32[6]
  out d: i64[6]
  loop i0 in 0..6
  %0 = load x[i0]
  %1 = cast %0 : bf16
  %2 = cast %1 : f32
  %3 = const 1.0 : f32
  %4 = add %2, %3
  store a[i0], %0
  store b[i0], %0
  store c[i0], %4
  %5 = cast %1 : i64
  store d[i0], %5
end
)";
  std::vector<float> x = {1.00390625f, 1.01171875f, -2.25f, 3.4028235e38f, NAN, 300.7f};
  std::vector<uint16_t> a(6), b(6);
  std::vector<float> c(6);
  std::vector<int64_t> d(6);
  auto k = jit(text);
  k.run({x.data(), a.data(), b.data(), c.data(), d.data()}, 0, 6);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(a[i], tensor::floatToBf16(x[i])) << i;
    EXPECT_EQ(b[i], tensor::floatToF16(x[i])) << i;
    const float rounded = tensor::bf16ToFloat(tensor::floatToBf16(x[i]));
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(c[i]));
    } else {
      EXPECT_EQ(c[i], rounded + 1.0f) << i;
    }
  }
  EXPECT_EQ(a[4], 0x7FC0);        // c10's NaN
  EXPECT_EQ(c[0], 2.0f);          // 1 + 2^-8 rounds down to 1 (a tie, to even) before the add
  EXPECT_EQ(d[5], int64_t{300});  // 300.7 -> bf16 300 -> 300
}

// A row sum over bf16 accumulates in f32 or wider and rounds once: 256 values of 1 + 2^-7 sum
// to 258 exactly, where a bf16 accumulator would have stopped growing at 256.
TEST(LlvmHalf, SumOverBFloat16AccumulatesWide) {
  const char* text = R"(kernel s reduction
  in x: bf16[256]
  out y: bf16[]
  loop r0 in 0..256 reduce
  %0 = load x[r0] : f64
  %1 = reduce_sum %0
  %2 = cast %1 : f32
  store y[0], %2
end
)";
  std::vector<uint16_t> x(256, tensor::floatToBf16(1.0078125f));
  uint16_t y = 0;
  auto k = jit(text);
  k.run({x.data(), &y}, 0, 1);
  EXPECT_EQ(tensor::bf16ToFloat(y), 258.0f);
}

}  // namespace
}  // namespace kiln::codegen
