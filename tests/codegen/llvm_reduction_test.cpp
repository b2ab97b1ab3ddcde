// LLVM CPU backend: reductions (sum/max/min), placement around the reduction nest, and ranges.
#include "tests/codegen/jit_test_util.h"

#include "engine/tensor/stop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

namespace kiln::codegen {
namespace {

using testing::jit;
using testing::ramp;

constexpr const char* kRowSumMax = R"(kernel row_sum_max reduction
  in x: f32[64, 1000]
  out s: f32[64]
  out m: f32[64]
  out mn: f32[64]
  loop i0 in 0..64
  loop r0 in 0..1000 reduce
  %0 = load x[i0*1000 + r0]
  %1 = reduce_sum %0
  store s[i0], %1
  %2 = reduce_max %0
  store m[i0], %2
  %3 = reduce_min %0
  store mn[i0], %3
end
)";

TEST(LlvmReduction, RowSumMaxMin) {
  auto x = ramp(64 * 1000, -1, 1);
  x[7 * 1000 + 500] = std::numeric_limits<float>::quiet_NaN();  // row 7 max/min are NaN
  std::vector<float> s(64), m(64), mn(64);
  auto k = jit(kRowSumMax);
  k.run({x.data(), s.data(), m.data(), mn.data()}, 0, 64);
  for (int i = 0; i < 64; ++i) {
    double sum = 0;
    float mx = -INFINITY, mi = INFINITY;
    for (int r = 0; r < 1000; ++r) {
      float v = x[i * 1000 + r];
      sum += v;
      mx = std::max(mx, v);
      mi = std::min(mi, v);
    }
    if (i == 7) {
      EXPECT_TRUE(std::isnan(s[i]) && std::isnan(m[i]) && std::isnan(mn[i]));
      continue;
    }
    // Partial sums per vector lane reorder the float additions.
    EXPECT_NEAR(s[i], sum, 1e-4 * 1000) << i;
    EXPECT_EQ(m[i], mx) << i;
    EXPECT_EQ(mn[i], mi) << i;
  }
}

TEST(LlvmReduction, SplitRangeMatchesOneCall) {
  auto x = ramp(64 * 1000, -1, 1);
  std::vector<float> s1(64), m1(64), n1(64), s2(64), m2(64), n2(64);
  auto k = jit(kRowSumMax);
  k.run({x.data(), s1.data(), m1.data(), n1.data()}, 0, 64);
  k.run({x.data(), s2.data(), m2.data(), n2.data()}, 0, 17);
  k.run({x.data(), s2.data(), m2.data(), n2.data()}, 17, 64);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(m1, m2);
  EXPECT_EQ(n1, n2);
}

TEST(LlvmReduction, PreInnerAndPostPhases) {
  // log(sum(exp(x * scale[i]))) + bias[i], plus y = x * scale written inside the nest.
  auto k = jit(R"(kernel lse reduction
  in x: f64[8, 300]
  in scale: f64[8]
  in bias: f64[8]
  out y: f64[8, 300]
  out out: f64[8]
  loop i0 in 0..8
  loop r0 in 0..300 reduce
  %0 = load scale[i0]
  %1 = load x[i0*300 + r0]
  %2 = mul %1, %0
  store y[i0*300 + r0], %2
  %3 = exp %2
  %4 = reduce_sum %3
  %5 = log %4
  %6 = load bias[i0]
  %7 = add %5, %6
  store out[i0], %7
end
)");
  std::vector<double> x(8 * 300), scale(8), bias(8), y(8 * 300), out(8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1 * i);
  for (int i = 0; i < 8; ++i) scale[i] = 0.5 + i, bias[i] = -i;
  k.run({x.data(), scale.data(), bias.data(), y.data(), out.data()}, 0, 8);
  for (int i = 0; i < 8; ++i) {
    double sum = 0;
    for (int r = 0; r < 300; ++r) {
      ASSERT_EQ(y[i * 300 + r], x[i * 300 + r] * scale[i]);
      sum += std::exp(x[i * 300 + r] * scale[i]);
    }
    EXPECT_NEAR(out[i], std::log(sum) + bias[i], 1e-12 * std::fabs(std::log(sum) + bias[i]));
  }
}

// Chained reductions in one kernel (kir::place): a row softmax and a layer norm's two-pass
// variance, each value recomputed in the nest that needs it.
TEST(LlvmReduction, SoftmaxAndVarianceNests) {
  auto k = jit(R"(kernel softmax_var reduction
  in x: f32[16, 777]
  out y: f32[16, 777]
  out var: f32[16]
  loop i0 in 0..16
  loop r0 in 0..777 reduce
  %0 = load x[i0*777 + r0]
  %1 = reduce_max %0
  %2 = sub %0, %1
  %3 = exp %2
  %4 = reduce_sum %3
  %5 = div %3, %4
  store y[i0*777 + r0], %5
  %6 = cast %0 : f64
  %7 = reduce_sum %6
  %8 = const 777.0 : f64
  %9 = div %7, %8
  %10 = sub %6, %9
  %11 = mul %10, %10
  %12 = reduce_sum %11
  %13 = div %12, %8
  store var[i0], %13
end
)");
  auto x = ramp(16 * 777, -30, 40);
  std::vector<float> y(16 * 777), var(16);
  k.run({x.data(), y.data(), var.data()}, 0, 16);
  for (int i = 0; i < 16; ++i) {
    double mx = -INFINITY, sum = 0, mean = 0, ss = 0;
    for (int r = 0; r < 777; ++r) mx = std::max<double>(mx, x[i * 777 + r]);
    for (int r = 0; r < 777; ++r) sum += std::exp(static_cast<float>(x[i * 777 + r] - mx)), mean += x[i * 777 + r];
    mean /= 777;
    for (int r = 0; r < 777; ++r) ss += (x[i * 777 + r] - mean) * (x[i * 777 + r] - mean);
    for (int r = 0; r < 777; ++r)
      ASSERT_NEAR(y[i * 777 + r], std::exp(static_cast<float>(x[i * 777 + r] - mx)) / sum, 1e-6) << i << " " << r;
    EXPECT_NEAR(var[i], ss / 777, 1e-6 * ss / 777) << i;
  }
}

TEST(LlvmReduction, ColumnSumOfIntegers) {
  // Reduction over the strided dimension, accumulated in i64.
  auto k = jit(R"(kernel colsum reduction
  in x: i32[500, 37]
  out s: i64[37]
  loop i0 in 0..37
  loop r0 in 0..500 reduce
  %0 = load x[r0*37 + i0]
  %1 = cast %0 : i64
  %2 = reduce_sum %1
  store s[i0], %2
end
)");
  std::vector<int32_t> x(500 * 37);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i * 7919 % 100003) - 50000;
  std::vector<int64_t> s(37);
  k.run({x.data(), s.data()}, 0, 37);
  for (int j = 0; j < 37; ++j) {
    int64_t want = 0;
    for (int r = 0; r < 500; ++r) want += x[r * 37 + j];
    EXPECT_EQ(s[j], want) << j;
  }
}

