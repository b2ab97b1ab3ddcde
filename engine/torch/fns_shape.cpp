// Torch-level shape and dtype functions: view/reshape/flatten, transpose/permute/t,
// expand/squeeze/unsqueeze, chunk/split/unbind, cat/stack, contiguous/clone, to/float/...
// Each decomposes the way AOTAutograd does: reshape is a view when the strides allow it and
// clone + _unsafe_view otherwise; stack is unsqueeze + cat; chunk/split are slices.
#include "engine/ops/shape_util.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::Shape;
using tensor::TorchError;

namespace {

int64_t ndimOf(const Val& v) { return static_cast<int64_t>(v.tensorType().sizes.size()); }

// Sizes given as varargs (x.view(2, 3)) or one sequence (x.view((2, 3))), from position `from`.
Val sizeArgs(const TArgs& a, size_t from, const std::string& kw) {
  if (a.args.size() == from + 1 && a.args[from].kind == Val::Kind::List) return a.args[from];
  if (a.args.size() <= from) {
    if (const Val* v = a.kw(kw)) return v->kind == Val::Kind::List ? *v : Val::listOf({*v});
    return Val::listOf({});
  }
  return Val::listOf(std::vector<Val>(a.args.begin() + static_cast<std::ptrdiff_t>(from), a.args.end()));
}

Val reshapeTo(Dispatcher& d, const Val& x, const Val& shape) {
  Shape s = shape.ints();
  if (ops::viewable(x, s)) return d.call("aten.view.default", {x, shape});
  // Not viewable: AOTAutograd's reshape copies to contiguous memory, then views.
  Val c = d.call("aten.clone.default", {x});
  return d.call("aten._unsafe_view.default", {c, shape});
}

Val flatten(Dispatcher& d, const Val& x, int64_t start, int64_t end) {
  int64_t nd = ndimOf(x);
  if (nd == 0) return reshapeTo(d, x, Val::listOf({Val::integer(1)}));
  start = ops::wrapDim(start, nd);
  end = ops::wrapDim(end, nd);
  if (start > end) throw TorchError("RuntimeError", "flatten() has invalid args: start_dim cannot come after end_dim");
  if (start == end) return x;
  Shape s = ops::sizesOf(x);
  std::vector<Val> shape;
  // The flattened dims' product: refused past int64 (an empty tensor's other dims may get there).
  const int64_t prod = tensor::checkedNumel(Shape(s.begin() + start, s.begin() + end + 1));
  for (int64_t i = 0; i < nd; ++i) {
    if (i < start || i > end) shape.push_back(Val::integer(s[i]));
    else if (i == end) shape.push_back(Val::integer(prod));
  }
  return reshapeTo(d, x, Val::listOf(shape));
}

// Slices of `x` along `dim` with the given sizes (split_with_sizes as core ATen decomposes it).
Val splitSizes(Dispatcher& d, const Val& x, const std::vector<int64_t>& sizes, int64_t dim) {
  std::vector<Val> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(d.call("aten.slice.Tensor", {x, Val::integer(dim), Val::integer(start), Val::integer(start + s), Val::integer(1)}));
    start += s;
  }
  return Val::listOf(out);
}

// x.repeat(*repeats) as PyTorch decomposes it: x viewed with a size-1 dim before each of its dims
// (padded with leading 1s to len(repeats)), expanded to the repeats, then copied into
// [r0*s0, r1*s1, ...]. Always a copy, as repeat is, even when every repeat is 1.
Val repeat(Dispatcher& d, const Val& x, const Shape& reps) {
  const Shape s = ops::sizesOf(x);
  if (reps.size() < s.size())
    throw TorchError("RuntimeError", "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const size_t pad = reps.size() - s.size();
  std::vector<Val> viewShape, expandShape, outShape;
  Shape out;
  for (size_t i = 0; i < reps.size(); ++i) {
    const int64_t si = i < pad ? 1 : s[i - pad];
    viewShape.push_back(Val::integer(1)), viewShape.push_back(Val::integer(si));
    expandShape.push_back(Val::integer(reps[i])), expandShape.push_back(Val::integer(si));
    out.push_back(reps[i] * si);
  }
  for (int64_t r : reps)
    if (r < 0)
      throw TorchError("RuntimeError",
                       "Trying to create tensor with negative dimension " + std::to_string(r) + ": " + tensor::shapeStr(out));
  for (int64_t o : out) outShape.push_back(Val::integer(o));
  const Val v = reshapeTo(d, x, Val::listOf(viewShape));  // size-1 dims inserted: a view
  const Val e = d.call("aten.expand.default", {v, Val::listOf(expandShape)});
  return d.call("aten.view.default", {d.call("aten.clone.default", {e}), Val::listOf(outShape)});
}

Val cat(Dispatcher& d, const Val& tensors, int64_t dim) {
  if (tensors.kind != Val::Kind::List) throw TorchError("TypeError", "cat(): argument 'tensors' must be tuple of Tensors");
  return d.call("aten.cat.default", {tensors, Val::integer(dim)});
}

}  // namespace

