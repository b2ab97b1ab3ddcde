// Derivatives of reductions: the gradient is brought back to the input's shape; max/min
// style reductions send it to the selected elements (split evenly on ties).
#include "engine/autograd/derivative_util.h"

namespace kiln::autograd::dv {

namespace {

bool keepArg(const GradContext& c, size_t i) { return arg(c, i).kind == Val::Kind::Bool && arg(c, i).b; }

int64_t countOf(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n = tensor::sizeMul(n, s[static_cast<size_t>(d)]);  // a divisor; 0 for an empty dim
  return n;
}

Val sumKeep(Dispatcher& d, const Val& x, const std::vector<int64_t>& dims) {
  std::vector<Val> ds;
  for (auto v : dims) ds.push_back(Val::integer(v));
  return d.call("aten.sum.dim_IntList", {x, Val::listOf(ds), Val::boolean(true)});
}

// amax/amin: grad / count * (self == result), over the reduced dims.
Val selectedGrad(Dispatcher& d, const Val& g, const Val& x, const Val& out, const std::vector<int64_t>& dims, bool keep) {
  Shape s = sizesOf(x);
  Val mask = cmp(d, "eq", x, unreduce(d, out, s, dims, keep));
  Val count = sumKeep(d, mask, dims);
  return mul(d, div(d, unreduce(d, g, s, dims, keep), count), mask);
}

// var_backward: (2 / (N - correction)) * grad * (self - mean(self, dims, keepdim=True))
Val varGrad(Dispatcher& d, const Val& g, const Val& x, const std::vector<int64_t>& dims, const Val& correction, bool keep) {
  Shape s = sizesOf(x);
  double corr = correction.isNone() ? 1.0 : correction.number();
  double n = double(countOf(s, dims));
  std::vector<Val> ds;
  for (auto v : dims) ds.push_back(Val::integer(v));
  Val mean = d.call("aten.mean.dim", {x, Val::listOf(ds), Val::boolean(true)});
  return mul(d, mul(d, unreduce(d, g, s, dims, keep), num(2.0 / (n - corr))), sub(d, x, mean));
}

// prod_backward: grad times the product of the other elements of each reduced slice. Where
// the input has no zero that is result / input (as PyTorch computes it); at a zero it is the
// product of the slice's non-zero elements when that zero is the slice's only one, else 0.
Val prodGrad(Dispatcher& d, const Val& g, const Val& x, const Val& out, const std::vector<int64_t>& dims, bool keep) {
  Shape s = sizesOf(x);
  if (s.empty()) return g;
  Val isZero = cmp(d, "eq", x, num(0));
  Val nonZero = where(d, isZero, add(d, zerosLike(d, x), num(1)), x);
  std::vector<Val> ds;
  for (auto v : dims) ds.push_back(Val::integer(v));
  Val prodNonZero = dims.size() == 1 ? d.call("aten.prod.dim_int", {nonZero, ds[0], Val::boolean(true)})
                                     : unreduce(d, d.call("aten.prod.default", {nonZero}), Shape(s.size(), 1), dims, false);
  Val oneZero = cmp(d, "eq", sumKeep(d, isZero, dims), num(1));
  Val atZero = expandTo(d, where(d, oneZero, prodNonZero, zerosLike(d, prodNonZero)), s);
  Val others = where(d, isZero, atZero, div(d, unreduce(d, out, s, dims, keep), x));
  return mul(d, unreduce(d, g, s, dims, keep), others);
}

}  // namespace

void registerReductionDerivatives(std::vector<ops::OpDef>& t) {
  def(t, "aten.prod.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    return {prodGrad(d, c.gradOutput, c.inputs[0], c.output, reducedDims(Val::none(), s.size()), false)};
  });
  def(t, "aten.prod.dim_int", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    int64_t nd = static_cast<int64_t>(s.size());
    int64_t dim = arg(c, 1).i < 0 ? arg(c, 1).i + nd : arg(c, 1).i;
    return {prodGrad(d, c.gradOutput, c.inputs[0], c.output, nd == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim}, keepArg(c, 2))};
  });
  // cumsum_backward: each position's gradient is the sum of the output gradient from there to
  // the end of the dim, PyTorch's reversed cumsum (flip, cumsum, flip: the flips here an
  // index_select with a reversed index), in the input's dtype (dtype= may have widened it).
  def(
      t, "aten.cumsum.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        Shape s = sizesOf(c.inputs[0]);
        const ir::DType inType = c.inputs[0].tensorType().dtype;
        if (s.empty()) return {toDType(d, c.gradOutput, inType)};
        const int64_t nd = static_cast<int64_t>(s.size());
        const int64_t dim = arg(c, 1).i < 0 ? arg(c, 1).i + nd : arg(c, 1).i;
        const int64_t n = s[static_cast<size_t>(dim)];
        Val reversed = onDeviceOf(
            d, d.call("aten.arange.start_step", {Val::integer(n - 1), Val::integer(-1), Val::integer(-1), Val::dtypeVal(ir::DType::Int64)}),
            c.gradOutput);
        Val flipped = d.call("aten.index_select.default", {c.gradOutput, Val::integer(dim), reversed});
        Val sums = d.call("aten.cumsum.default", {flipped, Val::integer(dim)});
        return {toDType(d, d.call("aten.index_select.default", {sums, Val::integer(dim), reversed}), inType)};
      },
      "CumsumBackward0");
  def(t, "aten.sum.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {expandTo(d, c.gradOutput, sizesOf(c.inputs[0]))}; });
  def(
      t, "aten.sum.dim_IntList",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        Shape s = sizesOf(c.inputs[0]);
        return {unreduce(d, c.gradOutput, s, reducedDims(arg(c, 1), s.size()), keepArg(c, 2))};
      },
      "SumBackward1");
  def(t, "aten.mean.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    return {div(d, expandTo(d, c.gradOutput, s), num(double(std::max<int64_t>(countOf(s, reducedDims(Val::none(), s.size())), 1))))};
  });
  def(
      t, "aten.mean.dim",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        Shape s = sizesOf(c.inputs[0]);
        auto dims = reducedDims(arg(c, 1), s.size());
        return {div(d, unreduce(d, c.gradOutput, s, dims, keepArg(c, 2)), num(double(countOf(s, dims))))};
      },
      "MeanBackward1");
  for (const char* n : {"aten.amax.default", "aten.amin.default"})
    def(t, n, [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      Shape s = sizesOf(c.inputs[0]);
      return {selectedGrad(d, c.gradOutput, c.inputs[0], c.output, reducedDims(arg(c, 1), s.size()), keepArg(c, 2))};
    });
  // max()/min() over everything: evenly_distribute_backward.
  for (const char* n : {"aten.max.default", "aten.min.default"})
    def(t, n, [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      Shape s = sizesOf(c.inputs[0]);
      Val mask = cmp(d, "eq", c.inputs[0], c.output);
      Val count = d.call("aten.sum.default", {mask});
      return {mul(d, mask, expandTo(d, div(d, c.gradOutput, count), s))};
    });
  // max.dim/min.dim -> (values, indices): the gradient goes to the selected index.
  for (const char* n : {"aten.max.dim", "aten.min.dim"})
    def(t, n, [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      const Val& g = c.gradOutput.list.at(0);
      if (g.isNone()) return {Val::none()};
      Shape s = sizesOf(c.inputs[0]);
      int64_t dim = arg(c, 1).i < 0 ? arg(c, 1).i + static_cast<int64_t>(s.size()) : arg(c, 1).i;
      bool keep = keepArg(c, 2);
      std::vector<int64_t> dims = s.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
      if (s.empty()) return {g};
      Val positions = d.call("aten.arange.start_step",
                             {Val::integer(0), Val::integer(s[size_t(dim)]), Val::integer(1), Val::dtypeVal(ir::DType::Int64)});
      Shape ps(s.size(), 1);
      ps[size_t(dim)] = s[size_t(dim)];
      positions = onDeviceOf(d, viewAs(d, positions, ps), c.inputs[0]);  // arange makes a CPU tensor
      Val idx = c.output.list.at(1);
      if (!keep) {
        Shape kept = s;
        kept[size_t(dim)] = 1;
        idx = viewAs(d, idx, kept);
      }
      Val hit = cmp(d, "eq", positions, idx);
      return {where(d, hit, unreduce(d, g, s, dims, keep), num(0))};
    });
  def(t, "aten.var.correction", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    return {varGrad(d, c.gradOutput, c.inputs[0], reducedDims(arg(c, 1), s.size()), arg(c, 2), keepArg(c, 3))};
  });
  // std_backward: var_backward(grad / (2 * result)), zero where the result is zero.
  def(t, "aten.std.correction", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    Val g = where(d, cmp(d, "eq", c.output, num(0)), num(0), div(d, c.gradOutput, mul(d, c.output, num(2))));
    return {varGrad(d, g, c.inputs[0], reducedDims(arg(c, 1), s.size()), arg(c, 2), keepArg(c, 3))};
  });
  def(t, "aten.var_mean.correction", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    auto dims = reducedDims(arg(c, 1), s.size());
    bool keep = keepArg(c, 3);
    Val out = Val::none();
    const Val& gv = c.gradOutput.list.at(0);
    const Val& gm = c.gradOutput.list.at(1);
    if (!gv.isNone()) out = varGrad(d, gv, c.inputs[0], dims, arg(c, 2), keep);
    if (!gm.isNone()) {
      Val m = div(d, unreduce(d, gm, s, dims, keep), num(double(countOf(s, dims))));
      out = out.isNone() ? m : add(d, out, m);
    }
    return {out};
  });
  // grad * exp(self - result)
  def(t, "aten.logsumexp.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    auto dims = reducedDims(arg(c, 1), s.size());
    bool keep = keepArg(c, 2);
    return {mul(d, unreduce(d, c.gradOutput, s, dims, keep), un(d, "exp", sub(d, c.inputs[0], unreduce(d, c.output, s, dims, keep))))};
  });
  // norm_backward for a finite p: grad * self * |self|^(p-2) / norm^(p-1) (zero where norm is 0).
  def(t, "aten.linalg_vector_norm.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& x = c.inputs[0];
    Shape s = sizesOf(x);
    double p = arg(c, 1).isNone() ? 2.0 : arg(c, 1).number();
    auto dims = reducedDims(arg(c, 2), s.size());
    bool keep = keepArg(c, 3);
    Val norm = unreduce(d, c.output, s, dims, keep);
    Val g = unreduce(d, c.gradOutput, s, dims, keep);
    Val r;
    if (p == 2.0) {
      r = mul(d, x, div(d, g, norm));
    } else if (p == 1.0) {
      r = mul(d, g, where(d, cmp(d, "gt", x, num(0)), num(1), where(d, cmp(d, "lt", x, num(0)), num(-1), num(0))));
      return {r};
    } else {
      Val ax = un(d, "abs", x);
      Val num_ = mul(d, x, d.call("aten.pow.Tensor_Tensor", {ax, num(p - 2)}));
      r = mul(d, num_, div(d, g, d.call("aten.pow.Tensor_Tensor", {norm, num(p - 1)})));
    }
    return {where(d, cmp(d, "eq", norm, num(0)), num(0), r)};
  });
}

}  // namespace kiln::autograd::dv