TEST(LlvmReduction, FullReductionIgnoresRange) {
  // No parallel loop: the kernel runs its whole nest once, whatever range it is given.
  auto k = jit(R"(kernel total reduction
  in x: f32[64, 64]
  out s: f32[]
  loop r0 in 0..64 reduce
  loop r1 in 0..64 reduce
  %0 = load x[r0*64 + r1]
  %1 = reduce_max %0
  %2 = const 1.0 : f32
  %3 = reduce_sum %2
  %4 = add %1, %3
  store s[0], %4
end
)");
  auto x = ramp(64 * 64, -3, 2);
  x[1234] = 9.5f;
  float s = 0;
  k.run({x.data(), &s}, 0, 1);
  EXPECT_EQ(s, 9.5f + 4096.f);
  s = 0;
  k.run({x.data(), &s}, 5, 9);
  EXPECT_EQ(s, 9.5f + 4096.f);
}

TEST(LlvmReduction, EmptyReductionGivesIdentity) {
  auto k = jit(R"(kernel empty reduction
  in x: f32[4, 0]
  out s: f32[4]
  out m: f32[4]
  loop i0 in 0..4
  loop r0 in 0..0 reduce
  %0 = load x[i0*0 + r0]
  %1 = reduce_sum %0
  store s[i0], %1
  %2 = reduce_max %0
  store m[i0], %2
end
)");
  std::vector<float> s(4, 7.f), m(4, 7.f);
  float dummy = 0;
  k.run({&dummy, s.data(), m.data()}, 0, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s[i], 0.f);
    EXPECT_EQ(m[i], -INFINITY);
  }
}

