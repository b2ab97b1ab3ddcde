#include "engine/torch/autograd_methods.h"

#include "engine/autograd/engine.h"
#include "engine/autograd/node.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"

namespace kiln::torchapi {

using py::Value;
using py::VK;
using tensor::Tensor;
using tensor::TorchError;

namespace {

py::TensorObj* obj(const Value& v) { return py::as<py::TensorObj>(v); }

bool isLeaf(const Tensor& t) { return !t.autograd() || !t.autograd()->gradFn; }

// grad_fn as Python sees it: an object whose class is named after the node ("MulBackward0").
Value gradFnObject(py::Interpreter& in, const std::shared_ptr<autograd::Node>& node) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = cls->qualname = node->name();
  cls->mro.push_back(cls);
  if (auto o = in.builtinClass("object")) cls->mro.push_back(o);
  std::string n = node->name();
  cls->dict["name"] = py::makeBuiltin(n + ".name", [n](py::Interpreter&, py::CallArgs&) { return py::makeStr(n); });
  return std::make_shared<py::InstanceObj>(cls);
}

[[noreturn]] void notInCapture(py::Interpreter& in, const std::string& what) {
  notSupported(in, "Tensor." + what + " inside torch.compile'd code is not supported by Kiln yet");
}

void setRequiresGrad(py::Interpreter& in, py::TensorObj* x, bool v) {
  Tensor& t = x->t;
  if (!isLeaf(t)) {
    if (v) return;
    in.raise("RuntimeError",
             "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
             "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  }
  if (v && !ir::isFloating(t.dtype())) in.raise("RuntimeError", "only Tensors of floating point and complex dtype can require gradients");
  t.setRequiresGrad(v);
}

Value method(const std::string& name, py::NativeFn fn) { return py::makeBuiltin("Tensor." + name, std::move(fn)); }

}  // namespace

Value autogradAttr(py::Interpreter& in, const Value& t, const std::string& name) {
  py::TensorObj* x = obj(t);
  if (name == "requires_grad") return py::makeBool(x->tensorType().requiresGrad);
  if (name == "is_leaf") return py::makeBool(x->fake ? true : isLeaf(x->t));
  if (name == "grad") {
    if (x->fake) return py::None();
    const auto& m = x->t.autograd();
    return m && m->grad.defined() ? py::makeTensor(m->grad) : py::None();
  }
  if (name == "grad_fn") {
    if (x->fake || isLeaf(x->t)) return py::None();
    return gradFnObject(in, x->t.autograd()->gradFn);
  }
  if (name == "data") return x->fake ? t : py::makeTensor(x->t.detach());
  if (name == "detach")
    return method(name, [t](py::Interpreter&, py::CallArgs&) -> Value {
      py::TensorObj* x = obj(t);
      return x->fake ? t : py::makeTensor(x->t.detach());
    });
  if (name == "detach_")
    return method(name, [t](py::Interpreter& in, py::CallArgs&) -> Value {
      py::TensorObj* x = obj(t);
      if (x->fake) notInCapture(in, "detach_");
      x->t.setAutograd(nullptr);
      return t;
    });
  if (name == "requires_grad_")
    return method(name, [t](py::Interpreter& in, py::CallArgs& a) -> Value {
      py::TensorObj* x = obj(t);
      if (x->fake) notInCapture(in, "requires_grad_");
      Value v = !a.args.empty() ? a.args[0] : a.kwarg("requires_grad");
      setRequiresGrad(in, x, !v || in.truthy(v));
      return t;
    });
  if (name == "retain_grad")
    return method(name, [t](py::Interpreter& in, py::CallArgs&) -> Value {
      py::TensorObj* x = obj(t);
      if (x->fake) notInCapture(in, "retain_grad");
      if (!x->t.requiresGrad()) in.raise("RuntimeError", "can't retain_grad on Tensor that has requires_grad=False");
      if (!isLeaf(x->t)) x->t.autograd()->retainsGrad = true;
      return py::None();
    });
  if (name == "register_post_accumulate_grad_hook")
    return method(name, [t](py::Interpreter& in, py::CallArgs& a) -> Value {
      py::TensorObj* x = obj(t);
      if (x->fake) notInCapture(in, "register_post_accumulate_grad_hook");
      if (!x->t.requiresGrad()) in.raise("RuntimeError", "cannot register a hook on a tensor that doesn't require gradient");
      if (!isLeaf(x->t)) in.raise("RuntimeError", "post accumulate grad hooks cannot be registered on non-leaf tensors");
      if (a.args.size() != 1) in.raise("TypeError", "register_post_accumulate_grad_hook() takes exactly one argument (the hook)");
      // The hook is called with the tensor itself after backward accumulated its .grad. (The
      // closure keeps the tensor alive, as a parameter's hooks do in PyTorch.) No removable
      // handle yet: None is returned.
      Value hook = a.args[0], self = t;
      py::Interpreter* interp = &in;
      x->t.autograd()->postAccumulateGradHooks.push_back([interp, hook, self] {
        py::CallArgs args;
        args.args.push_back(self);
        interp->call(hook, args);
      });
      return py::None();
    });
  if (name == "retains_grad") return py::makeBool(!x->fake && x->t.autograd() && x->t.autograd()->retainsGrad);
  if (name == "backward")
    return method(name, [t](py::Interpreter& in, py::CallArgs& a) -> Value {
      py::TensorObj* x = obj(t);
      if (x->fake) notInCapture(in, "backward");
      Value g = !a.args.empty() ? a.args[0] : a.kwarg("gradient");
      Value create = a.args.size() > 2 ? a.args[2] : a.kwarg("create_graph");
      Value retain = a.args.size() > 1 ? a.args[1] : a.kwarg("retain_graph");
      bool createGraph = create && in.truthy(create);
      bool retainGraph = retain && !py::isNone(retain) ? in.truthy(retain) : createGraph;
      Tensor grad;
      if (g && !py::isNone(g)) {
        if (g->kind != VK::Tensor) in.raise("TypeError", "gradient must be a Tensor or None, not " + py::typeName(g));
        grad = obj(g)->t;
      }
      try {
        autograd::backward({x->t}, {grad}, retainGraph, createGraph);
      } catch (const TorchError& e) { rethrow(in, e); }
      return py::None();
    });
  return nullptr;
}

bool autogradSetAttr(py::Interpreter& in, const Value& t, const std::string& name, const Value& v) {
  py::TensorObj* x = obj(t);
  if (name == "requires_grad") {
    if (x->fake) {
      // Dynamo's break at the STORE_ATTR (gb0206): the store runs eagerly, the rest resumes.
      py::GraphBreak u("KB044", "setattr() on Tensor.requires_grad",
                       "setattr() on Tensor.requires_grad not supported. Mutating requires_grad can introduce a new leaf "
                       "from non-leaf or vice versa in the middle of the graph, which AOTAutograd does not currently "
                       "know how to handle.",
                       {"It may be possible to write Dynamo tracing rules for this code. Please report an issue to "
                        "PyTorch if you encounter this graph break often and it is causing performance issues."});
      u.where = in.currentLocation();
      u.stack = in.userStack();
      throw u;
    }
    setRequiresGrad(in, x, in.truthy(v));
    return true;
  }
  if (name == "grad") {
    if (x->fake) notInCapture(in, "grad");
    if (py::isNone(v)) {
      if (x->t.autograd()) x->t.autograd()->grad = Tensor();
      return true;
    }
    if (v->kind != VK::Tensor)
      in.raise("TypeError", "assigned grad expected to be a Tensor or None but got grad of type " + py::typeName(v));
    const Tensor& g = obj(v)->t;
    if (g.sizes() != x->t.sizes()) in.raise("RuntimeError", "assigned grad has data of a different size");
    if (g.dtype() != x->t.dtype()) in.raise("RuntimeError", "assigned grad has data of a different type");
    if (!x->t.autograd()) x->t.setAutograd(std::make_shared<tensor::AutogradMeta>());
    x->t.autograd()->grad = g;
    return true;
  }
  if (name == "data") {
    if (v->kind != VK::Tensor) in.raise("TypeError", "data must be a Tensor, not " + py::typeName(v));
    if (x->fake || obj(v)->fake) {
      // While capturing: the traced tensor stands for v's value from here on, and the store is
      // replayed on the program's tensor after the graph (Tracer::onSetData).
      if (!in.tracer) in.raise("RuntimeError", "internal error: a traced tensor outside capture");
      tracerOf(in)->onSetData(t, v);
      return true;
    }
    // Same autograd identity, new contents (param.data = ...).
    auto meta = x->t.autograd();
    x->t = obj(v)->t.detach();
    x->t.setAutograd(meta);
    return true;
  }
  return false;
}

}  // namespace kiln::torchapi
