// Tensor values in the interpreter: operators, attributes and methods, indexing, printing.
#include "engine/torch/tensor_protocol.h"

#include "engine/capture/tracer.h"
#include "engine/torch/bindings.h"
#include "engine/torch/tensor_format.h"

#include <map>

namespace kiln::torchapi {

using tensor::forEachIndex;

using py::Value;
using py::VK;

namespace {

py::TensorObj* asTensor(const Value& v) { return static_cast<py::TensorObj*>(v.get()); }

const std::map<std::string, std::string> kOperators = {
    {"+", "add"}, {"-", "sub"}, {"*", "mul"}, {"/", "truediv"}, {"%", "mod"}, {"**", "pow"},
    {"<", "lt"}, {"<=", "le"}, {">", "gt"}, {">=", "ge"}, {"==", "eq"}, {"!=", "ne"}};

bool isOperand(const Value& v) {
  return v->kind == VK::Tensor || v->kind == VK::Int || v->kind == VK::Float || v->kind == VK::Bool;
}

[[noreturn]] void breakOn(py::Interpreter& in, std::string code, std::string title, std::string explanation,
                          std::vector<std::string> hints = {}) {
  capture::Unsupported u(std::move(code), std::move(title), std::move(explanation), std::move(hints));
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

Value shapeTuple(const ir::TensorType& t) {
  std::vector<Value> dims;
  for (const auto& d : t.sizes) dims.push_back(py::makeInt(d.value));
  return py::makeTuple(std::move(dims));
}

int64_t normDim(py::Interpreter& in, int64_t d, int64_t nd) {
  int64_t n = std::max<int64_t>(nd, 1);
  if (d < -n || d >= n)
    in.raise("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                               std::to_string(n - 1) + "], but got " + std::to_string(d) + ")");
  return d < 0 ? d + nd : d;
}

}  // namespace

Value tensorBinary(py::Interpreter& in, const std::string& opIn, const Value& a, const Value& b) {
  if (!isOperand(a) || !isOperand(b)) return nullptr;
  std::string op = opIn;
  bool inplace = op.size() >= 2 && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=";
  if (inplace) op.pop_back();
  if (op == "@") in.raise("NotImplementedError", "matmul is not supported by Kiln yet");
  if (op == "//") in.raise("NotImplementedError", "floor division of tensors is not supported by Kiln yet");
  auto it = kOperators.find(op);
  if (it == kOperators.end()) return nullptr;
  py::CallArgs args;
  args.args = {a, b};
  Value r = callTorch(in, "_operator." + it->second, ir::NodeKind::CallFunction, args);
  if (inplace && a->kind == VK::Tensor && !asTensor(a)->fake && r->kind == VK::Tensor) {
    // x += y mutates x (every alias sees it), as Tensor.__iadd__ does.
    tensor::Tensor& dst = asTensor(a)->t;
    const tensor::Tensor& src = asTensor(r)->t;
    if (src.sizes() != dst.sizes())
      in.raise("RuntimeError", "output with shape " + tensor::shapeStr(dst.sizes()) + " doesn't match the broadcast shape " +
                                   tensor::shapeStr(src.sizes()));
    tensor::Shape ss = src.strides();
    forEachIndex<2>(dst.sizes(), {&dst.strides(), &ss}, [&](const std::array<int64_t, 2>& o) { dst.storeAt(o[0], src.loadAt(o[1])); });
    return a;
  }
  return r;
}

Value tensorUnary(py::Interpreter& in, const std::string& op, const Value& a) {
  py::CallArgs args;
  args.args = {a};
  if (op == "-") return callTorch(in, "_operator.neg", ir::NodeKind::CallFunction, args);
  if (op == "+") return a;
  return nullptr;
}

Value tensorGetAttr(py::Interpreter& in, const Value& t, const std::string& name) {
  auto* tv = asTensor(t);
  ir::TensorType ty = tv->tensorType();
  if (name == "shape") return shapeTuple(ty);
  if (name == "dtype") return std::make_shared<py::DTypeObj>(ty.dtype);
  if (name == "ndim") return py::makeInt(static_cast<int64_t>(ty.sizes.size()));
  if (name == "device") return py::makeStr("cpu");
  if (name == "is_cuda") return py::False();
  if (name == "requires_grad") return py::makeBool(ty.requiresGrad);
  if (name == "grad") return tv->grad ? tv->grad : py::None();
  if (name == "is_leaf") return py::True();
  if (name == "data") return tv->fake ? t : py::makeTensor(tv->t);
  if (name == "T") {
    in.raise("NotImplementedError", "Tensor.T is not supported by Kiln yet");
  }
  std::string n = name;
  Value self = t;
  if (name == "size")
    return py::makeBuiltin("Tensor.size", [self](py::Interpreter& in, py::CallArgs& a) -> Value {
      ir::TensorType ty = asTensor(self)->tensorType();
      if (a.args.empty()) return shapeTuple(ty);
      if (a.args[0]->kind != VK::Int) in.raise("TypeError", "size(): argument 'dim' must be int");
      int64_t d = normDim(in, static_cast<py::IntObj*>(a.args[0].get())->v, static_cast<int64_t>(ty.sizes.size()));
      return py::makeInt(ty.sizes[static_cast<size_t>(d)].value);
    });
  if (name == "dim")
    return py::makeBuiltin("Tensor.dim", [self](py::Interpreter&, py::CallArgs&) {
      return py::makeInt(static_cast<int64_t>(asTensor(self)->tensorType().sizes.size()));
    });
  if (name == "numel")
    return py::makeBuiltin("Tensor.numel", [self](py::Interpreter&, py::CallArgs&) { return py::makeInt(asTensor(self)->tensorType().numel()); });
  if (name == "is_contiguous")
    return py::makeBuiltin("Tensor.is_contiguous", [self](py::Interpreter&, py::CallArgs&) {
      auto* x = asTensor(self);
      return py::makeBool(x->fake ? true : x->t.isContiguous());
    });
  if (name == "item")
    return py::makeBuiltin("Tensor.item", [self](py::Interpreter& in, py::CallArgs&) -> Value {
      auto* x = asTensor(self);
      if (x->fake)
        breakOn(in, "KB003", "Unsupported Tensor.item() call with capture_scalar_outputs=False",
                "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
                {"Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` "
                 "to include these operations in the captured graph."});
      if (x->t.numel() != 1)
        in.raise("RuntimeError", "a Tensor with " + std::to_string(x->t.numel()) + " elements cannot be converted to Scalar");
      double v = x->t.loadAt(0);
      if (x->t.dtype() == ir::DType::Bool) return py::makeBool(v != 0);
      if (!ir::isFloating(x->t.dtype())) return py::makeInt(x->t.loadIntAt(0));
      return py::makeFloat(v);
    });
  if (name == "tolist")
    return py::makeBuiltin("Tensor.tolist", [self](py::Interpreter& in, py::CallArgs&) -> Value {
      auto* x = asTensor(self);
      if (x->fake) breakOn(in, "KB005", "Tensor.tolist() with non-integer tensor", "Dynamo does not support tracing tolist().");
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
      return rec(x->t);
    });
  if (name == "detach" || name == "cpu")
    return py::makeBuiltin("Tensor." + name, [self](py::Interpreter&, py::CallArgs&) -> Value {
      auto* x = asTensor(self);
      if (x->fake) return self;
      tensor::Tensor d = x->t;
      d.setRequiresGrad(false);
      return py::makeTensor(d);
    });
  if (findTorchFn(n, ir::NodeKind::CallMethod))
    return py::makeBuiltin("Tensor." + n, [self, n](py::Interpreter& in, py::CallArgs& a) {
      a.args.insert(a.args.begin(), self);
      return callTorch(in, n, ir::NodeKind::CallMethod, a);
    });
  return nullptr;
}

Value tensorSubscript(py::Interpreter& in, const Value& t, const Value& index) {
  auto* tv = asTensor(t);
  if (tv->fake) in.raise("NotImplementedError", "indexing tensors inside torch.compile'd code is not supported by Kiln yet");
  const tensor::Tensor& x = tv->t;
  std::vector<Value> idx = index->kind == VK::Tuple ? static_cast<py::TupleObj*>(index.get())->items : std::vector<Value>{index};
  tensor::Shape sizes, strides;
  int64_t offset = x.offset();
  size_t dim = 0;
  size_t consumed = 0;
  for (auto& i : idx) consumed += (i->kind == VK::Int || i->kind == VK::Slice || i->kind == VK::Bool) ? 1 : 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    const Value& i = idx[k];
    if (i->kind == VK::None) { sizes.push_back(1); strides.push_back(0); continue; }
    if (i->kind == VK::Ellipsis) {
      size_t skip = static_cast<size_t>(x.dim()) - consumed;
      for (size_t s = 0; s < skip; ++s, ++dim) { sizes.push_back(x.sizes()[dim]); strides.push_back(x.strides()[dim]); }
      continue;
    }
    if (dim >= static_cast<size_t>(x.dim())) in.raise("IndexError", "too many indices for tensor of dimension " + std::to_string(x.dim()));
    int64_t n = x.sizes()[dim];
    if (i->kind == VK::Int) {
      int64_t j = static_cast<py::IntObj*>(i.get())->v;
      if (j < -n || j >= n)
        in.raise("IndexError", "index " + std::to_string(j) + " is out of bounds for dimension " + std::to_string(dim) + " with size " + std::to_string(n));
      if (j < 0) j += n;
      offset += j * x.strides()[dim];
      ++dim;
      continue;
    }
    if (i->kind == VK::Slice) {
      auto* s = static_cast<py::SliceObj*>(i.get());
      auto get = [&](const Value& v, int64_t d) { return py::isNone(v) ? d : static_cast<py::IntObj*>(v.get())->v; };
      int64_t step = get(s->step, 1);
      if (step <= 0) in.raise("ValueError", "step must be greater than zero");
      int64_t st = get(s->start, 0), en = get(s->stop, n);
      if (st < 0) st += n;
      if (en < 0) en += n;
      st = std::clamp<int64_t>(st, 0, n);
      en = std::clamp<int64_t>(en, st, n);
      sizes.push_back((en - st + step - 1) / step);
      strides.push_back(x.strides()[dim] * step);
      offset += st * x.strides()[dim];
      ++dim;
      continue;
    }
    in.raise("NotImplementedError", "indexing with " + py::typeName(i) + " is not supported by Kiln yet");
  }
  for (; dim < static_cast<size_t>(x.dim()); ++dim) { sizes.push_back(x.sizes()[dim]); strides.push_back(x.strides()[dim]); }
  return py::makeTensor(x.view(sizes, strides, offset));
}

