// Tensor values in the interpreter: operators, attributes and methods, indexing, printing.
#include "engine/torch/tensor_protocol.h"

#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/ops/device_dispatch.h"
#include "engine/ops/index_ops.h"
#include "engine/ops/shape_util.h"
#include "engine/torch/autograd_methods.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"
#include "engine/torch/device_api.h"
#include "engine/torch/indexing.h"
#include "engine/torch/inplace.h"
#include "engine/torch/tensor_format.h"
#include "engine/torch/unbacked.h"

#include <map>
#include <set>

namespace kiln::torchapi {

using tensor::forEachIndex;

using py::Value;
using py::VK;

namespace {

py::TensorObj* asTensor(const Value& v) { return py::as<py::TensorObj>(v); }

const std::map<std::string, std::string> kOperators = {
    {"+", "add"},  {"-", "sub"}, {"*", "mul"}, {"/", "truediv"},   {"%", "mod"},     {"**", "pow"},
    {"<", "lt"},   {"<=", "le"}, {">", "gt"},  {">=", "ge"},       {"==", "eq"},     {"!=", "ne"},
    {"&", "and_"}, {"|", "or_"}, {"^", "xor"}, {"//", "floordiv"}, {"<<", "lshift"}, {">>", "rshift"}};

bool isOperand(const Value& v) { return v->kind == VK::Tensor || v->kind == VK::Int || v->kind == VK::Float || v->kind == VK::Bool; }

[[noreturn]] void breakOn(py::Interpreter& in, std::string code, std::string title, std::string explanation,
                          std::vector<std::string> hints = {}) {
  py::GraphBreak u(std::move(code), std::move(title), std::move(explanation), std::move(hints));
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

Value shapeTuple(const ir::TensorType& t) {
  std::vector<Value> dims;
  for (const auto& d : t.sizes) dims.push_back(py::makeInt(d.value));
  return py::makeTorchSize(std::move(dims));
}

int64_t normDim(py::Interpreter& in, int64_t d, int64_t nd) {
  int64_t n = std::max<int64_t>(nd, 1);
  if (d < -n || d >= n)
    in.raise("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " + std::to_string(n - 1) +
                               "], but got " + std::to_string(d) + ")");
  return d < 0 ? d + nd : d;
}

}  // namespace

Value tensorBinary(py::Interpreter& in, const std::string& opIn, const Value& a, const Value& b) {
  if (!isOperand(a) || !isOperand(b)) return nullptr;
  std::string op = opIn;
  bool inplace = op.size() >= 2 && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=";
  if (inplace) op.pop_back();
  if (op == "@") {
    py::CallArgs mm;
    mm.args = {a, b};
    return callTorch(in, "_operator.matmul", ir::NodeKind::CallFunction, mm);
  }
  auto it = kOperators.find(op);
  if (it == kOperators.end()) return nullptr;
  py::CallArgs args;
  args.args = {a, b};
  // x += y mutates x (every alias sees it), as Tensor.__iadd__ does. While capturing it is an
  // in-place node (`operator.iadd(l_x_, l_y_)`) that lowering functionalizes like x.add_(y).
  if (inplace && a->kind == VK::Tensor && in.tracer)
    if (Value fake = tracerOf(in)->fakeOf(a)) {
      std::string name = it->second;
      if (name.back() == '_') name.pop_back();  // and_ -> iand, as Python's operator module names it
      inplaceOperator(in, "_operator.i" + name, fake, b);
      // `x` keeps naming the same object: a real tensor the function reached stays itself (its
      // later reads are the graph input, which lowering updates); never a fake in a real scope.
      return a;
    }
  Value r = callTorch(in, "_operator." + it->second, ir::NodeKind::CallFunction, args);
  if (inplace && a->kind == VK::Tensor) return inplaceAssign(in, a, r);
  return r;
}

Value tensorUnary(py::Interpreter& in, const std::string& op, const Value& a) {
  py::CallArgs args;
  args.args = {a};
  if (op == "-") return callTorch(in, "_operator.neg", ir::NodeKind::CallFunction, args);
  if (op == "+") return a;
  if (op == "~") return callTorch(in, "_operator.invert", ir::NodeKind::CallFunction, args);
  return nullptr;
}

Value tensorGetAttr(py::Interpreter& in, const Value& t, const std::string& name) {
  auto* tv = asTensor(t);
  ir::TensorType ty = tv->tensorType();
  if (tv->attrs)
    if (Value v = tv->attrs->getStr(name)) return v;  // set by the program (x.tag = 3)
  if (name == "shape") return in.tracer && tv->fake ? tracerOf(in)->symbolicSizes(t, shapeTuple(ty)) : shapeTuple(ty);
  if (name == "dtype") return std::make_shared<py::DTypeObj>(ty.dtype);
  if (name == "ndim") return py::makeInt(static_cast<int64_t>(ty.sizes.size()));
  if (name == "device" || name == "is_cuda" || name == "is_cpu" || name == "get_device") {
    // A fake tensor's device is its type's (FakeTensor's device propagation).
    tensor::Device d = tv->fake ? ops::parseDeviceString(ty.device) : tv->t.device();
    if (name == "device") return makeDevice(in, d);
    if (name == "is_cuda") return py::makeBool(d.isCuda());
    if (name == "is_cpu") return py::makeBool(d.isCpu());
    return py::makeBuiltin("Tensor.get_device", [d](py::Interpreter&, py::CallArgs&) { return py::makeInt(d.isCpu() ? -1 : d.index); });
  }
  if (name == "to" || name == "cuda" || name == "cpu")
    return py::makeBuiltin("Tensor." + name, [t, name](py::Interpreter& in, py::CallArgs& a) { return tensorTo(in, t, name, a); });
  if (Value v = autogradAttr(in, t, name)) return v;  // requires_grad, grad, backward, detach ...
  if (Value v = inplaceMethod(t, name)) return v;     // add_, copy_, zero_ ...
  if (name == "T" || name == "mT") {
    // x.T reverses every dim (x.mT the last two): a permute view.
    int64_t nd = static_cast<int64_t>(ty.sizes.size());
    if (name == "mT" && nd < 2)
      in.raise("RuntimeError", "tensor.mT is only supported on matrices or batches of matrices. Got " + std::to_string(nd) + "-D tensor.");
    std::vector<Value> perm;
    for (int64_t i = 0; i < nd; ++i)
      perm.push_back(py::makeInt(name == "T" ? nd - 1 - i : (i < nd - 2 ? i : (i == nd - 2 ? nd - 1 : nd - 2))));
    py::CallArgs args;
    args.args = {t, py::makeTuple(std::move(perm))};
    return callTorch(in, "permute", ir::NodeKind::CallMethod, args);
  }
  if (name == "is_floating_point")
    return py::makeBuiltin("Tensor.is_floating_point",
                           [t](py::Interpreter&, py::CallArgs&) { return py::makeBool(ir::isFloating(asTensor(t)->tensorType().dtype)); });
  if (name == "element_size")
    return py::makeBuiltin("Tensor.element_size", [t](py::Interpreter&, py::CallArgs&) {
      return py::makeInt(static_cast<int64_t>(ir::itemSize(asTensor(t)->tensorType().dtype)));
    });
  if (name == "itemsize") return py::makeInt(static_cast<int64_t>(ir::itemSize(ty.dtype)));
  if (name == "nelement" || name == "ndimension")
    return py::makeBuiltin("Tensor." + name, [t, name](py::Interpreter&, py::CallArgs&) {
      ir::TensorType ty = asTensor(t)->tensorType();
      return py::makeInt(name == "nelement" ? ty.numel() : static_cast<int64_t>(ty.sizes.size()));
    });
  if (name == "stride" || name == "storage_offset")
    return py::makeBuiltin("Tensor." + name, [t, name](py::Interpreter& in, py::CallArgs& a) -> Value {
      auto* x = asTensor(t);
      tensor::Shape strides;
      int64_t offset = 0;
      if (x->fake) {
        ir::TensorType ty = x->tensorType();
        tensor::Shape sizes;
        for (auto& d : ty.sizes) sizes.push_back(d.value);
        if (ty.strides.size() == ty.sizes.size() && !ty.strides.empty())
          for (auto& d : ty.strides) strides.push_back(d.value);
        else strides = tensor::Tensor::contiguousStrides(sizes);
      } else {
        strides = x->t.strides();
        offset = x->t.offset();
      }
      if (name == "storage_offset") return py::makeInt(offset);
      if (a.args.empty()) {
        std::vector<Value> v;
        for (auto s : strides) v.push_back(py::makeInt(s));
        return py::makeTuple(std::move(v));
      }
      if (a.args[0]->kind != VK::Int) in.raise("TypeError", "stride(): argument 'dim' must be int");
      int64_t d = normDim(in, py::as<py::IntObj>(a.args[0])->small(), static_cast<int64_t>(strides.size()));
      return py::makeInt(strides[static_cast<size_t>(d)]);
    });
  std::string n = name;
  Value self = t;
  if (name == "size")
    return py::makeBuiltin("Tensor.size", [self](py::Interpreter& in, py::CallArgs& a) -> Value {
      ir::TensorType ty = asTensor(self)->tensorType();
      const bool traced = in.tracer && asTensor(self)->fake;
      if (a.args.empty()) return traced ? tracerOf(in)->symbolicSizes(self, shapeTuple(ty)) : shapeTuple(ty);
      if (a.args[0]->kind != VK::Int) in.raise("TypeError", "size(): argument 'dim' must be int");
      int64_t d = normDim(in, py::as<py::IntObj>(a.args[0])->small(), static_cast<int64_t>(ty.sizes.size()));
      Value size = py::makeInt(ty.sizes[static_cast<size_t>(d)].value);
      return traced ? tracerOf(in)->symbolicSize(self, d, size) : size;
    });
  if (name == "dim")
    return py::makeBuiltin("Tensor.dim", [self](py::Interpreter&, py::CallArgs&) {
      return py::makeInt(static_cast<int64_t>(asTensor(self)->tensorType().sizes.size()));
    });
  if (name == "numel")
    return py::makeBuiltin("Tensor.numel", [self](py::Interpreter& in, py::CallArgs&) {
      Value n = py::makeInt(asTensor(self)->tensorType().numel());
      return in.tracer && asTensor(self)->fake ? tracerOf(in)->symbolicNumel(self, n) : n;
    });
  if (name == "is_contiguous")
    return py::makeBuiltin("Tensor.is_contiguous", [self](py::Interpreter& in, py::CallArgs& a) {
      auto* x = asTensor(self);
      Value format = !a.args.empty() ? a.args[0] : a.kwarg("memory_format");
      const std::string fmt = format && !py::isNone(format) ? in.repr(format) : "torch.contiguous_format";
      if (fmt == "torch.preserve_format") in.raise("RuntimeError", "is_contiguous(): preserve memory format is not supported");
      // A fake tensor's strides are its type's (none recorded: contiguous). A permuted input
      // is not contiguous while capturing either.
      ops::Geom g = x->fake ? ops::geomOf(ops::Val::sym(x->tensorType(), 0)) : ops::Geom{x->t.sizes(), x->t.strides(), 0};
      if (fmt == "torch.channels_last") return py::makeBool(ops::isChannelsLastContiguous(g.sizes, g.strides));
      if (fmt == "torch.channels_last_3d") return py::False();
      return py::makeBool(x->fake ? ops::isContiguousGeom(g.sizes, g.strides) : x->t.isContiguous());
    });
  if (name == "item")
    return py::makeBuiltin("Tensor.item", [self](py::Interpreter& in, py::CallArgs&) -> Value {
      auto* x = asTensor(self);
      if (x->fake || (in.tracer && tracerOf(in)->dependsOnInputs(self))) {
        Value cap = dynamoConfig(in, "capture_scalar_outputs");
        const bool fullgraph = in.tracer && tracerOf(in)->fullgraph;
        const bool capture = fullgraph || (cap && in.truthy(cap));  // fullgraph=True captures it too
        const ir::TensorType ty = x->tensorType();
        const int64_t numel = ty.numel();
        std::string size;  // Python's repr of the size tuple: (2,) or (2, 3)
        for (size_t d = 0; d < ty.sizes.size(); ++d) size += (d ? ", " : "") + std::to_string(ty.sizes[d].value);
        if (ty.sizes.size() == 1) size += ",";
        if (capture && numel != 1)
          // Dynamo runs the item node on the fake tensor, which fails as eager would: raised, not a break.
          in.raise("TorchRuntimeError",
                   "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX node with fake tensors: "
                   "call_method item(*(FakeTensor(..., size=(" +
                       size + ")),), **{}): got RuntimeError('a Tensor with " + std::to_string(numel) +
                       " elements cannot be converted to Scalar')");
        if (fullgraph && ty.dtype != ir::DType::Bool) {
          Value u = tracerOf(in)->makeUnbacked(ir::isFloating(ty.dtype));
          // Where it is read from: a frame that returns the scalar hands it on from the graph.
          py::as<py::InstanceObj>(u)->dict->setStr("_item_of", self);
          return u;
        }
        if (capture) {
          // Dynamo captures the scalar as an unbacked symbol; Kiln cannot yet: it breaks here
          // (and under fullgraph=True runs the frame eagerly) rather than fail the program.
          py::GraphBreak u("KB033", "Tensor.item() with capture_scalar_outputs=True",
                           "Dynamo captures Tensor.item() into the graph when config.capture_scalar_outputs is set; "
                           "Kiln does not yet, so the frame breaks here.");
          u.kilnLimitation = true;
          u.where = in.currentLocation();
          u.stack = in.userStack();
          throw u;
        }
        breakOn(in, "KB003", "Unsupported Tensor.item() call with capture_scalar_outputs=False",
                "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
                {"Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` "
                 "to include these operations in the captured graph."});
      }
      if (x->t.numel() != 1)
        in.raise("RuntimeError", "a Tensor with " + std::to_string(x->t.numel()) + " elements cannot be converted to Scalar");
      const tensor::Tensor h = onHost(in, x->t);  // a CUDA tensor's element is copied back (a sync, as in PyTorch)
      double v = h.loadAt(0);
      if (h.dtype() == ir::DType::Bool) return py::makeBool(v != 0);
      if (!ir::isFloating(h.dtype())) return py::makeInt(h.loadIntAt(0));
      return py::makeFloat(v);
    });
  if (name == "tolist")
    return py::makeBuiltin("Tensor.tolist", [self](py::Interpreter& in, py::CallArgs&) -> Value {
      auto* x = asTensor(self);
      if (x->fake || (in.tracer && tracerOf(in)->dependsOnInputs(self))) {
        const ir::DType dt = x->tensorType().dtype;
        if (ir::isFloating(dt) || dt == ir::DType::Bool)
          breakOn(in, "KB005", "Tensor.tolist() with non-integer tensor",
                  "Dynamo currently does not support tracing `tolist()` on non-integer tensors.",
                  {"Ensure the input tensor to `tolist()` is an integer type (e.g., int8, int16, int32, int64)."});
        // An integer tensor's elements are read one by one (aten._local_scalar_dense): captured as
        // unbacked SymInts under fullgraph=True or capture_scalar_outputs, which Kiln cannot yet.
        Value cap = dynamoConfig(in, "capture_scalar_outputs");
        if ((in.tracer && tracerOf(in)->fullgraph) || (cap && in.truthy(cap))) unbackedLimitation(in, "Tensor.tolist()");
        breakOn(in, "KB007", "Data dependent operator",
                "Operator `aten._local_scalar_dense.default` has a non-Tensor output whose value is dependent on the data of "
                "Tensor inputs.",
                {"Enable tracing of data-dependent output operators with `torch._dynamo.config.capture_scalar_outputs = True`"});
      }
      // One Python object per element: a broadcast view of 2**31 elements must be a
      // MemoryError, not a list that exhausts the machine.
      // The nested lists count too: an empty [2**62, 5, 0] is 6 * 2**62 lists (saturating count).
      uint64_t objects = static_cast<uint64_t>(x->t.numel()), lists = 1;
      for (int64_t d = 0; d + 1 < x->t.dim() && x->t.sizes()[d] != 0; ++d)
        if (__builtin_mul_overflow(lists, static_cast<uint64_t>(x->t.sizes()[d]), &lists) ||
            __builtin_add_overflow(objects, lists, &objects))
          objects = UINT64_MAX / 64;
      in.checkAllocation(std::min<uint64_t>(objects, UINT64_MAX / 64) * 64);
      // An empty tensor's lists hold no element: made from its sizes alone (its strides, which may
      // be huge, never address anything).
      std::function<Value(size_t)> emptyLists = [&](size_t d) -> Value {
        std::vector<Value> items;
        if (d + 1 < x->t.sizes().size())
          for (int64_t i = 0; i < x->t.sizes()[d]; ++i) items.push_back(emptyLists(d + 1));
        return py::makeList(items);
      };
      if (x->t.numel() == 0 && x->t.dim() > 0) return emptyLists(0);
      std::function<Value(tensor::Tensor)> rec = [&](tensor::Tensor t) -> Value {
        if (t.dim() == 0) {
          if (t.dtype() == ir::DType::Bool) return py::makeBool(t.loadAt(0) != 0);
          if (!ir::isFloating(t.dtype())) return py::makeInt(t.loadIntAt(0));
          return py::makeFloat(t.loadAt(0));
        }
        std::vector<Value> items;
        for (int64_t i = 0; i < t.sizes()[0]; ++i) {
          tensor::Shape s(t.sizes().begin() + 1, t.sizes().end()), st(t.strides().begin() + 1, t.strides().end());
          items.push_back(rec(t.view(s, st, t.offset() + i * t.strides()[0])));
        }
        return py::makeList(items);
      };
      return rec(onHost(in, x->t));
    });
  if (name == "__len__")  // len(t): the size of dim 0, as the builtin computes it
    return py::makeBuiltin("Tensor.__len__", [self](py::Interpreter& in, py::CallArgs& a) -> Value {
      if (!a.args.empty() || !a.kwargs.empty())
        in.raise("TypeError", "__len__() takes no arguments (" + std::to_string(a.args.size() + a.kwargs.size()) + " given)");
      py::CallArgs c;
      c.args = {self};
      return in.call(in.builtin("len"), c);
    });
  if (name == "is_inference")
    return py::makeBuiltin("Tensor.is_inference", [self](py::Interpreter& in, py::CallArgs&) -> Value {
      auto* x = asTensor(self);
      if (x->fake || (in.tracer && tracerOf(in)->dependsOnInputs(self)))
        breakOn(in, "KB009", "Encountered tensor.is_inference() during tracing", "tensor.is_inference() is not supported",
                {"This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider "
                 "finding a workaround.",
                 "Avoid using `tensor.is_inference()` and `torch.is_inference_mode_enabled()` in your compile code. This is primarily "
                 "used in conjunction with `torch.inference_mode`. Consider using `torch.no_grad` instead because `torch.no_grad` leads "
                 "to same improvements as `inference_mode` when `torch.compile` is used."});
      return py::makeBool(x->t.isInference());
    });
  if (name == "new_tensor")  // torch.tensor(data) with self's dtype (and device) unless dtype= is given
    return py::makeBuiltin("Tensor.new_tensor", [self](py::Interpreter& in, py::CallArgs& a) -> Value {
      if (!a.kwarg("device") || py::isNone(a.kwarg("device"))) {
        auto* x = asTensor(self);
        tensor::Device d = x->fake ? ops::parseDeviceString(x->type.device) : x->t.device();
        if (!d.isCpu()) {
          std::erase_if(a.kwargs, [](const auto& kv) { return kv.first == "device"; });
          a.kwargs.emplace_back("device", makeDevice(in, d));
        }
      }
      py::CallArgs c = a;
      if (!c.kwarg("dtype") || py::isNone(c.kwarg("dtype"))) {
        std::erase_if(c.kwargs, [](const auto& kv) { return kv.first == "dtype"; });
        c.kwargs.emplace_back("dtype", std::make_shared<py::DTypeObj>(asTensor(self)->tensorType().dtype));
      }
      std::erase_if(c.kwargs, [](const auto& kv) { return kv.first == "pin_memory"; });
      Value tensorFn = in.importModule("torch")->scope->vars.at("tensor");
      return in.call(tensorFn, c);
    });
  if (n.rfind("new_", 0) == 0 && findTorchFn(n, ir::NodeKind::CallMethod))
    // new_zeros / new_ones / new_full / new_empty: on self's device unless device= says another.
    return py::makeBuiltin("Tensor." + n, [self, n](py::Interpreter& in, py::CallArgs& a) {
      Value fn = py::makeBuiltin("Tensor." + n,
                                 [n](py::Interpreter& in, py::CallArgs& c) { return callTorch(in, n, ir::NodeKind::CallMethod, c); });
      py::CallArgs c = a;
      c.args.insert(c.args.begin(), self);
      return deviceFactoryCall(in, fn, c, true, false);
    });
  if (findTorchFn(n, ir::NodeKind::CallMethod))
    return py::makeBuiltin("Tensor." + n, [self, n](py::Interpreter& in, py::CallArgs& a) {
      a.args.insert(a.args.begin(), self);
      return callTorch(in, n, ir::NodeKind::CallMethod, a);
    });
  return nullptr;
}

namespace {

// The Python index as the Val encoding _operator.getitem takes (see fns_index.cpp): tuples
// become lists, slices ["slice", start, stop, step], Ellipsis "...", Python lists of ints or
// bools index tensors.
ops::Val indexVal(py::Interpreter& in, const Value& i, bool top) {
  switch (i->kind) {
    case VK::Tuple: {
      if (!top) in.raise("IndexError", "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices");
      std::vector<ops::Val> items;
      for (auto& x : py::as<py::TupleObj>(i)->items) items.push_back(indexVal(in, x, false));
      return ops::Val::listOf(std::move(items));
    }
    case VK::Slice: {
      auto* s = py::as<py::SliceObj>(i);
      auto part = [&](const Value& v) {
        if (py::isNone(v)) return ops::Val::none();
        if (v->kind == VK::Int || v->kind == VK::Bool) return toVal(in, v);
        if (v->kind == VK::Tensor && !py::as<py::TensorObj>(v)->fake && py::as<py::TensorObj>(v)->t.numel() == 1)
          return ops::Val::integer(py::as<py::TensorObj>(v)->t.loadIntAt(0));
        in.raise("TypeError", "slice indices must be integers or None or have an __index__ method");
      };
      return ops::Val::listOf({ops::Val::string("slice"), part(s->start), part(s->stop), part(s->step)});
    }
    case VK::Ellipsis: return ops::Val::string("...");
    case VK::List: {
      std::vector<Value> items = py::as<py::ListObj>(i)->items;
      bool allBool = !items.empty();
      for (auto& x : items) {
        if (x->kind != VK::Int && x->kind != VK::Bool)
          notSupported(in, "indexing with a nested or non-integer list is not supported by Kiln yet");
        allBool = allBool && x->kind == VK::Bool;
      }
      tensor::Tensor t = tensor::Tensor::empty({static_cast<int64_t>(items.size())}, allBool ? ir::DType::Bool : ir::DType::Int64);
      for (size_t k = 0; k < items.size(); ++k)
        t.storeIntAt(static_cast<int64_t>(k),
                     items[k]->kind == VK::Bool ? py::as<py::BoolObj>(items[k])->v : py::as<py::IntObj>(items[k])->small());
      return ops::Val::of(t);
    }
    case VK::Int:
    case VK::Bool:
    case VK::None:
    case VK::Tensor: return toVal(in, i);
    default:
      in.raise("IndexError", "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got " +
                                 py::typeName(i) + ")");
  }
}

}  // namespace

Value tensorSubscript(py::Interpreter& in, const Value& t, const Value& index) {
  const TorchFn* fn = findTorchFn("_operator.getitem", ir::NodeKind::CallFunction);
  TArgs ta;
  ta.args = {toVal(in, t), indexVal(in, index, true)};
  bool fake = asTensor(t)->fake;
  for (const auto& v : ta.args[1].kind == ops::Val::Kind::List ? ta.args[1].list : std::vector<ops::Val>{ta.args[1]})
    fake = fake || v.kind == ops::Val::Kind::Sym;
  // While capturing, a real tensor the function reaches through its inputs is a graph input
  // (as callTorch treats it): the indexing is recorded.
  if (!fake && in.tracer && tracerOf(in)->hasSource(t)) {
    fake = true;
    ta.args[0] = ops::Val::sym(asTensor(t)->t.type());
  }
  try {
    if (fake) {
      // Recorded as Dynamo does: one _operator.getitem node taking the Python index.
      if (!in.tracer) in.raise("RuntimeError", "internal error: fake tensor outside capture");
      tracerOf(in)->onTensorIndex(t, index);
      ops::MetaDispatcher meta;
      ops::Val r = fn->impl(meta, ta);
      return tracerOf(in)->record("_operator.getitem", ir::NodeKind::CallFunction, {t, index}, {}, r.tensorType());
    }
    ops::EagerDispatcher eager;
    return fromVal(in, fn->impl(eager, ta));
  } catch (const tensor::TorchError& e) { rethrow(in, e); }
}

namespace {

// t[index] = src with autograd recording (t or src requires grad): the new value of all of t is
// index_put over t's flattened elements at the element numbers the index selects, written back
// into t with t's grad_fn rebased onto it (as inplace ops do), so t's gradient is zero where it
// was overwritten and src gets the gradient of the positions it was written to.
void setSubscriptTracked(py::Interpreter& in, const Value& t, const Value& index, const tensor::Tensor& src) {
  using ops::Val;
  const tensor::Tensor& base = asTensor(t)->t;
  ops::EagerDispatcher d;
  auto shapeVal = [](const tensor::Shape& s) {
    std::vector<Val> v;
    for (int64_t x : s) v.push_back(Val::integer(x));
    return Val::listOf(v);
  };
  auto flat = [&](const Val& x) { return d.call("aten.view.default", {d.call("aten.clone.default", {x}), shapeVal({-1})}); };
  const int64_t n = base.numel();
  Val iota = d.call("aten.arange.start_step", {Val::integer(0), Val::integer(n), Val::integer(1), Val::dtypeVal(ir::DType::Int64)});
  // On a CUDA tensor the element numbers live beside it (arange makes them on the CPU), so the
  // index, on that device too, can pick from them.
  if (!base.isCpu()) iota = d.call(ops::kToDeviceOp, {iota, Val::string(base.device().str())});
  Val positions = d.call("aten.view.default", {iota, shapeVal(base.sizes())});
  Value selected = tensorSubscript(in, py::makeTensor(positions.t), index);
  const tensor::Tensor& sel = asTensor(selected)->t;
  Val values = Val::of(src);
  if (src.dtype() != base.dtype()) values = d.call("prims.convert_element_type.default", {values, Val::dtypeVal(base.dtype())});
  // A number (a CPU scalar) assigned into a CUDA tensor goes there first, as copy_ would take it.
  if (!base.isCpu() && src.isCpu() && src.dim() == 0) values = d.call(ops::kToDeviceOp, {values, Val::string(base.device().str())});
  values = d.call("aten.expand.default", {values, shapeVal(sel.sizes())});
  Val updated =
      d.call("aten.index_put.default", {flat(Val::of(base)), Val::listOf({flat(Val::of(sel))}), flat(values), Val::boolean(false)});
  inplaceAssign(in, t, py::makeTensor(d.call("aten.view.default", {updated, shapeVal(base.sizes())}).t));
}

// Whether `x[index] = v` touches the traced program: the tensor, the value or a tensor index is
// fake or is a tensor the function reached through its inputs (a buffer, a global).
bool setitemIsTraced(py::Interpreter& in, const Value& t, const Value& index, const Value& v) {
  if (!in.tracer) return false;
  auto traced = [&](const Value& x) { return x->kind == VK::Tensor && (asTensor(x)->fake || tracerOf(in)->dependsOnInputs(x)); };
  if (traced(t) || traced(v)) return true;
  if (index->kind == VK::Tuple)
    for (const auto& i : py::as<py::TupleObj>(index)->items)
      if (traced(i)) return true;
  return traced(index);
}

// While capturing, `x[index] = v` is recorded as Dynamo records it: one _operator.setitem node
// on x (an in-place update: x's later uses see the new value, and lowering functionalizes it
// into index_put; a graph input or a view of one is written back after the graph). The update
// is type-checked now so the program sees eager's error.
void recordSetSubscript(py::Interpreter& in, const Value& t, const Value& index, const Value& v) {
  auto containsList = [](const Value& i) {
    if (i->kind == VK::List) return true;
    if (i->kind != VK::Tuple) return false;
    for (const auto& x : py::as<py::TupleObj>(i)->items)
      if (x->kind == VK::List) return true;
    return false;
  };
  if (containsList(index))
    notSupported(in, "assigning to a tensor indexed by a Python list inside torch.compile'd code is not supported by Kiln yet");
  auto unbacked = [](const Value& i) {  // Tensor.item() under fullgraph=True
    auto is = [](const Value& x) { return x && isUnbacked(x); };
    if (is(i)) return true;
    if (i->kind == VK::Slice) {
      auto* sl = py::as<py::SliceObj>(i);
      return is(sl->start) || is(sl->stop) || is(sl->step);
    }
    return false;
  };
  bool anyUnbacked = unbacked(index) || isUnbacked(v);
  if (index->kind == VK::Tuple)
    for (const auto& x : py::as<py::TupleObj>(index)->items) anyUnbacked = anyUnbacked || unbacked(x);
  if (anyUnbacked) unbackedLimitation(in, "an unbacked scalar in a tensor subscript assignment");
  if (v->kind != VK::Tensor && v->kind != VK::Float && v->kind != VK::Int && v->kind != VK::Bool)
    in.raise("TypeError",
             "can't assign a " + py::typeName(v) + " to a " + std::string(ir::torchName(asTensor(t)->tensorType().dtype)) + " tensor");
  Value fake = tracerOf(in)->fakeOf(t);
  Value value = v->kind == VK::Tensor ? tracerOf(in)->fakeOf(v) : v;
  const ir::TensorType& type = asTensor(fake)->tensorType();
  const bool valueGrad = value->kind == VK::Tensor && asTensor(value)->tensorType().requiresGrad;
  if (autograd::isGradEnabled()) {
    // An input requiring grad (or a view of one) updated in place: eager raises for a leaf and
    // rebases the caller's tensor's history otherwise, which the copy-back after the graph
    // does not do; eager runs it.
    int root = tracerOf(in)->nodeOf(fake);
    static const std::set<std::string> kViews = {"getitem",   "view",      "reshape", "transpose", "permute", "t",
                                                 "squeeze",   "unsqueeze", "expand",  "narrow",    "select",  "flatten",
                                                 "unflatten", "diagonal",  "movedim", "as_strided"};
    for (const ir::Node* n = tracerOf(in)->capturedGraph().find(root);
         n && !n->args.empty() && n->args[0].isNode() && (kViews.count(fxBaseName(n->target)) || isInplaceNode(*n));
         n = tracerOf(in)->capturedGraph().find(root))
      root = n->args[0].node;
    const ir::Node* rn = tracerOf(in)->capturedGraph().find(root);
    if (type.requiresGrad && rn && tracerOf(in)->isInput(root) && !rn->types.empty() && rn->types[0].requiresGrad)
      notSupported(
          in,
          "assigning into a graph input that requires grad (or a view of one) inside torch.compile'd code is not supported by Kiln yet");
    // The tensor starts requiring grad here in eager; the captured graph keeps a tensor's
    // requires_grad from where it was made, so such a graph would lose the gradient.
    if (valueGrad && !type.requiresGrad)
      notSupported(in,
                   "assigning a tensor that requires grad into one that does not inside torch.compile'd code is not supported by Kiln yet");
  }
  const TorchFn* fn = findTorchFn("_operator.setitem", ir::NodeKind::CallFunction);
  TArgs ta;
  ta.args = {ops::Val::sym(type), indexVal(in, index, true), toVal(in, value)};
  try {
    ops::MetaDispatcher meta;
    fn->impl(meta, ta);
  } catch (const tensor::TorchError& e) { rethrow(in, e); }
  tracerOf(in)->onTensorIndex(fake, index);
  tracerOf(in)->record("_operator.setitem", ir::NodeKind::CallFunction, {fake, index, value}, {}, type);
}

}  // namespace

void tensorSetSubscript(py::Interpreter& in, const Value& t, const Value& index, const Value& v) {
  auto* tv = asTensor(t);
  if (setitemIsTraced(in, t, index, v)) {
    recordSetSubscript(in, t, index, v);
    return;
  }
  if (tv->fake) notSupported(in, "assigning to a tensor index inside torch.compile'd code is not supported by Kiln yet");
  const bool number = v->kind == VK::Float || v->kind == VK::Int || v->kind == VK::Bool;
  const bool realTensor = v->kind == VK::Tensor && !asTensor(v)->fake;
  if (autograd::isGradEnabled() && (realTensor || number) && (tv->t.requiresGrad() || (realTensor && asTensor(v)->t.requiresGrad()))) {
    try {
      setSubscriptTracked(in, t, index, realTensor ? asTensor(v)->t : tensor::Tensor::scalar(toVal(in, v).number(), tv->t.dtype()));
    } catch (const tensor::TorchError& e) { rethrow(in, e); }
    return;
  }
  try {
    ops::EagerDispatcher eager;
    std::vector<ops::Val> adv;
    ops::Val view = applyBasicIndexing(eager, toVal(in, t), indexVal(in, index, true), adv);
    tensor::Tensor dst = view.t;  // shares t's storage
    tensor::Tensor src;
    if (v->kind == VK::Tensor) {
      if (asTensor(v)->fake) notSupported(in, "assigning a traced tensor is not supported by Kiln yet");
      src = asTensor(v)->t;
    } else if (v->kind == VK::Float || v->kind == VK::Int || v->kind == VK::Bool) {
      src = tensor::Tensor::scalar(toVal(in, v).number(), dst.dtype());
    } else {
      in.raise("TypeError", "can't assign a " + py::typeName(v) + " to a " + std::string(ir::torchName(dst.dtype())) + " tensor");
    }
    if (adv.empty()) {
      ops::copyInto(dst, src);
      return;
    }
    std::vector<std::optional<tensor::Tensor>> indices;
    for (const auto& a : adv) {
      if (a.isNone()) indices.emplace_back();
      else indices.emplace_back(a.t);
    }
    if (!dst.isCpu()) {
      // The device has no in-place index_put kernel: the functional one (runtime/cuda_index_ops),
      // then a device copy into the view.
      // A number (a CPU scalar) is passed as a number: index_put takes no CPU tensor beside CUDA ones.
      const ops::Val value = src.isCpu() && src.dim() == 0 ? ops::Val::real(src.loadAt(0)) : ops::Val::of(src);
      ops::Val put =
          eager.call(ops::op("aten.index_put.default"), {ops::Val::of(dst), ops::Val::listOf(adv), value, ops::Val::boolean(false)});
      ops::copyInto(dst, put.t);
      return;
    }
    ops::indexPutInPlace(dst, indices, src, false);
  } catch (const tensor::TorchError& e) { rethrow(in, e); }
}

bool tensorTruthy(py::Interpreter& in, const Value& t) {
  auto* tv = asTensor(t);
  if (tv->fake || (in.tracer && tracerOf(in)->dependsOnInputs(t)))
    breakOn(
        in, "KB001", "Data-dependent branching",
        "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.",
        {"This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.",
         "Use `torch.cond` to express dynamic control flow."});
  if (tv->t.numel() != 1) in.raise("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous");
  return onHost(in, tv->t).loadAt(0) != 0.0;
}

std::string tensorRepr(py::Interpreter&, const Value& t) {
  auto* tv = asTensor(t);
  if (tv->fake) return "FakeTensor(" + tv->type.str() + ")";
  const auto& meta = tv->t.autograd();
  if (!meta || !meta->gradFn) return formatTensor(tv->t, "tensor(", tv->t.requiresGrad());
  // A result of recorded ops prints its grad_fn instead: tensor(14., grad_fn=<SumBackward0>)
  std::string s = formatTensor(tv->t, "tensor(", false);
  s.pop_back();
  return s + ", grad_fn=<" + meta->gradFn->name() + ">)";
}

std::vector<Value> tensorIterate(py::Interpreter& in, const Value& t) {
  auto* tv = asTensor(t);
  // A traced tensor unpacks as Dynamo records it: one getitem per row (`q, k, v = qkv`).
  ir::TensorType ty = tv->tensorType();
  if (ty.sizes.empty()) in.raise("TypeError", "iteration over a 0-d tensor");
  if (tv->fake && ty.sizes[0].symbolic())
    notSupported(in, "iterating over a tensor with a symbolic first dim inside torch.compile'd code is not supported by Kiln yet");
  std::vector<Value> out;
  for (int64_t i = 0; i < ty.sizes[0].value; ++i) out.push_back(tensorSubscript(in, t, py::makeInt(i)));
  return out;
}

}  // namespace kiln::torchapi