// A kernel whose outer loop is a reduction runs as one call; its reduction nest polls the stop
// flag (engine/tensor/stop.h) between chunks of ~2^16 elements and returns early when it is set,
// so Ctrl-C or a time limit ends it (the runtime then throws). Without a request the chunked loop
// computes the same sums as before, partial last chunk included.
TEST(LlvmReduction, LongReductionEndsEarlyAtAStopRequest) {
  // 2^20 x 2^20 reduced to one number: 2^40 additions, minutes of work.
  auto k = jit(R"(kernel huge_sum reduction
  in x: f32[1048576]
  out y: f32[]
  loop r0 in 0..1048576 reduce
  loop r1 in 0..1048576 reduce
  %0 = load x[r1]
  %1 = reduce_sum %0
  store y[0], %1
end
)");
  EXPECT_NE(k.kernel().llvmIr.find("kiln_stop_flag"), std::string::npos) << k.kernel().llvmIr;
  std::vector<float> x(1 << 20, 1.0f), y(1, -1.0f);
  tensor::setStopRequested(true);
  auto t0 = std::chrono::steady_clock::now();
  k.run({x.data(), y.data()}, 0, 1);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  tensor::setStopRequested(false);
  EXPECT_LT(s, 1.0);
  EXPECT_EQ(y[0], -1.0f);  // returned before its store
}

TEST(LlvmReduction, ChunkedReductionsComputeEverything) {
  // Outer reduction of 1000 rows of 300: chunks of 218 rows, the last one partial.
  auto k = jit(R"(kernel rows_sum reduction
  in x: f64[1000, 300]
  out y: f64[]
  loop r0 in 0..1000 reduce
  loop r1 in 0..300 reduce
  %0 = load x[r0*300 + r1]
  %1 = reduce_sum %0
  store y[0], %1
end
)");
  std::vector<double> x(300000), y(1);
  double want = 0;
  for (size_t i = 0; i < x.size(); ++i) want += (x[i] = static_cast<double>(i % 7));
  k.run({x.data(), y.data()}, 0, 1);
  EXPECT_EQ(y[0], want);
  // One loop of 200,000: chunks of 65,536 (three full, one partial).
  auto k2 = jit(R"(kernel flat_max reduction
  in x: i64[200000]
  out y: i64[]
  loop r0 in 0..200000 reduce
  %0 = load x[r0]
  %1 = reduce_max %0
  store y[0], %1
end
)");
  for (int64_t last : {int64_t{0}, int64_t{65535}, int64_t{65536}, int64_t{199999}}) {
    std::vector<int64_t> v(200000, 1), out(1);
    v[static_cast<size_t>(last)] = 42;
    k2.run({v.data(), out.data()}, 0, 1);
    EXPECT_EQ(out[0], 42) << last;
  }
  // A small parallel kernel has no check: nothing to stop inside one of its points.
  auto k3 = jit(kRowSumMax);
  EXPECT_EQ(k3.kernel().llvmIr.find("kiln_stop_flag"), std::string::npos);
}

// A long LLVM compile (a module of many kernels) stops at a stop request: the optimizer skips its
// remaining passes and the compiler throws before code generation, instead of running to the end.
TEST(LlvmReduction, LongCompileStopsAtAStopRequest) {
  // 1,500 distinct kernels (each row of its own length): identical ones would be compiled once.
  std::string text;
  for (int i = 0; i < 1500; ++i) {
    const std::string n = std::to_string(777 + i);
    text += "kernel softmax" + std::to_string(i) + " reduction\n  in x: f32[16, " + n + "]\n  out y: f32[16, " + n +
            "]\n  loop i0 in 0..16\n  loop r0 in 0.." + n + " reduce\n  %0 = load x[i0*" + n +
            " + r0]\n  %1 = reduce_max %0\n  %2 = sub %0, %1\n  %3 = exp %2\n  %4 = reduce_sum %3\n  %5 = div %3, %4\n  store y[i0*" + n +
            " + r0], %5\nend\n";
  }
  std::vector<kir::Kernel> kernels = kir::parseKernels(text);
  std::unique_ptr<KernelCompiler> compiler = makeLlvmCpuCompiler();
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    tensor::setStopRequested(true);
  });
  auto t0 = std::chrono::steady_clock::now();
  std::string error;
  try {
    compiler->compile(kernels, "many");
  } catch (const std::runtime_error& e) { error = e.what(); }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  tensor::setStopRequested(false);
  EXPECT_NE(error.find("stopped"), std::string::npos) << error;
  EXPECT_LT(s, 5.0);
}

}  // namespace
}  // namespace kiln::codegen