void tensorSetSubscript(py::Interpreter& in, const Value& t, const Value& index, const Value& v) {
  Value view = tensorSubscript(in, t, index);
  tensor::Tensor& dst = asTensor(view)->t;
  if (v->kind == VK::Tensor) {
    const tensor::Tensor& src = asTensor(v)->t;
    tensor::Shape bs = tensor::broadcastStrides(src, dst.sizes());
    forEachIndex<2>(dst.sizes(), {&dst.strides(), &bs}, [&](const std::array<int64_t, 2>& o) { dst.storeAt(o[0], src.loadAt(o[1])); });
    return;
  }
  double x = v->kind == VK::Float ? static_cast<py::FloatObj*>(v.get())->v
             : v->kind == VK::Int ? double(static_cast<py::IntObj*>(v.get())->v)
             : v->kind == VK::Bool ? double(static_cast<py::BoolObj*>(v.get())->v)
             : (in.raise("TypeError", "can't assign a " + py::typeName(v) + " to a Tensor"), 0.0);
  forEachIndex<1>(dst.sizes(), {&dst.strides()}, [&](const std::array<int64_t, 1>& o) { dst.storeAt(o[0], x); });
}

bool tensorTruthy(py::Interpreter& in, const Value& t) {
  auto* tv = asTensor(t);
  if (tv->fake)
    breakOn(in, "KB001", "Data-dependent branching",
            "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.",
            {"This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.",
             "Use `torch.cond` to express dynamic control flow."});
  if (tv->t.numel() != 1) in.raise("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous");
  return tv->t.loadAt(0) != 0.0;
}

std::string tensorRepr(py::Interpreter&, const Value& t) {
  auto* tv = asTensor(t);
  if (tv->fake) return "FakeTensor(" + tv->type.str() + ")";
  return formatTensor(tv->t, "tensor(", tv->t.requiresGrad());
}

std::vector<Value> tensorIterate(py::Interpreter& in, const Value& t) {
  auto* tv = asTensor(t);
  if (tv->fake) in.raise("NotImplementedError", "iterating over a tensor inside torch.compile'd code is not supported by Kiln yet");
  if (tv->t.dim() == 0) in.raise("TypeError", "iteration over a 0-d tensor");
  std::vector<Value> out;
  for (int64_t i = 0; i < tv->t.sizes()[0]; ++i) out.push_back(tensorSubscript(in, t, py::makeInt(i)));
  return out;
}

}  // namespace kiln::torchapi
