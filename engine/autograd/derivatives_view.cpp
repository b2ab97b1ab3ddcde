// Derivatives of views, concatenation and indexing: each sends the gradient back to the
// positions of the input the forward read.
#include "engine/autograd/derivative_util.h"

namespace kiln::autograd::dv {

namespace {
int64_t wrapDim(int64_t d, size_t nd) { return d < 0 ? d + static_cast<int64_t>(nd) : d; }

std::vector<Val> sameShape(Dispatcher& d, const GradContext& c) { return {viewAs(d, c.gradOutput, sizesOf(c.inputs[0]))}; }

// A matrix stored column by column, as PyTorch's mm backward tests it (strides (1, rows)): the
// t(weight) of a linear layer. Its gradient is then made column by column too, so that the
// gradient of the weight behind it comes out contiguous (AccumulateGrad keeps it as it is
// instead of copying a transposed matrix).
bool columnMajor(const Val& m) {
  ir::TensorType ty = m.tensorType();
  if (ty.sizes.size() != 2 || ty.strides.size() != 2) return false;
  for (const auto* d : {&ty.sizes[0], &ty.strides[0], &ty.strides[1]})
    if (d->symbolic()) return false;
  // A size-1 dim makes a matrix both row- and column-major, and the views' types may drop its
  // stride: the plain formula then, so eager and compiled backward sum in one order.
  if (ty.sizes[0].value <= 1 || ty.sizes[1].symbolic() || ty.sizes[1].value <= 1) return false;
  return ty.strides[0].value == 1 && ty.strides[1].value == ty.sizes[0].value;
}
Val tr(Dispatcher& d, const Val& m) { return d.call("aten.t.default", {m}); }

// d(mat1 @ mat2)/d mat1 = g @ mat2^T, or (mat2 @ g^T)^T when mat1 is column-major.
Val mmMat1Backward(Dispatcher& d, const Val& g, const Val& mat1, const Val& mat2) {
  if (columnMajor(mat1)) return tr(d, d.call("aten.mm.default", {mat2, tr(d, g)}));
  return d.call("aten.mm.default", {g, tr(d, mat2)});
}
// d(mat1 @ mat2)/d mat2 = mat1^T @ g, or (g^T @ mat1)^T when mat2 is column-major.
Val mmMat2Backward(Dispatcher& d, const Val& g, const Val& mat1, const Val& mat2) {
  if (columnMajor(mat2)) return tr(d, d.call("aten.mm.default", {tr(d, g), mat1}));
  return d.call("aten.mm.default", {tr(d, mat1), g});
}
}  // namespace

void registerViewDerivatives(std::vector<ops::OpDef>& t) {
  for (const char* n : {"aten.view.default", "aten._unsafe_view.default", "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
                        "aten.unsqueeze.default", "aten.alias.default"})
    def(t, n, sameShape);
  def(t, "aten.permute.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    std::vector<int64_t> dims = c.inputs.at(1).ints();
    std::vector<Val> inv(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) inv[size_t(wrapDim(dims[i], dims.size()))] = Val::integer(static_cast<int64_t>(i));
    return {d.call("aten.permute.default", {c.gradOutput, Val::listOf(inv)})};
  });
  def(t, "aten.t.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {d.call("aten.t.default", {c.gradOutput})}; });
  def(t, "aten.transpose.int", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {d.call("aten.transpose.int", {c.gradOutput, c.inputs.at(1), c.inputs.at(2)})};
  });
  def(t, "aten.expand.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {sumTo(d, c.gradOutput, sizesOf(c.inputs[0]))}; });
  def(t, "aten.slice.Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    auto a = [&](size_t i, Val dflt) { return i < c.inputs.size() && !c.inputs[i].isNone() ? c.inputs[i] : dflt; };
    return {d.call("aten.slice_backward.default", {c.gradOutput, intList(sizesOf(c.inputs[0])), a(1, Val::integer(0)), a(2, Val::none()),
                                                   a(3, Val::none()), a(4, Val::integer(1))})};
  });
  def(t, "aten.select.int", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {d.call("aten.select_backward.default", {c.gradOutput, intList(sizesOf(c.inputs[0])), c.inputs.at(1), c.inputs.at(2)})};
  });
  // diagonal(self, offset, dim1, dim2) (diagonal_backward): the gradient written onto the same
  // diagonal of zeros; the positions come from the diagonal of an iota of the input's shape.
  def(t, "aten.diagonal.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Shape s = sizesOf(c.inputs[0]);
    const int64_t n = tensor::checkedNumel(s);  // 0 for an empty input, whatever its other dims
    std::vector<Val> diagArgs(c.inputs.begin(), c.inputs.end());
    diagArgs[0] = viewAs(
        d, d.call("aten.arange.start_step", {Val::integer(0), Val::integer(n), Val::integer(1), Val::dtypeVal(ir::DType::Int64)}), s);
    Val pos = viewAs(d, d.call("aten.diagonal.default", diagArgs), {-1});
    Val flat = viewAs(d, zerosLike(d, c.inputs[0]), {n});
    Val r = d.call("aten.index_put.default", {flat, Val::listOf({pos}), viewAs(d, c.gradOutput, {-1}), Val::boolean(false)});
    return {viewAs(d, r, s)};
  });
  // index_copy / index_add (index_copy_backward, index_add's formula): self's gradient passes
  // through (zeroed where index_copy overwrote), source's is the rows of the gradient it wrote.
  for (bool add : {false, true}) {
    def(t, add ? "aten.index_add.default" : "aten.index_copy.default", [add](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      const Val& index = c.inputs.at(2);
      const int64_t dim = wrapDim(c.inputs.at(1).i, sizesOf(c.inputs[0]).size());
      Val idx = index.tensorType().sizes.empty() ? d.call("aten.unsqueeze.default", {index, Val::integer(0)}) : index;
      Val gradSelf = c.gradOutput;
      if (!add && c.needs(0)) {
        std::vector<Val> list(static_cast<size_t>(dim), Val::none());
        list.push_back(idx);
        Val zero = d.call("aten.full.default", {Val::listOf({}), Val::real(0.0), Val::dtypeVal(c.gradOutput.tensorType().dtype)});
        gradSelf = d.call("aten.index_put.default", {c.gradOutput, Val::listOf(list), zero, Val::boolean(false)});
      }
      Val gradSource = Val::none();
      if (c.needs(3))
        gradSource = viewAs(d, d.call("aten.index_select.default", {c.gradOutput, Val::integer(dim), idx}), sizesOf(c.inputs[3]));
      return {c.needs(0) ? gradSelf : Val::none(), Val::none(), Val::none(), gradSource};
    });
  }
  // cat(tensors, dim): each input gets its slice of the gradient.
  def(t, "aten.cat.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const auto& xs = c.inputs.at(0).list;
    size_t nd = sizesOf(c.output).size();
    int64_t dim = c.inputs.size() > 1 && !c.inputs[1].isNone() ? wrapDim(c.inputs[1].i, nd) : 0;
    std::vector<Val> grads;
    int64_t at = 0;
    for (const auto& x : xs) {
      Shape s = sizesOf(x);
      if (s.size() == 1 && s[0] == 0 && nd != 1) {
        grads.push_back(Val::none());
        continue;
      }  // legacy empty input
      int64_t n = s[size_t(dim)];
      grads.push_back(
          d.call("aten.slice.Tensor", {c.gradOutput, Val::integer(dim), Val::integer(at), Val::integer(at + n), Val::integer(1)}));
      at += n;
    }
    return {Val::listOf(grads), Val::none()};
  });
  // index(self, indices): index_put(zeros, indices, grad, accumulate=True)
  def(t, "aten.index.Tensor", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {d.call("aten.index_put.default", {zerosLike(d, c.inputs[0]), c.inputs.at(1), c.gradOutput, Val::boolean(true)}), Val::none()};
  });
  def(t, "aten.index_put.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    // self keeps the gradient where it was not overwritten; values get what their positions got.
    Val gs = d.call("aten.index_put.default", {c.gradOutput, c.inputs.at(1), zerosLike(d, c.inputs.at(2)), Val::boolean(false)});
    Val gv = c.needs(2) ? sumTo(d, d.call("aten.index.Tensor", {c.gradOutput, c.inputs.at(1)}), sizesOf(c.inputs[2])) : Val::none();
    return {gs, Val::none(), gv};
  });
  def(t, "aten.index_select.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    size_t nd = sizesOf(c.inputs[0]).size();
    int64_t dim = wrapDim(c.inputs.at(1).i, nd);
    std::vector<Val> idx(size_t(dim), Val::none());
    idx.push_back(c.inputs.at(2));
    return {d.call("aten.index_put.default", {zerosLike(d, c.inputs[0]), Val::listOf(idx), c.gradOutput, Val::boolean(true)})};
  });
  def(t, "aten.gather.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {d.call("aten.scatter_add.default", {zerosLike(d, c.inputs[0]), c.inputs.at(1), c.inputs.at(2), c.gradOutput})};
  });
  for (const char* n : {"aten.tril.default", "aten.triu.default"}) {
    std::string op = n;
    def(t, n, [op](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
      std::vector<Val> a{c.gradOutput};
      if (c.inputs.size() > 1) a.push_back(c.inputs[1]);
      return {d.call(op, a)};
    });
  }

  // Matrix products (mm_mat1_backward / mm_mat2_backward).
  def(t, "aten.mm.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    return {c.needs(0) ? mmMat1Backward(d, g, c.inputs[0], c.inputs[1]) : Val::none(),
            c.needs(1) ? mmMat2Backward(d, g, c.inputs[0], c.inputs[1]) : Val::none()};
  });
  // addmm(self, mat1, mat2, beta=1, alpha=1)
  def(t, "aten.addmm.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    double beta = c.inputs.size() > 3 && c.inputs[3].isScalar() ? c.inputs[3].number() : 1.0;
    double alpha = c.inputs.size() > 4 && c.inputs[4].isScalar() ? c.inputs[4].number() : 1.0;
    Val gs = c.needs(0) ? sumTo(d, beta == 1.0 ? g : mul(d, g, num(beta)), sizesOf(c.inputs[0])) : Val::none();
    Val g1 = c.needs(1) ? mmMat1Backward(d, g, c.inputs[1], c.inputs[2]) : Val::none();
    Val g2 = c.needs(2) ? mmMat2Backward(d, g, c.inputs[1], c.inputs[2]) : Val::none();
    if (alpha != 1.0) {
      if (!g1.isNone()) g1 = mul(d, g1, num(alpha));
      if (!g2.isNone()) g2 = mul(d, g2, num(alpha));
    }
    return {gs, g1, g2};
  });
  def(t, "aten.bmm.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    auto tr = [&](const Val& x) { return d.call("aten.transpose.int", {x, Val::integer(1), Val::integer(2)}); };
    return {c.needs(0) ? d.call("aten.bmm.default", {g, tr(c.inputs[1])}) : Val::none(),
            c.needs(1) ? d.call("aten.bmm.default", {tr(c.inputs[0]), g}) : Val::none()};
  });
  // mv(self [n, m], vec [m]): grad.ger(vec), self^T @ grad
  def(t, "aten.mv.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    Shape ms = sizesOf(c.inputs[0]);
    Val gm = c.needs(0) ? mul(d, viewAs(d, g, {ms[0], 1}), viewAs(d, c.inputs[1], {1, ms[1]})) : Val::none();
    Val gv = c.needs(1) ? d.call("aten.mv.default", {d.call("aten.t.default", {c.inputs[0]}), g}) : Val::none();
    return {gm, gv};
  });
  def(t, "aten.dot.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput;
    return {c.needs(0) ? mul(d, c.inputs[1], g) : Val::none(), c.needs(1) ? mul(d, c.inputs[0], g) : Val::none()};
  });
  // embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)
  def(t, "aten.embedding.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    Val pad = c.inputs.size() > 2 && !c.inputs[2].isNone() ? c.inputs[2] : Val::integer(-1);
    Val scale = c.inputs.size() > 3 && c.inputs[3].kind == Val::Kind::Bool ? c.inputs[3] : Val::boolean(false);
    return {
        d.call("aten.embedding_dense_backward.default", {c.gradOutput, c.inputs.at(1), Val::integer(sizesOf(c.inputs[0])[0]), pad, scale}),
        Val::none()};
  });
}

}  // namespace kiln::autograd::dv
