// Runs a script in Kiln's interpreter and reads its variables back, for the nn tests.
#pragma once

#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::nntest {

struct Script {
  std::ostringstream out;
  std::unique_ptr<py::Interpreter> in = std::make_unique<py::Interpreter>(out);
  std::string error;  // "Type: message" when the script raised

  explicit Script(const std::string& src) {
    torchapi::install(*in);
    try {
      in->runModule(py::parseModule(src, "t.py"));
    } catch (const py::PyError& e) { error = e.type() + ": " + e.message(); }
  }
  py::Value var(const std::string& name) const {
    auto& vars = in->mainModule()->scope->vars;
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second;
  }
  // A tensor's elements (row-major), a float/int, or a list of numbers, as doubles.
  std::vector<double> values(const std::string& name) const {
    py::Value v = var(name);
    if (!v) ADD_FAILURE() << "no variable " << name;
    if (!v) return {};
    if (v->kind == py::VK::Tensor) return py::as<py::TensorObj>(v)->t.toDoubles();
    if (v->kind == py::VK::Float) return {py::as<py::FloatObj>(v)->v};
    if (v->kind == py::VK::Int) return {double(py::as<py::IntObj>(v)->small())};
    if (v->kind == py::VK::Bool) return {double(py::as<py::BoolObj>(v)->v)};
    std::vector<double> out;
    for (auto& x : in->iterate(v)) {
      if (x->kind == py::VK::Float) out.push_back(py::as<py::FloatObj>(x)->v);
      else if (x->kind == py::VK::Int) out.push_back(double(py::as<py::IntObj>(x)->small()));
      else if (x->kind == py::VK::Bool) out.push_back(double(py::as<py::BoolObj>(x)->v));
    }
    return out;
  }
};

inline void expectNear(const std::vector<double>& got, const std::vector<double>& want, double rel = 1e-5, double abs = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], abs + rel * std::fabs(want[i])) << "element " << i;
}

}  // namespace kiln::nntest