void registerShapeFns(std::vector<TorchFn>& t) {
  auto reshape = [](Dispatcher& d, const TArgs& a) { return reshapeTo(d, tensorArg(a, 0, "input", "reshape"), sizeArgs(a, 1, "shape")); };
  t.push_back({"reshape", ir::NodeKind::CallMethod, reshape});
  t.push_back({"torch.reshape", ir::NodeKind::CallFunction, reshape});
  t.push_back({"view", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 const Val* dt = a.get(1, "dtype");
                 if (dt && dt->kind == Val::Kind::DType && a.args.size() <= 2) {
                   if (dt->dtype == a.args.at(0).tensorType().dtype) return a.args[0];
                   return d.call("aten.view.dtype", {a.args[0], *dt});
                 }
                 return d.call("aten.view.default", {a.args.at(0), sizeArgs(a, 1, "size")});
               }});
  t.push_back({"view_as", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 Shape s = ops::sizesOf(tensorArg(a, 1, "other", "view_as"));
                 std::vector<Val> v;
                 for (auto x : s) v.push_back(Val::integer(x));
                 return d.call("aten.view.default", {a.args.at(0), Val::listOf(v)});
               }});
  t.push_back({"reshape_as", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 Shape s = ops::sizesOf(tensorArg(a, 1, "other", "reshape_as"));
                 std::vector<Val> v;
                 for (auto x : s) v.push_back(Val::integer(x));
                 return reshapeTo(d, a.args.at(0), Val::listOf(v));
               }});
  auto flattenFn = [](Dispatcher& d, const TArgs& a) {
    return flatten(d, tensorArg(a, 0, "input", "flatten"), intArg(a, 1, "start_dim", "flatten", 0), intArg(a, 2, "end_dim", "flatten", -1));
  };
  t.push_back({"flatten", ir::NodeKind::CallMethod, flattenFn});
  t.push_back({"torch.flatten", ir::NodeKind::CallFunction, flattenFn});

  auto transpose = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "transpose");
    return d.call("aten.transpose.int",
                  {x, Val::integer(intArg(a, 1, "dim0", "transpose", 0)), Val::integer(intArg(a, 2, "dim1", "transpose", 1))});
  };
  t.push_back({"transpose", ir::NodeKind::CallMethod, transpose});
  t.push_back({"torch.transpose", ir::NodeKind::CallFunction, transpose});
  t.push_back({"swapaxes", ir::NodeKind::CallMethod, transpose});
  auto tfn = [](Dispatcher& d, const TArgs& a) { return d.call("aten.t.default", {tensorArg(a, 0, "input", "t")}); };
  t.push_back({"t", ir::NodeKind::CallMethod, tfn});
  t.push_back({"torch.t", ir::NodeKind::CallFunction, tfn});
  auto permute = [](Dispatcher& d, const TArgs& a) {
    return d.call("aten.permute.default", {tensorArg(a, 0, "input", "permute"), sizeArgs(a, 1, "dims")});
  };
  t.push_back({"permute", ir::NodeKind::CallMethod, permute});
  t.push_back({"torch.permute", ir::NodeKind::CallFunction, permute});

  t.push_back({"expand", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 return d.call("aten.expand.default", {a.args.at(0), sizeArgs(a, 1, "size")});
               }});
  t.push_back({"repeat", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 return repeat(d, tensorArg(a, 0, "input", "repeat"), sizeArgs(a, 1, "repeats").ints());
               }});
  // tile: repeat with the dims padded by leading 1s to the tensor's dims.
  auto tile = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "tile");
    Shape reps = sizeArgs(a, 1, "dims").ints();
    const size_t nd = ops::sizesOf(x).size();
    if (reps.size() < nd) reps.insert(reps.begin(), nd - reps.size(), 1);
    return repeat(d, x, reps);
  };
  t.push_back({"tile", ir::NodeKind::CallMethod, tile});
  t.push_back({"torch.tile", ir::NodeKind::CallFunction, tile});
  t.push_back({"expand_as", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 Shape s = ops::sizesOf(tensorArg(a, 1, "other", "expand_as"));
                 std::vector<Val> v;
                 for (auto x : s) v.push_back(Val::integer(x));
                 return d.call("aten.expand.default", {a.args.at(0), Val::listOf(v)});
               }});
  auto squeeze = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "squeeze");
    const Val* dim = a.get(1, "dim");
    if (!dim || dim->isNone()) return d.call("aten.squeeze.default", {x});
    if (dim->kind == Val::Kind::List) return d.call("aten.squeeze.dims", {x, *dim});
    return d.call("aten.squeeze.dim", {x, *dim});
  };
  t.push_back({"squeeze", ir::NodeKind::CallMethod, squeeze});
  t.push_back({"torch.squeeze", ir::NodeKind::CallFunction, squeeze});
  auto unsqueeze = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "unsqueeze");
    return d.call("aten.unsqueeze.default", {x, Val::integer(intArg(a, 1, "dim", "unsqueeze", 0))});
  };
  t.push_back({"unsqueeze", ir::NodeKind::CallMethod, unsqueeze});
  t.push_back({"torch.unsqueeze", ir::NodeKind::CallFunction, unsqueeze});

  auto chunk = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "chunk");
    int64_t chunks = intArg(a, 1, "chunks", "chunk", -1);
    if (chunks <= 0) throw TorchError("RuntimeError", "chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
    int64_t nd = ndimOf(x);
    if (nd == 0) throw TorchError("RuntimeError", "chunk expects at least a 1-dimensional tensor");
    int64_t dim = ops::wrapDim(intArg(a, 2, "dim", "chunk", 0), nd);
    int64_t n = ops::sizesOf(x)[dim];
    int64_t each = n / chunks + (n % chunks != 0);  // ceil(n / chunks) without overflowing n + chunks
    std::vector<int64_t> sizes;
    if (each == 0) sizes.push_back(0);  // torch.chunk of an empty dim gives one empty chunk
    for (int64_t s = 0; each > 0 && s < n; s += each) sizes.push_back(std::min(each, n - s));
    return splitSizes(d, x, sizes, dim);
  };
  t.push_back({"chunk", ir::NodeKind::CallMethod, chunk});
  t.push_back({"torch.chunk", ir::NodeKind::CallFunction, chunk});
  auto split = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "split");
    const Val& spec = needArg(a, 1, "split_size_or_sections", "split");
    int64_t nd = ndimOf(x);
    if (nd == 0) throw TorchError("RuntimeError", "split expects at least a 1-dimensional tensor");
    int64_t dim = ops::wrapDim(intArg(a, 2, "dim", "split", 0), nd);
    int64_t n = ops::sizesOf(x)[dim];
    std::vector<int64_t> sizes;
    if (spec.kind == Val::Kind::List) {
      sizes = spec.ints();
      for (auto s : sizes)
        if (s < 0)
          throw TorchError("RuntimeError", "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=" +
                                               tensor::shapeStr(sizes));
      int64_t total = 0;
      bool overflow = false;
      for (auto s : sizes) overflow |= __builtin_add_overflow(total, s, &total);
      if (overflow || total != n)
        throw TorchError("RuntimeError", "split_with_sizes expects split_sizes to sum exactly to " + std::to_string(n) +
                                             " (input tensor's size at dimension " + std::to_string(dim) +
                                             "), but got split_sizes=" + tensor::shapeStr(sizes));
    } else {
      int64_t each = spec.i;
      if (each <= 0 && !(each == 0 && n == 0))
        throw TorchError("RuntimeError", "split_size can only be 0 if dimension size is 0, but got dimension size of " + std::to_string(n));
      if (n == 0) sizes.push_back(0);
      for (int64_t s = 0; s < n; s += each) sizes.push_back(std::min(each, n - s));
    }
    return splitSizes(d, x, sizes, dim);
  };
  t.push_back({"split", ir::NodeKind::CallMethod, split});
  t.push_back({"torch.split", ir::NodeKind::CallFunction, split});
  auto unbind = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "unbind");
    int64_t nd = ndimOf(x);
    if (nd == 0) throw TorchError("IndexError", "Dimension specified as 0 but tensor has no dimensions");
    int64_t dim = ops::wrapDim(intArg(a, 1, "dim", "unbind", 0), nd);
    std::vector<Val> out;
    for (int64_t i = 0; i < ops::sizesOf(x)[dim]; ++i) out.push_back(d.call("aten.select.int", {x, Val::integer(dim), Val::integer(i)}));
    return Val::listOf(out);
  };
  t.push_back({"unbind", ir::NodeKind::CallMethod, unbind});
  t.push_back({"torch.unbind", ir::NodeKind::CallFunction, unbind});
  auto select = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "select");
    return d.call("aten.select.int", {x, Val::integer(intArg(a, 1, "dim", "select", 0)), Val::integer(intArg(a, 2, "index", "select", 0))});
  };
  t.push_back({"select", ir::NodeKind::CallMethod, select});
  t.push_back({"torch.select", ir::NodeKind::CallFunction, select});
  auto narrow = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "narrow");
    int64_t nd = ndimOf(x);
    if (nd == 0) throw TorchError("RuntimeError", "narrow() cannot be applied to a 0-dim tensor.");
    int64_t dim = ops::wrapDim(intArg(a, 1, "dim", "narrow", 0), nd);
    int64_t start = intArg(a, 2, "start", "narrow", 0), len = intArg(a, 3, "length", "narrow", 0);
    int64_t n = ops::sizesOf(x)[dim];
    if (start < 0) start += n;
    // start + len is not computed before it is known to fit (a huge length overflows it).
    if (start < 0 || start > n || len < 0 || len > n - start)
      throw TorchError("RuntimeError", "start (" + std::to_string(start) + ") + length (" + std::to_string(len) +
                                           ") exceeds dimension size (" + std::to_string(n) + ").");
    return d.call("aten.slice.Tensor", {x, Val::integer(dim), Val::integer(start), Val::integer(start + len), Val::integer(1)});
  };
  t.push_back({"narrow", ir::NodeKind::CallMethod, narrow});
  t.push_back({"torch.narrow", ir::NodeKind::CallFunction, narrow});

  auto catFn = [](Dispatcher& d, const TArgs& a) { return cat(d, needArg(a, 0, "tensors", "cat"), intArg(a, 1, "dim", "cat", 0)); };
  t.push_back({"torch.cat", ir::NodeKind::CallFunction, catFn});
  t.push_back({"torch.concat", ir::NodeKind::CallFunction, catFn});
  t.push_back({"torch.concatenate", ir::NodeKind::CallFunction, catFn});
  t.push_back({"torch.stack", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& ts = needArg(a, 0, "tensors", "stack");
                 if (ts.kind != Val::Kind::List) throw TorchError("TypeError", "stack(): argument 'tensors' must be tuple of Tensors");
                 if (ts.list.empty()) throw TorchError("RuntimeError", "stack expects a non-empty TensorList");
                 Shape first = ops::sizesOf(ts.list[0]);
                 for (size_t i = 1; i < ts.list.size(); ++i)
                   if (ops::sizesOf(ts.list[i]) != first)
                     throw TorchError("RuntimeError", "stack expects each tensor to be equal size, but got " + tensor::shapeStr(first) +
                                                          " at entry 0 and " + tensor::shapeStr(ops::sizesOf(ts.list[i])) + " at entry " +
                                                          std::to_string(i));
                 int64_t nd = static_cast<int64_t>(first.size());
                 int64_t dim = intArg(a, 1, "dim", "stack", 0);
                 if (dim < -nd - 1 || dim > nd)
                   throw TorchError("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-nd - 1) + ", " +
                                                      std::to_string(nd) + "], but got " + std::to_string(dim) + ")");
                 if (dim < 0) dim += nd + 1;
                 std::vector<Val> parts;
                 for (const auto& x : ts.list) parts.push_back(d.call("aten.unsqueeze.default", {x, Val::integer(dim)}));
                 return d.call("aten.cat.default", {Val::listOf(parts), Val::integer(dim)});
               }});

  t.push_back({"to", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 const Val* dt = a.get(1, "dtype");
                 if (dt && dt->kind == Val::Kind::String) dt = a.get(2, "dtype");  // .to("cpu", torch.float64)
                 if (dt && dt->isTensor()) {                                       // .to(other): other's dtype
                   Val other = Val::dtypeVal(dt->tensorType().dtype);
                   if (a.args.at(0).tensorType().dtype == other.dtype) return a.args[0];
                   return d.call("prims.convert_element_type.default", {a.args[0], other});
                 }
                 if (!dt || dt->isNone()) {
                   if (a.get(1, "device")) return a.args.at(0);  // .to("cpu") / .to(device=...)
                   throw TorchError("TypeError", "to() received an invalid combination of arguments");
                 }
                 if (dt->kind != Val::Kind::DType) throw TorchError("TypeError", "to() received an invalid combination of arguments");
                 if (a.args.at(0).tensorType().dtype == dt->dtype) return a.args[0];
                 return d.call("prims.convert_element_type.default", {a.args[0], *dt});
               }});
  t.push_back({"type_as", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 ir::DType dt = tensorArg(a, 1, "other", "type_as").tensorType().dtype;
                 if (a.args.at(0).tensorType().dtype == dt) return a.args[0];
                 return d.call("prims.convert_element_type.default", {a.args[0], Val::dtypeVal(dt)});
               }});
  for (ir::DType dt : ir::allDTypes()) {  // x.float(), x.half(), x.byte() ...
    std::string name(ir::tensorMethodName(dt));
    t.push_back({name, ir::NodeKind::CallMethod, [dt](Dispatcher& d, const TArgs& a) {
                   if (a.args.at(0).tensorType().dtype == dt) return a.args[0];
                   return d.call("prims.convert_element_type.default", {a.args[0], Val::dtypeVal(dt)});
                 }});
  }
  auto clone = [](Dispatcher& d, const TArgs& a) { return d.call("aten.clone.default", {tensorArg(a, 0, "input", "clone")}); };
  t.push_back({"clone", ir::NodeKind::CallMethod, clone});
  t.push_back({"torch.clone", ir::NodeKind::CallFunction, clone});
  // contiguous() is the identity on contiguous tensors and a copy otherwise.
  // memory_format=torch.channels_last: the NHWC copy (a permuted contiguous clone, viewed back
  // as NCHW), unless x already is channels-last contiguous.
  t.push_back({"contiguous", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = a.args.at(0);
                 ops::Geom g = ops::geomOf(x);
                 const Val& format = opt(a, 1, "memory_format");
                 if (format.kind == Val::Kind::String && format.s == "torch.preserve_format")
                   throw TorchError("RuntimeError", "preserve memory format is unsupported by the contiguous operator");
                 if (format.kind == Val::Kind::String && format.s == "torch.channels_last") {
                   if (g.sizes.size() != 4) throw TorchError("RuntimeError", "required rank 4 tensor to use channels_last format");
                   if (ops::isChannelsLastContiguous(g.sizes, g.strides)) return x;
                   auto perm = [](std::initializer_list<int64_t> p) {
                     std::vector<Val> v;
                     for (int64_t i : p) v.push_back(Val::integer(i));
                     return Val::listOf(v);
                   };
                   Val nhwc = d.call("aten.clone.default", {d.call("aten.permute.default", {x, perm({0, 2, 3, 1})})});
                   return d.call("aten.permute.default", {nhwc, perm({0, 3, 1, 2})});
                 }
                 if (ops::isContiguousGeom(g.sizes, g.strides)) return x;
                 return d.call("aten.clone.default", {x});
               }});
}

}  // namespace kiln::torchapi
