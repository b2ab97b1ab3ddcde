// LLVM CPU backend: pointwise kernels, indexing, casts and the range ABI, against plain C++.
#include "tests/codegen/jit_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::codegen {
namespace {

using testing::jit;
using testing::ramp;

constexpr const char* kMulAddRelu = R"(kernel kernel_mul pointwise
  in buf0: f32[4096]
  in buf1: f32[4096]
  in buf2: f32[4096]
  out buf3: f32[4096]
  loop i0 in 0..4096
  %0 = load buf0[i0]
  %1 = load buf1[i0]
  %2 = mul %0, %1
  %3 = load buf2[i0]
  %4 = add %2, %3
  %5 = const 0.0 : f32
  %6 = max %4, %5
  store buf3[i0], %6
end
)";

TEST(LlvmPointwise, MulAddRelu) {
  auto a = ramp(4096, -2, 2), b = ramp(4096, -3, 1), c = ramp(4096, -1, 1);
  std::reverse(b.begin(), b.end());
  std::vector<float> out(4096, -7.f);
  auto k = jit(kMulAddRelu);
  k.run({a.data(), b.data(), c.data(), out.data()}, 0, 4096);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], std::max(a[i] * b[i] + c[i], 0.f)) << i;
}

TEST(LlvmPointwise, SplitRangeMatchesOneCall) {
  auto a = ramp(4096, -2, 2), b = ramp(4096, 0, 1), c = ramp(4096, -1, 0);
  std::vector<float> whole(4096), split(4096, 99.f);
  auto k = jit(kMulAddRelu);
  k.run({a.data(), b.data(), c.data(), whole.data()}, 0, 4096);
  k.run({a.data(), b.data(), c.data(), split.data()}, 0, 1001);
  k.run({a.data(), b.data(), c.data(), split.data()}, 1001, 4096);
  EXPECT_EQ(whole, split);
  // A range reaching outside the loop is clamped; an empty range writes nothing.
  std::vector<float> clamped(4096, 5.f);
  k.run({a.data(), b.data(), c.data(), clamped.data()}, 4000, 4000);
  EXPECT_EQ(clamped[4000], 5.f);
  k.run({a.data(), b.data(), c.data(), clamped.data()}, -10, 1 << 20);
  EXPECT_EQ(clamped, whole);
}

TEST(LlvmPointwise, BroadcastAdd) {
  auto k = jit(R"(kernel bcast pointwise
  in x: f32[64, 100]
  in bias: f32[100]
  out y: f32[64, 100]
  loop i0 in 0..64
  loop i1 in 0..100
  %0 = load x[i0*100 + i1]
  %1 = load bias[i0*0 + i1]
  %2 = add %0, %1
  store y[i0*100 + i1], %2
end
)");
  auto x = ramp(6400, -1, 1), bias = ramp(100, 5, 6);
  std::vector<float> y(6400);
  k.run({x.data(), bias.data(), y.data()}, 0, 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 100; ++j) ASSERT_EQ(y[i * 100 + j], x[i * 100 + j] + bias[j]);
}

TEST(LlvmPointwise, StridedTransposeRead) {
  // y[i, j] = x[j, i] + x[j, i + 1] for x: [40, 33], reading a strided view with an offset.
  auto k = jit(R"(kernel transpose pointwise
  in x: f64[40, 33]
  out y: f64[32, 40]
  loop i0 in 0..32
  loop i1 in 0..40
  %0 = load x[i0 + i1*33]
  %1 = load x[i0 + i1*33 + 1]
  %2 = add %0, %1
  store y[i0*40 + i1], %2
end
)");
  std::vector<double> x(40 * 33), y(32 * 40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) * 0.5;
  k.run({x.data(), y.data()}, 0, 32);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 40; ++j) ASSERT_EQ(y[i * 40 + j], x[j * 33 + i] + x[j * 33 + i + 1]);
}

