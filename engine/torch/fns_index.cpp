// Torch-level indexing and selection: x[...] (_operator.getitem, decomposed like PyTorch's
// applySlicing into unsqueeze/select/slice views plus one aten.index for tensor indices),
// torch.where, masked_fill, tril/triu, nonzero, gather, index_select, clamp.
//
// Index encoding (a Val; what tensor_protocol.cpp passes and captured graphs hold): a List is a
// tuple of indices, anything else one index. An index is an Int, None (new axis), the String
// "..." (Ellipsis), a slice as List[String "slice", start, stop, step] (None for omitted parts),
// a Bool, a Tensor (integer or bool: advanced indexing) or a List of ints (advanced indexing).
#include "engine/ops/shape_util.h"
#include "engine/torch/indexing.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

namespace {

bool isSlice(const Val& v) {
  return v.kind == Val::Kind::List && v.list.size() == 4 && v.list[0].kind == Val::Kind::String && v.list[0].s == "slice";
}
bool isEllipsis(const Val& v) { return v.kind == Val::Kind::String && v.s == "..."; }

// A list of ints as an int64 index tensor (x[[0, 2]]).
Val listIndex(Dispatcher& d, const Val& v) {
  std::vector<int64_t> xs = v.ints();
  Val t = d.call("aten.full.default",
                 {Val::listOf({Val::integer(static_cast<int64_t>(xs.size()))}), Val::integer(0), Val::dtypeVal(ir::DType::Int64)});
  if (t.kind != Val::Kind::Tensor)
    throw TorchError("NotImplementedError", "indexing with a Python list inside compiled code is not supported by Kiln yet");
  for (size_t i = 0; i < xs.size(); ++i) t.t.storeIntAt(static_cast<int64_t>(i) * t.t.strides()[0], xs[i]);
  return t;
}

}  // namespace

// The basic-indexing part of x[index] as views, and the advanced indices (one per result dim,
// None where not indexed) to apply with aten.index / index_put. Shared with tensor_protocol.cpp
// for assignment.
Val applyBasicIndexing(Dispatcher& d, const Val& x, const Val& index, std::vector<Val>& advanced) {
  std::vector<Val> items = index.kind == Val::Kind::List && !isSlice(index) ? index.list : std::vector<Val>{index};
  const int64_t nd = static_cast<int64_t>(x.tensorType().sizes.size());
  int64_t consumed = 0;
  int ellipses = 0;
  for (const auto& it : items) {
    if (it.isNone() || it.kind == Val::Kind::Bool) continue;
    if (isEllipsis(it)) {
      ++ellipses;
      continue;
    }
    if (it.isTensor() && it.tensorType().dtype == ir::DType::Bool) consumed += static_cast<int64_t>(it.tensorType().sizes.size());
    else ++consumed;
  }
  if (ellipses > 1) throw TorchError("IndexError", "an index can only have a single ellipsis ('...')");
  if (consumed > nd) throw TorchError("IndexError", "too many indices for tensor of dimension " + std::to_string(nd));
  Val r = x;
  int64_t dim = 0;
  advanced.clear();
  // aten.index's list: None for every dim taken whole, a bool mask once for all the dims it covers.
  int64_t covered = 0;
  auto setAdvanced = [&](int64_t at, const Val& v) {
    for (; covered < at; ++covered) advanced.push_back(Val::none());
    advanced.push_back(v);
    covered += v.tensorType().dtype == ir::DType::Bool ? static_cast<int64_t>(v.tensorType().sizes.size()) : 1;
  };
  for (const auto& it : items) {
    if (it.isNone()) {
      r = d.call("aten.unsqueeze.default", {r, Val::integer(dim)});
      ++dim;
    } else if (isEllipsis(it)) {
      dim += nd - consumed;
    } else if (it.kind == Val::Kind::Bool) {
      // x[True] adds a dim of size 1; x[False] one of size 0.
      r = d.call("aten.unsqueeze.default", {r, Val::integer(dim)});
      if (!it.b) r = d.call("aten.slice.Tensor", {r, Val::integer(dim), Val::integer(0), Val::integer(0), Val::integer(1)});
      ++dim;
    } else if (it.kind == Val::Kind::Int) {
      int64_t n = ops::sizesOf(r).at(static_cast<size_t>(dim));
      int64_t i = it.i;
      if (i < -n || i >= n)
        throw TorchError("IndexError", "index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(dim) +
                                           " with size " + std::to_string(n));
      r = d.call("aten.select.int", {r, Val::integer(dim), Val::integer(i)});
    } else if (isSlice(it)) {
      const Val& step = it.list[3];
      if (!step.isNone() && step.kind == Val::Kind::Int && step.i <= 0) throw TorchError("ValueError", "step must be greater than zero");
      bool full = it.list[1].isNone() && it.list[2].isNone() && (step.isNone() || step.i == 1);
      if (!full) {
        auto part = [](const Val& v) { return v.isNone() ? Val::none() : Val::integer(v.kind == Val::Kind::Bool ? v.b : v.i); };
        r = d.call("aten.slice.Tensor", {r, Val::integer(dim), part(it.list[1]), part(it.list[2]), step.isNone() ? Val::integer(1) : step});
      }
      ++dim;
    } else if (it.isTensor()) {
      setAdvanced(dim, it);
      dim += it.tensorType().dtype == ir::DType::Bool ? static_cast<int64_t>(it.tensorType().sizes.size()) : 1;
    } else if (it.kind == Val::Kind::List) {
      setAdvanced(dim, listIndex(d, it));
      ++dim;
    } else {
      throw TorchError("IndexError", "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices");
    }
  }
  return r;
}

