// Helpers for the linalg/conv op tests: deterministic tensors, element checks, op calls.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/torch/torch_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kiln::linalg_test {

using ops::Val;
using tensor::Shape;
using tensor::Tensor;

// ((arange(n) % mod - off) * scale).reshape(shape): the inputs the torch references used.
inline Tensor seq(const Shape& shape, int64_t mod = 7, double scale = 0.5, int64_t off = 3, ir::DType dt = ir::DType::Float32) {
  Tensor t = Tensor::empty(shape, dt);
  for (int64_t i = 0; i < t.numel(); ++i) t.storeAt(i, double(i % mod - off) * scale);
  return t;
}

inline Tensor fromValues(const Shape& shape, const std::vector<double>& v, ir::DType dt = ir::DType::Float32) {
  Tensor t = Tensor::empty(shape, dt);
  for (int64_t i = 0; i < t.numel(); ++i) t.storeAt(i, v.at(static_cast<size_t>(i)));
  return t;
}

inline void expectValues(const Tensor& t, const Shape& shape, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(t.sizes(), shape);
  std::vector<double> got = t.toDoubles();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    else EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "at " << i;
  }
}

inline void expectClose(const Tensor& got, const Tensor& want, double tol = 1e-4) {
  ASSERT_EQ(got.sizes(), want.sizes());
  std::vector<double> g = got.toDoubles(), w = want.toDoubles();
  double scale = 1.0;
  for (double x : w) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], tol * scale) << "at " << i;
}

inline Tensor run(const std::string& op, const std::vector<Val>& args) {
  ops::EagerDispatcher d;
  Val r = d.call(op, args);
  return r.t;
}

inline Val ints(const Shape& s) {
  std::vector<Val> v;
  for (auto x : s) v.push_back(Val::integer(x));
  return Val::listOf(v);
}

// The message of the TorchError `f` throws ("" when it does not throw).
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const tensor::TorchError& e) { return e.type() + ": " + e.what(); }
  return "";
}

// Runs ops eagerly and records their names: the ATen decomposition of a torch-level call.
class RecordingDispatcher : public ops::EagerDispatcher {
 public:
  using Dispatcher::call;
  Val call(const ops::OpDef& op, const std::vector<Val>& args) override {
    names.push_back(op.name);
    return EagerDispatcher::call(op, args);
  }
  std::vector<std::string> names;
};

inline Val callFn(ops::Dispatcher& d, const std::string& target, std::vector<Val> args,
                  std::vector<std::pair<std::string, Val>> kwargs = {}, ir::NodeKind kind = ir::NodeKind::CallFunction) {
  const torchapi::TorchFn* fn = torchapi::findTorchFn(target, kind);
  if (!fn) throw std::logic_error("no torch function " + target);
  torchapi::TArgs a;
  a.args = std::move(args);
  a.kwargs = std::move(kwargs);
  return fn->impl(d, a);
}

}  // namespace kiln::linalg_test
