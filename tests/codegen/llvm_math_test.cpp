// LLVM CPU backend: unary math (libm / libmvec) in f32 and f64 against <cmath>.
#include "tests/codegen/jit_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace kiln::codegen {
namespace {

using testing::jit;
using testing::ramp;

struct MathCase {
  const char* op;
  float lo, hi;  // input range
  std::function<double(double)> ref;
};

const MathCase kCases[] = {
    {"exp", -20, 20, [](double x) { return std::exp(x); }},
    {"log", 1e-3f, 1e3f, [](double x) { return std::log(x); }},
    {"sin", -10, 10, [](double x) { return std::sin(x); }},
    {"cos", -10, 10, [](double x) { return std::cos(x); }},
    {"tanh", -6, 6, [](double x) { return std::tanh(x); }},
    {"erf", -4, 4, [](double x) { return std::erf(x); }},
    {"sigmoid", -30, 30, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
    {"sqrt", 0, 100, [](double x) { return std::sqrt(x); }},
    {"rsqrt", 0.01f, 100, [](double x) { return 1.0 / std::sqrt(x); }},
    {"recip", 0.5f, 100, [](double x) { return 1.0 / x; }},
    {"floor", -50, 50, [](double x) { return std::floor(x); }},
    {"ceil", -50, 50, [](double x) { return std::ceil(x); }},
    {"abs", -5, 5, [](double x) { return std::fabs(x); }},
    {"neg", -5, 5, [](double x) { return -x; }},
};

std::string unaryKernel(const std::string& op, const char* dtype, int n) {
  std::string sz = std::to_string(n);
  return "kernel k_" + op + " pointwise\n  in x: " + dtype + "[" + sz + "]\n  out y: " + dtype + "[" + sz + "]\n  loop i0 in 0.." + sz +
         "\n  %0 = load x[i0]\n  %1 = " + op + " %0\n  store y[i0], %1\nend\n";
}

class LlvmMath : public ::testing::TestWithParam<MathCase> {};

TEST_P(LlvmMath, Float32) {
  const MathCase& c = GetParam();
  const int n = 4099;  // not a multiple of the vector width: exercises the scalar epilogue
  auto k = jit(unaryKernel(c.op, "f32", n));
  auto x = ramp(n, c.lo, c.hi);
  std::vector<float> y(n);
  k.run({x.data(), y.data()}, 0, n);
  for (int i = 0; i < n; ++i) {
    double want = c.ref(x[i]);
    // libmvec promises 4 ulp; allow a little more relative error plus a tiny absolute slack.
    ASSERT_NEAR(y[i], want, 4e-6 * std::fabs(want) + 1e-6) << c.op << "(" << x[i] << ")";
  }
}

TEST_P(LlvmMath, Float64) {
  const MathCase& c = GetParam();
  const int n = 1027;
  auto k = jit(unaryKernel(c.op, "f64", n));
  auto xf = ramp(n, c.lo, c.hi);
  std::vector<double> x(xf.begin(), xf.end()), y(n);
  k.run({x.data(), y.data()}, 0, n);
  for (int i = 0; i < n; ++i) {
    double want = c.ref(x[i]);
    ASSERT_NEAR(y[i], want, 1e-13 * std::fabs(want) + 1e-15) << c.op << "(" << x[i] << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, LlvmMath, ::testing::ValuesIn(kCases), [](const auto& info) { return std::string(info.param.op); });

TEST(LlvmMathPow, FloatPow) {
  auto k = jit(R"(kernel k_pow pointwise
  in x: f32[512]
  in y: f32[512]
  out z: f32[512]
  loop i0 in 0..512
  %0 = load x[i0]
  %1 = load y[i0]
  %2 = pow %0, %1
  store z[i0], %2
end
)");
  auto x = ramp(512, 0.1f, 4), y = ramp(512, -3, 3), z = std::vector<float>(512);
  std::reverse(y.begin(), y.end());
  k.run({x.data(), y.data(), z.data()}, 0, 512);
  for (int i = 0; i < 512; ++i) {
    double want = std::pow(double(x[i]), double(y[i]));
    ASSERT_NEAR(z[i], want, 4e-6 * want) << x[i] << " ** " << y[i];
  }
}

}  // namespace
}  // namespace kiln::codegen
