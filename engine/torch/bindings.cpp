#include "engine/torch/bindings.h"

#include "engine/autograd/grad_mode.h"
#include "engine/ir/sym.h"
#include "engine/torch/capture_hooks.h"
#include "engine/torch/device_api.h"
#include "engine/torch/inplace.h"
#include "engine/torch/unbacked.h"

#include <functional>

namespace kiln::torchapi {

using py::Value;
using py::VK;

ops::Val toVal(py::Interpreter& in, const Value& v) {
  switch (v->kind) {
    case VK::Tensor: {
      auto* t = py::as<py::TensorObj>(v);
      return t->fake ? ops::Val::sym(t->type, t->node) : ops::Val::of(t->t);
    }
    case VK::None: return ops::Val::none();
    case VK::Bool: return ops::Val::boolean(py::as<py::BoolObj>(v)->v);
    case VK::Int: return ops::Val::integer(py::as<py::IntObj>(v)->small());
    case VK::Float: return ops::Val::real(py::as<py::FloatObj>(v)->v);
    case VK::Str: return ops::Val::string(py::as<py::StrObj>(v)->v);
    case VK::DType: return ops::Val::dtypeVal(py::as<py::DTypeObj>(v)->d);
    case VK::Tuple:
    case VK::List: {
      std::vector<ops::Val> items;
      for (auto& x : in.iterate(v)) items.push_back(toVal(in, x));
      return ops::Val::listOf(std::move(items));
    }
    case VK::Instance: {
      // A torch.memory_format reaches torch functions as its printed name.
      auto* inst = py::as<py::InstanceObj>(v);
      if (inst->cls->name == "memory_format" && inst->cls->module && inst->cls->module->name == "torch")
        return ops::Val::string(in.repr(v));
      if (isDevice(v)) return ops::Val::string(in.str(v));  // a torch.device as its string ("cuda:0")
      if (isUnbacked(v)) unbackedLimitation(in, "an unbacked scalar as an argument of a torch call");
      in.raise("TypeError", "expected a tensor, number or sequence, got " + py::typeName(v));
    }
    case VK::Class: {
      // Python's bool, int and float stand for torch.bool, int64 and float64 where a dtype is
      // taken (x.to(float), torch.zeros(2, dtype=int)), as PyTorch's argument parser reads them.
      auto* c = py::as<py::ClassObj>(v);
      if (!c->module && in.builtinClass(c->name).get() == c) {
        if (c->name == "bool") return ops::Val::dtypeVal(ir::DType::Bool);
        if (c->name == "int") return ops::Val::dtypeVal(ir::DType::Int64);
        if (c->name == "float") return ops::Val::dtypeVal(ir::DType::Float64);
      }
      [[fallthrough]];
    }
    default: in.raise("TypeError", "expected a tensor, number or sequence, got " + py::typeName(v));
  }
}

Value fromVal(py::Interpreter& in, const ops::Val& v) {
  switch (v.kind) {
    case ops::Val::Kind::Tensor: return py::makeTensor(v.t);
    case ops::Val::Kind::Sym: in.raise("RuntimeError", "internal error: symbolic value escaped capture");
    case ops::Val::Kind::None: return py::None();
    case ops::Val::Kind::Int: return py::makeInt(v.i);
    case ops::Val::Kind::Float: return py::makeFloat(v.f);
    case ops::Val::Kind::Bool: return py::makeBool(v.b);
    case ops::Val::Kind::DType: return std::make_shared<py::DTypeObj>(v.dtype);
    case ops::Val::Kind::String: return py::makeStr(v.s);
    case ops::Val::Kind::List: {
      std::vector<Value> items;
      for (const auto& x : v.list) items.push_back(fromVal(in, x));
      return py::makeTuple(std::move(items));
    }
  }
  return py::None();
}

void rethrow(py::Interpreter& in, const tensor::TorchError& e) {
  // A native op stopped at Ctrl-C or a time limit: the pending request, as a statement raises it.
  if (dynamic_cast<const tensor::Interrupted*>(&e)) in.raiseStopped();
  if (in.tracer && std::string(e.type()) == "NotImplementedError") notSupported(in, e.what());
  // While capturing, an op that fails on its traced inputs fails the compile as Dynamo's does:
  // TorchRuntimeError (a RuntimeError) carrying the original error (a TypeError about the
  // arguments is left as it is).
  if (in.tracer && std::string(e.type()) != "TypeError")
    in.raise("TorchRuntimeError", "Dynamo failed to run FX node with fake tensors: got " + e.type() + "('" + e.what() + "')");
  in.raise(e.type(), e.what());
}

void notSupported(py::Interpreter& in, const std::string& what) {
  if (!in.tracer) in.raise("NotImplementedError", what);
  py::GraphBreak u("KB030", "Operation Kiln does not support yet",
                   what + ". PyTorch can capture this; Kiln cannot yet, so the frame runs eagerly from here.");
  u.kilnLimitation = true;
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

void breakOnRandomInCapture(py::Interpreter& in, const std::string& what) {
  if (!in.tracer) return;
  py::GraphBreak u("KB021", "Random operator Kiln does not capture",
                   what +
                       " draws random numbers; Kiln does not record it in a graph yet, and running it while "
                       "capturing would freeze one draw into the graph. The frame runs eagerly from here.",
                   {"Draw the random tensor outside the compiled function and pass it in."});
  u.kilnLimitation = true;
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

namespace {
bool anyFake(const Value& v, py::Interpreter& in) {
  if (v->kind == VK::Tensor) return py::as<py::TensorObj>(v)->fake;
  if (v->kind == VK::Tuple || v->kind == VK::List)
    for (auto& x : in.iterate(v))
      if (anyFake(x, in)) return true;
  return false;
}
}  // namespace

Value callTorch(py::Interpreter& in, const std::string& target, ir::NodeKind kind, py::CallArgs& args) {
  const TorchFn* fn = findTorchFn(target, kind);
  if (!fn) notSupported(in, (kind == ir::NodeKind::CallMethod ? "Tensor." : "") + target + " is not supported by Kiln yet");
  TArgs ta;
  bool fake = false;
  for (auto& a : args.args) {
    ta.args.push_back(toVal(in, a));
    fake = fake || anyFake(a, in);
  }
  for (auto& [k, v] : args.kwargs) {
    ta.kwargs.emplace_back(k, toVal(in, v));
    fake = fake || anyFake(v, in);
  }
  // out=: the result is written into the given tensor (resized when its shape differs), which
  // is returned; Kiln does not capture it (the frame runs that call eagerly).
  Value out = args.kwarg("out");
  if (out && py::isNone(out)) out = nullptr;
  if (out) {
    std::erase_if(ta.kwargs, [](const auto& kv) { return kv.first == "out"; });
    if (out->kind != VK::Tensor) notSupported(in, target + "(out=" + py::typeName(out) + ") is not supported by Kiln yet");
    if (fake || anyFake(out, in) || in.tracer) {
      // Captured as the call without out= and an in-place copy into `out` (a graph input's
      // mutation, written back after the graph); Dynamo records one node with out=. A result of
      // another shape (out= resizes `out`) is not captured.
      if (!in.tracer) notSupported(in, "capturing " + target + "(out=...) is not supported by Kiln yet");
      const ir::TensorType outType = py::as<py::TensorObj>(out)->tensorType();
      if (!outType.strides.empty() && outType.strides != ir::contiguousStrides(outType.sizes)) {
        py::GraphBreak u("KB047", "Attempted to call op with non-contiguous `out=` tensor", "Dynamo does not support this.",
                         {"It may be possible to write Dynamo tracing rules for this code. Please report an issue to "
                          "PyTorch if you encounter this graph break often and it is causing performance issues."});
        u.where = in.currentLocation();
        u.stack = in.userStack();
        throw u;
      }
      if (autograd::isGradEnabled())  // as eager: out= does not differentiate
        for (const auto& a : args.args)
          if (a->kind == VK::Tensor && py::as<py::TensorObj>(a)->tensorType().requiresGrad)
            in.raise(
                "RuntimeError",
                target.substr(target.rfind('.') + 1) +
                    "(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.");
      py::CallArgs without = args;
      std::erase_if(without.kwargs, [](const auto& kv) { return kv.first == "out"; });
      Value r = callTorch(in, target, kind, without);
      auto* rt = py::as<py::TensorObj>(r);
      auto* ot = py::as<py::TensorObj>(out);
      if (r->kind != VK::Tensor || rt->tensorType().sizes != ot->tensorType().sizes || rt->tensorType().dtype != ot->tensorType().dtype)
        notSupported(in, "capturing " + target + "(out=...) with a result of another shape or dtype is not supported by Kiln yet");
      py::CallArgs copy;
      copy.args.push_back(r);
      in.call(in.getAttr(out, "copy_"), copy);
      return out;
    }
  }
  // While capturing, tensors the function reaches through its arguments, closures or globals
  // (a list of tensors, say) are graph inputs too: the call is recorded.
  if (in.tracer && !fake) {
    std::function<bool(const py::Value&)> sourced = [&](const py::Value& v) {
      if (v->kind == VK::Tensor) return tracerOf(in)->dependsOnInputs(v);  // KB020 for a tensor of unknown origin
      if (v->kind == VK::List || v->kind == VK::Tuple) {
        bool any = false;
        for (const auto& x : v->kind == VK::List ? py::as<py::ListObj>(v)->items : py::as<py::TupleObj>(v)->items) any = sourced(x) || any;
        return any;
      }
      return false;
    };
    for (auto& a : args.args) fake = fake || sourced(a);
    for (auto& [k, v] : args.kwargs) fake = fake || sourced(v);
    if (fake) {
      std::function<void(ops::Val&)> symbolic = [&](ops::Val& a) {
        if (a.kind == ops::Val::Kind::Tensor) a = ops::Val::sym(a.t.type());
        if (a.kind == ops::Val::Kind::List)
          for (auto& x : a.list) symbolic(x);
      };
      for (auto& a : ta.args) symbolic(a);
      for (auto& [k, a] : ta.kwargs) symbolic(a);
    }
  }
  // Ops whose output shape depends on the data cannot be captured (Dynamo: "Dynamic shape
  // operator", a graph break unless capture_dynamic_output_shape_ops is set).
  const bool whereNonzero = target == "torch.where" && ta.args.size() == 1 && !ta.kw("input") && !ta.kw("other");  // where(cond)
  if (fake && (target == "torch.nonzero" || target == "nonzero" || whereNonzero)) {
    py::GraphBreak u("KB006", "Dynamic shape operator", "Operator `aten.nonzero.default`'s output shape depends on input Tensor data.",
                     {"Enable tracing of dynamic shape operators with `torch._dynamo.config.capture_dynamic_output_shape_ops = True`"});
    u.where = in.currentLocation();
    u.stack = in.userStack();
    throw u;
  }
  // repeat_interleave with tensor repeats: the output size is the repeats' sum.
  if (fake && (target == "torch.repeat_interleave" || target == "repeat_interleave")) {
    const ops::Val* repeats = ta.get(1, "repeats");
    if (!repeats || repeats->isTensor()) {
      py::GraphBreak u("KB006", "Dynamic shape operator",
                       "Operator `aten.repeat_interleave.Tensor`'s output shape depends on input Tensor data.",
                       {"Enable tracing of dynamic shape operators with `torch._dynamo.config.capture_dynamic_output_shape_ops = True`"});
      u.where = in.currentLocation();
      u.stack = in.userStack();
      throw u;
    }
  }
  // A Python bool computed from tensor data (torch.equal, torch.allclose): Dynamo's
  // "Data dependent operator" break.
  if (fake && (target == "torch.equal" || target == "equal" || target == "torch.allclose" || target == "allclose")) {
    const bool eq = target == "torch.equal" || target == "equal";
    py::GraphBreak u("KB007", "Data dependent operator",
                     std::string("Operator `") + (eq ? "aten.equal.default" : "aten.allclose.default") +
                         "` has a non-Tensor output whose value is dependent on the data of Tensor inputs.",
                     {"Consider wrapping the operator into a PyTorch-understood custom operator (see "
                      "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html)"});
    u.where = in.currentLocation();
    u.stack = in.userStack();
    throw u;
  }
  try {
    if (fake) {
      if (!in.tracer) in.raise("RuntimeError", "internal error: fake tensor outside capture");
      ops::MetaDispatcher meta;
      ops::Val r = fn->impl(meta, ta);
      if (r.kind == ops::Val::Kind::List) {
        std::vector<ir::TensorType> types;
        for (const auto& x : r.list) {
          if (!x.isTensor()) notSupported(in, "capturing " + target + " (non-tensor results) is not supported yet");
          types.push_back(x.tensorType());
        }
        return py::makeTuple(tracerOf(in)->recordMulti(target, kind, args.args, args.kwargs, types));
      }
      if (r.kind != ops::Val::Kind::Sym && r.kind != ops::Val::Kind::Tensor)
        notSupported(in, "capturing " + target + " (non-tensor result) is not supported yet");
      return tracerOf(in)->record(target, kind, args.args, args.kwargs, r.tensorType());
    }
    ops::EagerDispatcher eager;
    if (out) {
      const std::string name = target.substr(target.rfind('.') + 1);
      if (autograd::isGradEnabled())
        for (const auto& v : ta.args)
          if (v.isTensor() && v.t.requiresGrad())
            in.raise(
                "RuntimeError",
                name +
                    "(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.");
      ops::Val r = fn->impl(eager, ta);
      if (!r.isTensor()) notSupported(in, target + "(out=...) with a non-tensor result is not supported by Kiln yet");
      return writeOut(in, out, r.t);
    }
    return fromVal(in, fn->impl(eager, ta));
  } catch (const tensor::TorchError& e) { rethrow(in, e); }
}

}  // namespace kiln::torchapi