TEST(LlvmPointwise, CastsFollowTorch) {
  auto k = jit(R"(kernel casts pointwise
  in x: f32[8]
  out to_i32: i32[8]
  out to_bool: b8[8]
  out back: f32[8]
  out to_i64: i64[8]
  out to_f64: f64[8]
  loop i0 in 0..8
  %0 = load x[i0]
  %1 = cast %0 : i32
  store to_i32[i0], %1
  %2 = cast %0 : b8
  store to_bool[i0], %2
  %3 = cast %2 : f32
  store back[i0], %3
  %4 = cast %1 : i64
  %5 = const -3000000000 : i64
  %6 = add %4, %5
  store to_i64[i0], %6
  %7 = cast %6 : f64
  store to_f64[i0], %7
end
)");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {-2.7f, 2.7f, 0.f, -0.f, nan, 1e-30f, -1.f, 123456.9f};
  std::vector<int32_t> i32(8);
  std::vector<uint8_t> b(8, 7);
  std::vector<float> back(8);
  std::vector<int64_t> i64(8);
  std::vector<double> f64(8);
  k.run({x.data(), i32.data(), b.data(), back.data(), i64.data(), f64.data()}, 0, 8);
  for (int i = 0; i < 8; ++i) {
    bool truth = x[i] != 0.f;  // NaN is true, -0.0 is false
    EXPECT_EQ(b[i], truth ? 1 : 0) << i;
    EXPECT_EQ(back[i], truth ? 1.f : 0.f) << i;
    if (std::isnan(x[i])) continue;  // float -> int of NaN is unspecified in torch too
    EXPECT_EQ(i32[i], static_cast<int32_t>(x[i])) << i;
    EXPECT_EQ(i64[i], static_cast<int64_t>(i32[i]) - 3000000000ll) << i;
    EXPECT_EQ(f64[i], static_cast<double>(i64[i])) << i;
  }
}

TEST(LlvmPointwise, WhereAndComparisons) {
  auto k = jit(R"(kernel where_k pointwise
  in x: f32[1000]
  in y: f32[1000]
  out z: f32[1000]
  out m: b8[1000]
  loop i0 in 0..1000
  %0 = load x[i0]
  %1 = load y[i0]
  %2 = const 0.0 : f32
  %3 = gt %0, %2
  %4 = const 2.0 : f32
  %5 = mul %1, %4
  %6 = where %3, %0, %5
  store z[i0], %6
  %7 = le %0, %1
  %8 = ne %0, %0
  %9 = or %7, %8
  store m[i0], %9
end
)");
  auto x = ramp(1000, -1, 1), y = ramp(1000, -5, 5);
  std::reverse(y.begin(), y.end());
  x[3] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> z(1000);
  std::vector<uint8_t> m(1000);
  k.run({x.data(), y.data(), z.data(), m.data()}, 0, 1000);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(z[i], x[i] > 0 ? x[i] : y[i] * 2) << i;
    EXPECT_EQ(m[i], (x[i] <= y[i] || x[i] != x[i]) ? 1 : 0) << i;
  }
}

TEST(LlvmPointwise, MaxMinPropagateNan) {
  auto k = jit(R"(kernel maxmin pointwise
  in x: f32[4]
  in y: f32[4]
  out mx: f32[4]
  out mn: f32[4]
  loop i0 in 0..4
  %0 = load x[i0]
  %1 = load y[i0]
  %2 = max %0, %1
  store mx[i0], %2
  %3 = min %0, %1
  store mn[i0], %3
end
)");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {1, nan, 3, -1}, y = {2, 0, nan, -5}, mx(4), mn(4);
  k.run({x.data(), y.data(), mx.data(), mn.data()}, 0, 4);
  EXPECT_EQ(mx[0], 2.f);
  EXPECT_EQ(mn[0], 1.f);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mn[1]));
  EXPECT_TRUE(std::isnan(mx[2]) && std::isnan(mn[2]));
  EXPECT_EQ(mx[3], -1.f);
  EXPECT_EQ(mn[3], -5.f);
}

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

