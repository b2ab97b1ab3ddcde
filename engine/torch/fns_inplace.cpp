#include "engine/torch/inplace.h"

#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/ops/index_ops.h"
#include "engine/ops/inplace_kernels.h"
#include "engine/ops/random.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"
#include "engine/torch/generator_arg.h"

namespace kiln::torchapi {

using ops::Val;
using py::CallArgs;
using py::Value;
using py::VK;
using tensor::Tensor;
using tensor::TorchError;

namespace {

py::TensorObj* obj(const Value& v) { return py::as<py::TensorObj>(v); }

// c10::canCast: no floating -> integral and no non-bool -> bool.
bool canCast(ir::DType from, ir::DType to) {
  if (ir::isFloating(from) && !ir::isFloating(to)) return false;
  if (from != ir::DType::Bool && to == ir::DType::Bool) return false;
  return true;
}

void checkLeaf(const Tensor& t) {
  if (autograd::isGradEnabled() && t.requiresGrad() && !t.autograd()->gradFn)
    throw TorchError("RuntimeError", "a leaf Variable that requires grad is being used in an in-place operation.");
}

// Writes `r` (the new value) into self's elements; rebases self's history onto r's grad_fn.
// `castAny`: copy_/fill_ convert any dtype; arithmetic in-place ops follow canCast.
void writeBack(py::TensorObj* self, Val r, bool castAny) {
  Tensor& dst = self->t;
  if (!r.isTensor()) r = Val::of(Tensor::scalar(r.number(), dst.dtype()));
  if (!castAny && !canCast(r.t.dtype(), dst.dtype()))
    throw TorchError("RuntimeError", "result type " + std::string(ir::scalarTypeName(r.t.dtype())) +
                                         " can't be cast to the desired output type " + ir::scalarTypeName(dst.dtype()));
  tensor::Shape b = tensor::broadcastShapes(dst.sizes(), r.t.sizes());
  if (b != dst.sizes())
    throw TorchError("RuntimeError",
                     "output with shape " + tensor::shapeStr(dst.sizes()) + " doesn't match the broadcast shape " + tensor::shapeStr(b));
  checkLeaf(dst);
  bool track = autograd::isGradEnabled() && r.t.requiresGrad();
  if (track) {
    // Make the recorded value exactly self's shape and dtype, so its grad_fn can be self's.
    ops::EagerDispatcher d;
    std::vector<Val> shape;
    for (auto s : dst.sizes()) shape.push_back(Val::integer(s));
    if (r.t.sizes() != dst.sizes()) r = d.call("aten.expand.default", {r, Val::listOf(shape)});
    if (r.t.dtype() != dst.dtype()) r = d.call("prims.convert_element_type.default", {r, Val::dtypeVal(dst.dtype())});
  }
  Tensor src = r.t.storage() == dst.storage() ? r.t.clone() : r.t;
  ops::copyInto(dst, src);
  if (track) {
    dst.setRequiresGrad(true);
    const auto& m = dst.autograd();
    const auto& rm = r.t.autograd();
    m->gradFn = rm->gradFn;
    m->outputNr = rm->outputNr;
    if (m->gradFn && m->gradFn->outputs.size() > size_t(m->outputNr)) m->gradFn->outputs[size_t(m->outputNr)] = m;
  }
}

double numberArg(const Val* v, double dflt) { return v && !v->isNone() ? v->number() : dflt; }

// The new value of self for in-place method `name` (trailing underscore removed).
Val newValue(py::Interpreter& in, ops::Dispatcher& d, const std::string& name, const TArgs& ta, bool& castAny) {
  const Val& self = ta.args.at(0);
  ir::DType dt = self.tensorType().dtype;
  auto full = [&](const Val& v) {
    std::vector<Val> shape;
    for (const auto& s : self.tensorType().sizes) shape.push_back(Val::integer(s.value));
    return d.call("aten.full.default", {Val::listOf(shape), v, Val::dtypeVal(dt)});
  };
  // When self requires grad, a constant result still goes through self so that the
  // gradient flowing back through it is zero (ZeroBackward / FillBackward).
  auto throughSelf = [&](const Val& v) {
    if (!(autograd::isGradEnabled() && self.tensorType().requiresGrad)) return v;
    return d.call("aten.add.Tensor", {d.call("aten.mul.Tensor", {self, Val::integer(0)}), v});
  };
  if (name == "copy") {
    castAny = true;
    const Val* src = ta.get(1, "src");
    if (!src || !src->isTensor()) in.raise("TypeError", "copy_(): argument 'src' (position 1) must be Tensor");
    return *src;
  }
  if (name == "zero") {
    castAny = true;
    return throughSelf(full(Val::real(0.0)));
  }
  if (name == "fill") {
    castAny = true;
    const Val* v = ta.get(1, "value");
    if (!v) in.raise("TypeError", "fill_() missing 1 required positional arguments: \"value\"");
    if (v->isTensor()) {
      if (!v->tensorType().sizes.empty())
        in.raise("RuntimeError", "fill_ only supports 0-dimension value tensor but got tensor with " +
                                     std::to_string(v->tensorType().sizes.size()) + " dimensions.");
      return throughSelf(*v);
    }
    return throughSelf(full(*v));
  }
  const TorchFn* fn = findTorchFn(name, ir::NodeKind::CallMethod);
  if (!fn) notSupported(in, "Tensor." + name + "_ is not supported by Kiln yet");
  return fn->impl(d, ta);
}

// add_ / sub_ of a float32 tensor of self's shape (an optimizer's p.add_(grad, alpha=-lr)),
// outside autograd: one fused pass into self (ops/inplace_kernels.h); false when the general
// path must do it (broadcasts, other dtypes, devices, overlaps, unknown keywords).
bool scaledAddInPlace(const std::string& name, py::TensorObj* self, const TArgs& ta) {
  if (name != "add" && name != "sub") return false;
  const Val* other = ta.get(1, "other");
  if (!other || !other->isTensor()) return false;
  // Autograd records the general path's ops; this pass records nothing.
  if (autograd::isGradEnabled() && (self->t.requiresGrad() || other->t.requiresGrad())) return false;
  double alpha = 1.0;
  for (const auto& [k, v] : ta.kwargs) {
    if (k == "other") continue;
    if (k != "alpha" || v.kind == Val::Kind::Bool || !v.isScalar()) return false;
    alpha = v.number();
  }
  if (ta.args.size() > 2) return false;
  return ops::addScaledInPlace(self->t, other->t, name == "sub" ? -alpha : alpha);
}

// The random fills write directly (they have no autograd history: PyTorch's are in-place too).
bool randomFill(py::Interpreter& in, const std::string& name, py::TensorObj* self, const TArgs& ta, const CallArgs& a) {
  if (name != "uniform" && name != "normal" && name != "random" && name != "bernoulli") return false;
  breakOnRandomInCapture(in, "Tensor." + name + "_");
  checkLeaf(self->t);
  // A device tensor (nn.Linear's init under torch.set_default_device('cuda')): drawn from the
  // CUDA generator into host memory, in element order as the torch.randn factories draw for a
  // device, then copied into it (its memory is never read or written on the host).
  const bool onDevice = !self->t.isCpu();
  const Value explicitGenerator = a.kwarg("generator");
  Generator& g = onDevice && (!explicitGenerator || py::isNone(explicitGenerator)) ? deviceGenerator() : generatorOf(in, a);
  Tensor host = onDevice ? Tensor::empty(self->t.sizes(), self->t.dtype()) : Tensor();
  Tensor& t = onDevice ? host : self->t;
  if (name == "uniform") uniformFill(t, numberArg(ta.get(1, "from"), 0.0), numberArg(ta.get(2, "to"), 1.0), g);
  else if (name == "normal") normalFill(t, numberArg(ta.get(1, "mean"), 0.0), numberArg(ta.get(2, "std"), 1.0), g);
  else if (name == "bernoulli") bernoulliFill(t, numberArg(ta.get(1, "p"), 0.5), g);
  else {
    const Val* a = ta.get(1, "from");
    const Val* b = ta.get(2, "to");
    if (!a) {
      randomFullFill(t, g);
    } else {
      int64_t from = b ? static_cast<int64_t>(a->number()) : 0, to = static_cast<int64_t>(b ? b->number() : a->number());
      randomFromToFill(t, from, to, g);
    }
  }
  if (onDevice) ops::copyInto(self->t, host);
  return true;
}

const char* const kInplaceNames[] = {"copy_",       "zero_",  "fill_",      "add_",       "sub_",         "mul_",     "div_",    "addcmul_",
                                     "addcdiv_",    "clamp_", "clamp_min_", "clamp_max_", "masked_fill_", "uniform_", "normal_", "random_",
                                     "bernoulli_",  "relu_",  "sigmoid_",   "tanh_",      "exp_",         "log_",     "neg_",    "sqrt_",
                                     "abs_",        "pow_",   "floor_",     "ceil_",      "remainder_",   "sin_",     "cos_",    "rsqrt_",
                                     "reciprocal_", "t_",     "unsqueeze_", "squeeze_"};

bool randomFillName(const std::string& base) { return base == "uniform" || base == "normal" || base == "random" || base == "bernoulli"; }

// The checks writeBack makes, on types only (capture).
void checkUpdate(const ir::TensorType& dst, const Val& r, bool castAny) {
  if (!r.isTensor()) return;
  ir::TensorType rt = r.tensorType();
  if (!castAny && !canCast(rt.dtype, dst.dtype))
    throw TorchError("RuntimeError", "result type " + std::string(ir::scalarTypeName(rt.dtype)) +
                                         " can't be cast to the desired output type " + ir::scalarTypeName(dst.dtype));
  tensor::Shape ds, rs;
  for (const auto& d : dst.sizes) ds.push_back(d.value);
  for (const auto& d : rt.sizes) rs.push_back(d.value);
  tensor::Shape b = tensor::broadcastShapes(ds, rs);
  if (b != ds)
    throw TorchError("RuntimeError",
                     "output with shape " + tensor::shapeStr(ds) + " doesn't match the broadcast shape " + tensor::shapeStr(b));
}

// Methods that change a tensor's shape or strides in place: not value updates.
bool changesShape(const std::string& base) {
  static const char* const kNames[] = {"t",         "transpose", "unsqueeze", "squeeze",    "resize",
                                       "resize_as", "swapaxes",  "swapdims",  "as_strided", "detach"};
  for (const char* n : kNames)
    if (base == n) return true;
  return false;
}

// The shape-changing in-place methods eager runs as "self becomes the view".
bool isMetadataInplace(const std::string& base) {
  return base == "t" || base == "transpose" || base == "unsqueeze" || base == "squeeze" || base == "swapaxes" || base == "swapdims";
}

}  // namespace

Value inplaceMethod(const Value& selfValue, const std::string& name) {
  bool known = false;
  for (const char* n : kInplaceNames) known = known || name == n;
  if (!known && name.size() > 1 && name.back() == '_' && name.front() != '_')
    // The in-place variants captured graphs know, and the shape-changing ones (transpose_ ...).
    known = findTorchFn(name, ir::NodeKind::CallMethod) != nullptr ||
            (changesShape(name.substr(0, name.size() - 1)) && findTorchFn(name.substr(0, name.size() - 1), ir::NodeKind::CallMethod));
  if (!known) return nullptr;
  std::string base = name.substr(0, name.size() - 1);
  return py::makeBuiltin("Tensor." + name, [selfValue, base, name](py::Interpreter& in, py::CallArgs& a) -> Value {
    py::TensorObj* self = obj(selfValue);
    Value fake = self->fake ? selfValue : nullptr;
    // While capturing, a real tensor the function reached (a list item, a module buffer, a
    // global) is a graph input: its update is recorded, never done at capture time.
    if (!fake && in.tracer) fake = tracerOf(in)->fakeOf(selfValue);
    if (fake) {
      // Capture records the mutation as Dynamo does (`add_ = l_x_.add_(1)`); later uses of the
      // tensor keep referring to it and lowering functionalizes it.
      if (!in.tracer) in.raise("RuntimeError", "internal error: fake tensor outside capture");
      if (changesShape(base) && tracerOf(in)->isInput(tracerOf(in)->nodeOf(fake))) {
        // Dynamo does not trace an in-place view op on a graph input either (gb0148).
        py::GraphBreak u("KB013", "Unsupported function call (delayed)",
                         "Dynamo determined that a graph break should occur when calling `Tensor." + name +
                             "`. Reason: Getting an inplace view on a graph input is not supported");
        u.where = in.currentLocation();
        u.stack = in.userStack();
        throw u;
      }
      if (changesShape(base) || randomFillName(base))
        notSupported(in, "Tensor." + name + " inside torch.compile'd code is not supported by Kiln yet");
      // Type-check the update now (a dtype that cannot be cast, a shape that does not broadcast)
      // so the program sees the error eager PyTorch raises.
      TArgs ta;
      ta.args.push_back(toVal(in, fake));
      for (auto& v : a.args) ta.args.push_back(toVal(in, v));
      for (auto& [k, v] : a.kwargs) ta.kwargs.emplace_back(k, toVal(in, v));
      try {
        ops::MetaDispatcher meta;
        bool castAny = false;
        Val r = newValue(in, meta, base, ta, castAny);
        checkUpdate(obj(fake)->tensorType(), r, castAny);
      } catch (const TorchError& e) { rethrow(in, e); }
      std::vector<Value> args{fake};
      args.insert(args.end(), a.args.begin(), a.args.end());
      tracerOf(in)->record(name, ir::NodeKind::CallMethod, args, a.kwargs, obj(fake)->tensorType());
      return selfValue;  // the same object (a real tensor the function reached stays itself)
    }
    if (changesShape(base)) {
      // unsqueeze_, t_, transpose_ ...: self becomes the view the out-of-place method returns
      // (same storage, new sizes and strides).
      const TorchFn* fn = isMetadataInplace(base) ? findTorchFn(base, ir::NodeKind::CallMethod) : nullptr;
      if (!fn) notSupported(in, "Tensor." + name + " (changes the tensor's shape in place) is not supported by Kiln yet");
      if (self->t.requiresGrad()) notSupported(in, "Tensor." + name + " on a tensor that requires grad is not supported by Kiln yet");
      TArgs ta;
      ta.args.push_back(Val::of(self->t.detach()));
      for (auto& v : a.args) ta.args.push_back(toVal(in, v));
      for (auto& [k, v] : a.kwargs) ta.kwargs.emplace_back(k, toVal(in, v));
      try {
        ops::EagerDispatcher d;
        Val r = fn->impl(d, ta);
        Tensor v = r.t.detach();
        v.setAutograd(self->t.autograd());
        self->t = v;
      } catch (const TorchError& e) { rethrow(in, e); }
      return selfValue;
    }
    TArgs ta;
    ta.args.push_back(Val::of(self->t));
    for (auto& v : a.args) ta.args.push_back(toVal(in, v));
    for (auto& [k, v] : a.kwargs)
      if (k != "generator") ta.kwargs.emplace_back(k, toVal(in, v));  // a torch.Generator is no op value
    try {
      if (randomFill(in, base, self, ta, a)) return selfValue;
      // Recorded for autograd, the new value's op may save self (mul_'s gradient for `other`
      // reads self): it computes from a copy of self (CloneBackward leads to self's history),
      // so the write below does not change what backward reads (PyTorch saves the original
      // self of an in-place op the same way).
      bool tracked = false;
      if (autograd::isGradEnabled()) {
        for (const auto& v : ta.args) tracked = tracked || (v.isTensor() && v.t.requiresGrad());
        for (const auto& kv : ta.kwargs) tracked = tracked || (kv.second.isTensor() && kv.second.t.requiresGrad());  // x.mul_(other=w)
      }
      if (tracked) {
        ops::EagerDispatcher c;
        ta.args[0] = c.call("aten.clone.default", {ta.args[0]});
      }
      if (!tracked && scaledAddInPlace(base, self, ta)) return selfValue;
      ops::EagerDispatcher d;
      bool castAny = false;
      Val r = newValue(in, d, base, ta, castAny);
      writeBack(self, std::move(r), castAny);
    } catch (const TorchError& e) { rethrow(in, e); }
    return selfValue;
  });
}

Value inplaceOperator(py::Interpreter& in, const std::string& target, const Value& self, const Value& other) {
  const TorchFn* fn = findTorchFn(target, ir::NodeKind::CallFunction);
  if (!fn) notSupported(in, target + " inside torch.compile'd code is not supported by Kiln yet");
  TArgs ta;
  ta.args = {toVal(in, self), toVal(in, other)};
  try {
    ops::MetaDispatcher meta;
    const TorchFn* outOfPlace = findTorchFn(outOfPlaceOperator(target), ir::NodeKind::CallFunction);
    checkUpdate(obj(self)->tensorType(), outOfPlace->impl(meta, ta), false);
  } catch (const TorchError& e) { rethrow(in, e); }
  tracerOf(in)->record(target, ir::NodeKind::CallFunction, {self, other}, {}, obj(self)->tensorType());
  return self;
}

Value writeOut(py::Interpreter& in, const Value& out, const Tensor& result) {
  py::TensorObj* o = obj(out);
  try {
    if (o->t.sizes() != result.sizes()) {
      // resize_output: a tensor of another shape gets fresh contiguous storage (PyTorch also
      // warns when it had elements).
      checkLeaf(o->t);
      Tensor resized = Tensor::empty(result.sizes(), o->t.dtype());
      o->t = resized;
    }
    writeBack(o, Val::of(result), false);
  } catch (const TorchError& e) { rethrow(in, e); }
  return out;
}

Value inplaceAssign(py::Interpreter& in, const Value& selfValue, const Value& result) {
  py::TensorObj* self = obj(selfValue);
  if (self->fake || result->kind != VK::Tensor) return result;  // capture: x op= y rebinds x functionally
  try {
    writeBack(self, Val::of(obj(result)->t), false);
  } catch (const TorchError& e) { rethrow(in, e); }
  return selfValue;
}

}  // namespace kiln::torchapi