void registerIndexFns(std::vector<TorchFn>& t) {
  t.push_back({"_operator.getitem", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = a.args.at(0);
                 const Val& index = a.args.at(1);
                 if (x.kind == Val::Kind::List) {  // a tuple/list result of a multi-output call
                   int64_t n = static_cast<int64_t>(x.list.size()), i = index.i;
                   if (i < -n || i >= n) throw TorchError("IndexError", "tuple index out of range");
                   return x.list[static_cast<size_t>(i < 0 ? i + n : i)];
                 }
                 if (!x.isTensor()) throw TorchError("TypeError", "getitem expects a tensor");
                 std::vector<Val> adv;
                 Val r = applyBasicIndexing(d, x, index, adv);
                 if (adv.empty()) {
                   // x[...] / x[:] alone still give a new tensor object viewing the same memory.
                   if (r.kind == x.kind && r.node == x.node && (r.kind != Val::Kind::Tensor || r.t.storage() == x.t.storage()) &&
                       ops::sizesOf(r) == ops::sizesOf(x))
                     return d.call("aten.alias.default", {r});
                   return r;
                 }
                 return d.call("aten.index.Tensor", {r, Val::listOf(adv)});
               }});
  // x[index] = value as captured graphs hold it (_operator.setitem, an in-place node): x's new
  // value, functionally. The view the basic index selects takes the value (expanded and cast to
  // x's dtype, as copy_ does) or, with tensor indices, index_put of it; the view's elements are
  // then put back into x at the element numbers the same basic index selects from an iota of
  // x's shape (so any chain of selects, slices with steps and new axes lands where it viewed).
  t.push_back({"_operator.setitem", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = a.args.at(0);
                 const Val& index = a.args.at(1);
                 Val value = a.args.at(2);
                 if (!x.isTensor()) throw TorchError("TypeError", "setitem expects a tensor");
                 const ir::TensorType xt = x.tensorType();
                 auto shapeOf = [](const ir::TensorType& t) {
                   std::vector<Val> s;
                   for (const auto& dim : t.sizes) s.push_back(Val::integer(dim.value));
                   return Val::listOf(std::move(s));
                 };
                 if (!value.isTensor())
                   value = d.call("aten.full.default", {Val::listOf(std::vector<Val>{}), value, Val::dtypeVal(xt.dtype)});
                 else if (value.tensorType().dtype != xt.dtype)
                   value = d.call("prims.convert_element_type.default", {value, Val::dtypeVal(xt.dtype)});
                 std::vector<Val> adv;
                 Val view = applyBasicIndexing(d, x, index, adv);
                 // The value's leading dims of size 1 are dropped, as PyTorch's setitem does
                 // (slicePrefix1sDims: x[0] = ones(1, 4) for a row of 4).
                 for (ir::TensorType vt = value.tensorType(); !vt.sizes.empty() && vt.sizes[0].value == 1; vt = value.tensorType()) {
                   vt.sizes.erase(vt.sizes.begin());
                   value = d.call("aten.view.default", {value, shapeOf(vt)});
                 }
                 Val updated;
                 if (adv.empty()) {
                   updated = d.call("aten.clone.default", {d.call("aten.expand.default", {value, shapeOf(view.tensorType())})});
                 } else {
                   // index_put's values broadcast to the indexed shape (checked by its kernel).
                   updated = d.call("aten.index_put.default", {view, Val::listOf(adv), value, Val::boolean(false)});
                 }
                 auto flat = [&](const Val& v) {
                   return d.call("aten.view.default", {d.call("aten.clone.default", {v}), Val::listOf({Val::integer(-1)})});
                 };
                 int64_t numel = 1;
                 for (const auto& dim : xt.sizes) numel = tensor::sizeMul(numel, dim.value);  // 0 for an empty x
                 Val iota = d.call("aten.view.default",
                                   {d.call("aten.arange.start_step",
                                           {Val::integer(0), Val::integer(numel), Val::integer(1), Val::dtypeVal(ir::DType::Int64)}),
                                    shapeOf(xt)});
                 std::vector<Val> ignored;
                 Val positions = applyBasicIndexing(d, iota, index, ignored);
                 Val r = d.call("aten.index_put.default", {flat(x), Val::listOf({flat(positions)}), flat(updated), Val::boolean(false)});
                 return d.call("aten.view.default", {r, shapeOf(xt)});
               }});
  // where(cond, x, y); where(cond) is nonzero(cond) as a tuple of index vectors.
  t.push_back({"torch.where", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& c = tensorArg(a, 0, "condition", "where");
                 const Val* x = a.get(1, "input");
                 const Val* y = a.get(2, "other");
                 if (!x && !y) {
                   Val nz = d.call("aten.nonzero.default", {c});
                   std::vector<Val> cols;
                   int64_t nd = static_cast<int64_t>(c.tensorType().sizes.size());
                   for (int64_t k = 0; k < nd; ++k) cols.push_back(d.call("aten.select.int", {nz, Val::integer(1), Val::integer(k)}));
                   return Val::listOf(cols);
                 }
                 if (!x || !y) throw TorchError("TypeError", "where() missing required argument 'other'");
                 if (c.tensorType().dtype != ir::DType::Bool)
                   throw TorchError("RuntimeError", "where expected condition to be a boolean tensor, but got a tensor with dtype " +
                                                        std::string(ir::torchName(c.tensorType().dtype)).substr(6));
                 return d.call("aten.where.self", {c, *x, *y});
               }});
  t.push_back({"where", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 const Val& c = tensorArg(a, 1, "condition", "where");
                 if (c.tensorType().dtype != ir::DType::Bool)
                   throw TorchError("RuntimeError", "where expected condition to be a boolean tensor, but got a tensor with dtype " +
                                                        std::string(ir::torchName(c.tensorType().dtype)).substr(6));
                 return d.call("aten.where.self", {c, a.args.at(0), needArg(a, 2, "other", "where")});
               }});
  auto maskedFill = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "masked_fill");
    const Val& m = tensorArg(a, 1, "mask", "masked_fill");
    const Val& v = needArg(a, 2, "value", "masked_fill");
    if (v.isTensor()) {
      if (!v.tensorType().sizes.empty())
        throw TorchError("RuntimeError", "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with " +
                                             std::to_string(v.tensorType().sizes.size()) + " dimension(s).");
      return d.call("aten.masked_fill.Tensor", {x, m, v});
    }
    return d.call("aten.masked_fill.Scalar", {x, m, v});
  };
  t.push_back({"masked_fill", ir::NodeKind::CallMethod, maskedFill});
  t.push_back({"torch.masked_fill", ir::NodeKind::CallFunction, maskedFill});
  for (const char* n : {"tril", "triu"}) {
    std::string name = n;
    auto impl = [name](Dispatcher& d, const TArgs& a) {
      const Val& diag = opt(a, 1, "diagonal");
      return d.call("aten." + name + ".default", {tensorArg(a, 0, "input", name), diag.isNone() ? Val::integer(0) : diag});
    };
    t.push_back({"torch." + name, ir::NodeKind::CallFunction, impl});
    t.push_back({name, ir::NodeKind::CallMethod, impl});
  }
  auto nonzero = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "nonzero");
    Val nz = d.call("aten.nonzero.default", {x});
    const Val* asTuple = a.kw("as_tuple");
    if (!asTuple || !asTuple->b) return nz;
    std::vector<Val> cols;
    int64_t nd = std::max<int64_t>(static_cast<int64_t>(x.tensorType().sizes.size()), 1);
    for (int64_t k = 0; k < nd; ++k) cols.push_back(d.call("aten.select.int", {nz, Val::integer(1), Val::integer(k)}));
    return Val::listOf(cols);
  };
  t.push_back({"torch.nonzero", ir::NodeKind::CallFunction, nonzero});
  t.push_back({"nonzero", ir::NodeKind::CallMethod, nonzero});
  auto gather = [](Dispatcher& d, const TArgs& a) {
    return d.call("aten.gather.default",
                  {tensorArg(a, 0, "input", "gather"), needArg(a, 1, "dim", "gather"), tensorArg(a, 2, "index", "gather")});
  };
  t.push_back({"torch.gather", ir::NodeKind::CallFunction, gather});
  t.push_back({"gather", ir::NodeKind::CallMethod, gather});
  auto indexSelect = [](Dispatcher& d, const TArgs& a) {
    return d.call("aten.index_select.default", {tensorArg(a, 0, "input", "index_select"), needArg(a, 1, "dim", "index_select"),
                                                tensorArg(a, 2, "index", "index_select")});
  };
  t.push_back({"torch.index_select", ir::NodeKind::CallFunction, indexSelect});
  t.push_back({"index_select", ir::NodeKind::CallMethod, indexSelect});
  // clamp(input, min=None, max=None) / clip; clamp_min / clamp_max.
  auto clamp = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "clamp");
    const Val& lo = opt(a, 1, "min");
    const Val& hi = opt(a, 2, "max");
    if (lo.isTensor() || hi.isTensor()) {
      if (lo.isNone() && hi.isNone()) throw TorchError("RuntimeError", "torch.clamp: At least one of 'min' or 'max' must not be None");
      Val r = x;
      if (!lo.isNone()) r = d.call("aten.maximum.default", {r, lo});
      if (!hi.isNone()) r = d.call("aten.minimum.default", {r, hi});
      return r;
    }
    return d.call("aten.clamp.default", {x, lo, hi});
  };
  for (const char* n : {"clamp", "clip"}) {
    t.push_back({std::string("torch.") + n, ir::NodeKind::CallFunction, clamp});
    t.push_back({n, ir::NodeKind::CallMethod, clamp});
  }
  for (const char* n : {"clamp_min", "clamp_max"}) {
    std::string name = n;
    auto impl = [name](Dispatcher& d, const TArgs& a) {
      return d.call("aten." + name + ".default",
                    {tensorArg(a, 0, "input", name), needArg(a, 1, name == "clamp_min" ? "min" : "max", name)});
    };
    t.push_back({"torch." + name, ir::NodeKind::CallFunction, impl});
    t.push_back({name, ir::NodeKind::CallMethod, impl});
  }
}

}  // namespace kiln::torchapi