TEST(LlvmPointwise, IntegerDivModPowFollowPython) {
  auto k = jit(R"(kernel intops pointwise
  in a: i64[64]
  in b: i64[64]
  out q: i64[64]
  out r: i64[64]
  out p: i32[64]
  loop i0 in 0..64
  %0 = load a[i0]
  %1 = load b[i0]
  %2 = div %0, %1
  store q[i0], %2
  %3 = mod %0, %1
  store r[i0], %3
  %4 = cast %0 : i32
  %5 = const 3 : i32
  %6 = mod %1, %5
  %7 = pow %4, %6
  store p[i0], %7
end
)");
  std::vector<int64_t> a(64), b(64), q(64), r(64);
  std::vector<int32_t> p(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = (i * 37) % 29 - 14;
    b[i] = (i * 11) % 9 - 4;  // includes 0 and negatives
  }
  a[5] = std::numeric_limits<int64_t>::min();
  b[5] = -1;
  k.run({a.data(), b.data(), q.data(), r.data(), p.data()}, 0, 64);
  for (int i = 0; i < 64; ++i) {
    if (i != 5) { EXPECT_EQ(q[i], floorDiv(a[i], b[i])) << a[i] << " // " << b[i]; }
    EXPECT_EQ(r[i], i == 5 ? 0 : floorMod(a[i], b[i])) << a[i] << " % " << b[i];
    int32_t base = static_cast<int32_t>(a[i]), e = static_cast<int32_t>(floorMod(b[i], 3));
    int32_t want = 1;
    for (int j = 0; j < e; ++j) want *= base;
    EXPECT_EQ(p[i], want) << base << " ** " << e;
  }
  EXPECT_EQ(q[5], std::numeric_limits<int64_t>::min());  // wraps, as in torch; no trap
}

TEST(LlvmPointwise, FloatRemainderFollowsTorch) {
  auto k = jit(R"(kernel fmod pointwise
  in a: f64[6]
  in b: f64[6]
  out r: f64[6]
  loop i0 in 0..6
  %0 = load a[i0]
  %1 = load b[i0]
  %2 = mod %0, %1
  store r[i0], %2
end
)");
  std::vector<double> a = {5.5, -5.5, 5.5, -5.5, 6.0, 1.0}, b = {2, 2, -2, -2, 3, 0.3}, r(6);
  k.run({a.data(), b.data(), r.data()}, 0, 6);
  const double want[] = {1.5, 0.5, -0.5, -1.5, 0.0, std::fmod(1.0, 0.3)};
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(r[i], want[i]) << i;
}

TEST(LlvmPointwise, BoolLogicAndStoreConversion) {
  auto k = jit(R"(kernel logic pointwise
  in a: b8[4]
  in b: b8[4]
  in n: i64[4]
  out x: b8[4]
  out y: f32[4]
  out z: i32[4]
  loop i0 in 0..4
  %0 = load a[i0]
  %1 = load b[i0]
  %2 = not %0
  %3 = and %2, %1
  %4 = eq %0, %1
  %5 = or %3, %4
  store x[i0], %5
  %6 = load n[i0]
  %7 = where %0, %6, %6
  %8 = gt %0, %1
  %9 = cast %8 : i64
  %10 = add %7, %9
  store y[i0], %10
  %11 = not %6
  store z[i0], %11
end
)");
  uint8_t a[] = {0, 0, 1, 1}, b[] = {0, 1, 0, 1}, x[4];
  int64_t n[] = {1, -2, (int64_t(1) << 40) + 1, 7};
  float y[4];
  int32_t z[4];
  k.run({a, b, n, x, y, z}, 0, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(x[i], ((!a[i] && b[i]) || a[i] == b[i]) ? 1 : 0) << i;
    EXPECT_EQ(y[i], static_cast<float>(n[i] + (a[i] > b[i] ? 1 : 0))) << i;  // i64 -> f32
    EXPECT_EQ(z[i], static_cast<int32_t>(~n[i])) << i;                       // i64 -> i32 wraps
  }
  // The store's own dtype field plays no part: only the buffer's dtype decides the conversion.
  kir::Kernel kern = kir::parseKernel(R"(kernel st pointwise
  in n: i64[2]
  out y: i64[2]
  loop i0 in 0..2
  %0 = load n[i0]
  store y[i0], %0 : f32
end
)");
  auto k2 = jit(kir::print(kern));
  int64_t big[] = {(int64_t(1) << 53) + 1, -3}, out[2];
  k2.run({big, out}, 0, 2);
  EXPECT_EQ(out[0], big[0]);
  EXPECT_EQ(out[1], -3);
}

