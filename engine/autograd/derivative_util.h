// Shorthands for writing derivative formulas with ATen ops against a Dispatcher, so that a
// formula reads like its line in PyTorch's derivatives.yaml.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"

#include <string>
#include <vector>

namespace kiln::autograd::dv {

using ops::Dispatcher;
using ops::GradContext;
using ops::Val;
using tensor::Shape;
using Formula = std::function<std::vector<Val>(Dispatcher&, const GradContext&)>;

inline Val num(double x) { return Val::real(x); }
inline Val mul(Dispatcher& d, const Val& a, const Val& b) { return d.call("aten.mul.Tensor", {a, b}); }
inline Val div(Dispatcher& d, const Val& a, const Val& b) { return d.call("aten.div.Tensor", {a, b}); }
inline Val add(Dispatcher& d, const Val& a, const Val& b) { return d.call("aten.add.Tensor", {a, b}); }
inline Val sub(Dispatcher& d, const Val& a, const Val& b) { return d.call("aten.sub.Tensor", {a, b}); }
inline Val neg(Dispatcher& d, const Val& a) { return d.call("aten.neg.default", {a}); }
inline Val un(Dispatcher& d, const std::string& op, const Val& a) { return d.call("aten." + op + ".default", {a}); }
inline Val where(Dispatcher& d, const Val& c, const Val& a, const Val& b) { return d.call("aten.where.self", {c, a, b}); }
inline Val cmp(Dispatcher& d, const std::string& op, const Val& a, const Val& b) { return d.call("aten." + op + ".Tensor", {a, b}); }

using ops::intList;
using ops::sizesOf;
// The dims of a reduction as the op saw them (None or [] = every dim), wrapped to >= 0.
std::vector<int64_t> reducedDims(const Val& dims, size_t nd);
// Sums a broadcast gradient back to `like`'s shape (and nothing when it already matches).
Val sumTo(Dispatcher& d, const Val& g, const Shape& shape);
// A reduction's gradient (or result) brought back to the input's shape: unsqueeze the reduced
// dims when keepdim was false, then expand.
Val unreduce(Dispatcher& d, const Val& g, const Shape& inShape, const std::vector<int64_t>& dims, bool keep);
Val expandTo(Dispatcher& d, const Val& g, const Shape& shape);
// reshape semantics: a view when the strides allow it, else a contiguous copy first.
Val viewAs(Dispatcher& d, const Val& g, const Shape& shape);
// v (a tensor made by a factory op: full, arange, on the CPU) on like's device (CUDA gradients).
Val onDeviceOf(Dispatcher& d, const Val& v, const Val& like);
Val zerosLike(Dispatcher& d, const Val& like);
Val toDType(Dispatcher& d, const Val& g, ir::DType dt);
// Argument i or None.
inline const Val& arg(const GradContext& c, size_t i) {
  static const Val none;
  return i < c.inputs.size() ? c.inputs[i] : none;
}

// Sets op `name`'s formula if the op exists (families land at different times).
void def(std::vector<ops::OpDef>& table, const std::string& name, Formula f, const std::string& backwardName = "");

void registerPointwiseDerivatives(std::vector<ops::OpDef>& t);
void registerReductionDerivatives(std::vector<ops::OpDef>& t);
void registerViewDerivatives(std::vector<ops::OpDef>& t);
void registerNnDerivatives(std::vector<ops::OpDef>& t);
void registerBackwardOps(std::vector<ops::OpDef>& t);
void registerPoolingBackwardOps(std::vector<ops::OpDef>& t);

}  // namespace kiln::autograd::dv
