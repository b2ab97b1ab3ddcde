// Derivatives of the pointwise ops (unary math, binary arithmetic, where, casts), after
// PyTorch's tools/autograd/derivatives.yaml. Binary ops sum broadcast gradients back.
#include "engine/autograd/derivative_util.h"

#include <cmath>

namespace kiln::autograd::dv {

namespace {

// A unary formula: grad_input from (g, x, result).
using Unary = Val (*)(Dispatcher&, const Val& g, const Val& x, const Val& out);

void unary(std::vector<ops::OpDef>& t, const std::string& name, Unary f) {
  def(t, "aten." + name + ".default",
      [f](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {f(d, c.gradOutput, c.inputs.at(0), c.output)}; });
}

Val gradFor(Dispatcher& d, const GradContext& c, size_t i, const Val& g) {
  return c.inputs.at(i).isTensor() ? sumTo(d, g, sizesOf(c.inputs[i])) : Val::none();
}

}  // namespace

void registerPointwiseDerivatives(std::vector<ops::OpDef>& t) {
  unary(t, "neg", [](Dispatcher& d, const Val& g, const Val&, const Val&) { return neg(d, g); });
  unary(t, "exp", [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return mul(d, g, y); });
  unary(t, "log", [](Dispatcher& d, const Val& g, const Val& x, const Val&) { return div(d, g, x); });
  unary(t, "sin", [](Dispatcher& d, const Val& g, const Val& x, const Val&) { return mul(d, g, un(d, "cos", x)); });
  unary(t, "cos", [](Dispatcher& d, const Val& g, const Val& x, const Val&) { return mul(d, g, neg(d, un(d, "sin", x))); });
  // tanh_backward(grad, y) = grad * (1 - y*y)
  unary(t, "tanh", [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return mul(d, g, sub(d, num(1), mul(d, y, y))); });
  // grad / (2 * result)
  unary(t, "sqrt", [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return div(d, g, mul(d, y, num(2))); });
  // -0.5 * grad * result^3
  unary(t, "rsqrt",
        [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return mul(d, mul(d, g, num(-0.5)), mul(d, mul(d, y, y), y)); });
  // grad * sgn(x)
  unary(t, "abs", [](Dispatcher& d, const Val& g, const Val& x, const Val&) {
    return where(d, cmp(d, "gt", x, num(0)), g, where(d, cmp(d, "lt", x, num(0)), neg(d, g), num(0)));
  });
  // sigmoid_backward(grad, y) = grad * (1 - y) * y
  unary(t, "sigmoid", [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return mul(d, mul(d, g, sub(d, num(1), y)), y); });
  // 2/sqrt(pi) * exp(-x^2) * grad
  unary(t, "erf", [](Dispatcher& d, const Val& g, const Val& x, const Val&) {
    return mul(d, mul(d, un(d, "exp", neg(d, mul(d, x, x))), num(2.0 / std::sqrt(M_PI))), g);
  });
  // silu_backward: grad * s * (1 + x * (1 - s)), s = sigmoid(x)
  unary(t, "silu", [](Dispatcher& d, const Val& g, const Val& x, const Val&) {
    Val s = un(d, "sigmoid", x);
    return mul(d, mul(d, g, s), add(d, num(1), mul(d, x, sub(d, num(1), s))));
  });
  // -grad * (result * result)
  unary(t, "reciprocal", [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return mul(d, neg(d, g), mul(d, y, y)); });
  for (const char* n : {"floor", "ceil"})
    unary(t, n, [](Dispatcher& d, const Val& g, const Val&, const Val&) { return mul(d, g, num(0)); });
  // threshold_backward(grad, result, 0): the gradient passes where the result is positive.
  unary(t, "relu", [](Dispatcher& d, const Val& g, const Val&, const Val& y) { return where(d, cmp(d, "le", y, num(0)), num(0), g); });

  // add/sub(x, y[, alpha]): alpha scales y's gradient.
  for (bool isSub : {false, true}) {
    def(t, isSub ? "aten.sub.Tensor" : "aten.add.Tensor", [isSub](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      const Val& g = c.gradOutput;
      Val gy = isSub ? neg(d, g) : g;
      if (c.inputs.size() > 2 && c.inputs[2].isScalar() && c.inputs[2].number() != 1.0) gy = mul(d, gy, c.inputs[2]);
      return {gradFor(d, c, 0, g), c.needs(1) ? gradFor(d, c, 1, gy) : Val::none()};
    });
  }
  def(t, "aten.mul.Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    return {c.needs(0) ? gradFor(d, c, 0, mul(d, g, c.inputs[1])) : Val::none(),
            c.needs(1) ? gradFor(d, c, 1, mul(d, g, c.inputs[0])) : Val::none()};
  });
  // grad / other, -grad * ((self / other) / other)
  def(t, "aten.div.Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    const Val &x = c.inputs[0], &y = c.inputs[1];
    return {c.needs(0) ? gradFor(d, c, 0, div(d, g, y)) : Val::none(),
            c.needs(1) ? gradFor(d, c, 1, mul(d, neg(d, g), div(d, div(d, x, y), y))) : Val::none()};
  });
  // remainder: grad, -grad * floor(self / other)
  def(t, "aten.remainder.Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    return {c.needs(0) ? gradFor(d, c, 0, g) : Val::none(),
            c.needs(1) ? gradFor(d, c, 1, mul(d, neg(d, g), un(d, "floor", div(d, c.inputs[0], c.inputs[1])))) : Val::none()};
  });
  // maximum/minimum: the gradient goes to the larger (smaller) input, split evenly on ties.
  for (bool isMax : {true, false}) {
    def(t, isMax ? "aten.maximum.default" : "aten.minimum.default", [isMax](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      const Val& g = c.gradOutput;
      const Val &x = c.inputs[0], &y = c.inputs[1];
      Val half = mul(d, g, num(0.5));
      Val tie = cmp(d, "eq", x, y);
      auto part = [&](const Val& a, const Val& b) { return where(d, tie, half, where(d, cmp(d, isMax ? "gt" : "lt", a, b), g, num(0))); };
      return {c.needs(0) ? gradFor(d, c, 0, part(x, y)) : Val::none(), c.needs(1) ? gradFor(d, c, 1, part(y, x)) : Val::none()};
    });
  }
  // pow(self, exponent): exponent * self^(exponent-1) (0 where exponent == 0);
  // d/dexponent = result * log(self) (0 where self == 0 and exponent >= 0).
  def(t, "aten.pow.Tensor_Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    const Val &x = c.inputs[0], &e = c.inputs[1];
    Val gx, ge;
    if (c.needs(0)) {
      Val term = mul(d, mul(d, g, e), d.call("aten.pow.Tensor_Tensor", {x, sub(d, e, num(1))}));
      if (e.isTensor()) term = where(d, cmp(d, "eq", e, num(0)), num(0), term);
      else if (e.number() == 0) term = mul(d, g, num(0));
      gx = gradFor(d, c, 0, term);
    }
    if (c.needs(1) && x.isTensor()) {
      Val term = mul(d, mul(d, g, c.output), un(d, "log", x));
      Val zeroBase = mul(d, cmp(d, "eq", x, num(0)), cmp(d, "ge", e, num(0)));
      ge = gradFor(d, c, 1, where(d, zeroBase, num(0), term));
    } else if (c.needs(1)) {
      // torch.pow(number, tensor): log of the number (nan for a negative one, as PyTorch).
      Val term = mul(d, mul(d, g, c.output), num(std::log(x.number())));
      ge = gradFor(d, c, 1, x.number() == 0 ? where(d, cmp(d, "ge", e, num(0)), num(0), term) : term);
    }
    return {gx, ge};
  });
  def(t, "aten.where.self", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    const Val& cond = c.inputs[0];
    return {Val::none(), c.needs(1) ? gradFor(d, c, 1, where(d, cond, g, num(0))) : Val::none(),
            c.needs(2) ? gradFor(d, c, 2, where(d, cond, num(0), g)) : Val::none()};
  });
  def(
      t, "prims.convert_element_type.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {toDType(d, c.gradOutput, c.inputs[0].tensorType().dtype)}; },
      "ToCopyBackward0");
  def(t, "aten.clone.default", [](Dispatcher&, const GradContext& c) -> std::vector<Val> { return {c.gradOutput}; });
  def(t, "aten.masked_fill.Scalar",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {where(d, c.inputs.at(1), num(0), c.gradOutput)}; });
  def(t, "aten.masked_fill.Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Val gv = c.needs(2) ? d.call("aten.sum.default", {where(d, c.inputs.at(1), c.gradOutput, num(0))}) : Val::none();
    return {where(d, c.inputs.at(1), num(0), c.gradOutput), Val::none(), gv};
  });
}

}  // namespace kiln::autograd::dv