TEST(LlvmPointwise, ScalarKernelIgnoresRange) {
  auto k = jit(R"(kernel scalar pointwise
  in x: f32[]
  out y: f32[]
  %0 = load x[0]
  %1 = const 0.5 : f32
  %2 = pow %0, %1
  store y[0], %2
end
)");
  float x = 16.f, y = 0.f;
  k.run({&x, &y}, 0, 0);
  EXPECT_EQ(y, 4.f);
}

TEST(LlvmPointwise, SeveralKernelsInOneModule) {
  std::string text = std::string(kMulAddRelu) + "\n" + R"(kernel kernel_neg pointwise
  in x: i32[16]
  out y: i32[16]
  loop i0 in 0..16
  %0 = load x[i0]
  %1 = neg %0
  %2 = abs %1
  store y[i0], %1
  store y[i0], %2
end
)";
  auto k = jit(text);
  ASSERT_EQ(k.module->kernels.size(), 2u);
  EXPECT_EQ(k.module->kernels[1].name, "kernel_neg");
  std::vector<int32_t> x(16), y(16);
  for (int i = 0; i < 16; ++i) x[i] = i - 8;
  int32_t* bufs[] = {x.data(), y.data()};
  k.module->kernels[1].fn(reinterpret_cast<void* const*>(bufs), 0, 16);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], std::abs(x[i]));
}

TEST(LlvmPointwise, ErrorsAreRuntimeErrors) {
  auto compiler = makeLlvmCpuCompiler();
  EXPECT_EQ(compiler->name(), "llvm-cpu");
  // 16-bit integers have no generated kernels (fusion keeps them eager); 16-bit floats do, but
  // only as storage: arithmetic in them is an error (kernels compute them in f32).
  auto i16 = kir::parseKernels(R"(kernel h pointwise
  in x: i16[4]
  out y: i16[4]
  loop i0 in 0..4
  %0 = load x[i0]
  store y[i0], %0
end
)");
  try {
    compiler->compile(i16, "m");
    ADD_FAILURE() << "i16 compiled";
  } catch (const std::runtime_error& e) { EXPECT_NE(std::string(e.what()).find("i16 is not supported"), std::string::npos) << e.what(); }
  auto halfAdd = kir::parseKernels(R"(kernel h pointwise
  in x: f16[4]
  out y: f16[4]
  loop i0 in 0..4
  %0 = load x[i0]
  %1 = add %0, %0
  store y[i0], %1
end
)");
  try {
    compiler->compile(halfAdd, "m");
    ADD_FAILURE() << "f16 arithmetic compiled";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'add' is not supported on f16"), std::string::npos) << e.what();
  }
  auto intExp = kir::parseKernels(R"(kernel e pointwise
  in x: i64[4]
  out y: i64[4]
  loop i0 in 0..4
  %0 = load x[i0]
  %1 = exp %0
  store y[i0], %1
end
)");
  try {
    compiler->compile(intExp, "m");
    ADD_FAILURE() << "exp on i64 compiled";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'exp' is not supported on i64"), std::string::npos) << e.what();
  }
  auto twice = kir::parseKernels(std::string(kMulAddRelu) + kMulAddRelu);
  EXPECT_THROW(compiler->compile(twice, "m"), std::runtime_error);
  kir::Kernel bad = kir::parseKernel(kMulAddRelu);
  bad.body[2].operands = {42, 1};
  EXPECT_THROW(compiler->compile({bad}, "m"), std::runtime_error);
}

}  // namespace
}  // namespace kiln::codegen
