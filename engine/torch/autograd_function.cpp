// torch.autograd.Function's native half: torch.autograd._attach_function wires the outputs of
// a Function's forward into autograd (engine/autograd/custom_function.h). The Python half
// (Function.apply, FunctionCtx, once_differentiable) is
// engine/torch/prelude/torch.autograd.function.py (re-exported by torch.autograd.py).
#include "engine/autograd/custom_function.h"
#include "engine/autograd/grad_mode.h"
#include "engine/capture/tracer.h"
#include "engine/torch/autograd_function.h"
#include "engine/torch/bindings.h"

#include <algorithm>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

py::TensorObj* tensorIn(const Value& v) { return v && v->kind == VK::Tensor ? static_cast<py::TensorObj*>(v.get()) : nullptr; }

bool contains(const std::vector<Value>& items, const Value& v) {
  return std::any_of(items.begin(), items.end(), [&](const Value& x) { return x.get() == v.get(); });
}

// _attach_function(name, backward, args, output, dirty, non_differentiable, materialize_grads)
Value attachFunction(py::Interpreter& in, CallArgs& a) {
  if (a.args.size() != 7) in.raise("TypeError", "_attach_function() takes 7 arguments");
  const std::string name = in.str(a.args[0]);
  Value backwardFn = a.args[1];
  const std::vector<Value> args = in.iterate(a.args[2]);
  Value output = a.args[3];
  const std::vector<Value> dirty = in.iterate(a.args[4]), nonDiff = in.iterate(a.args[5]);
  const bool materialize = in.truthy(a.args[6]);

  bool anyFake = false, needsGrad = false;
  for (const auto& x : args)
    if (auto* t = tensorIn(x)) {
      anyFake = anyFake || t->fake;
      needsGrad = needsGrad || (!t->fake && t->t.requiresGrad());
    }
  const bool single = output->kind != VK::Tuple;
  std::vector<Value> outs = single ? std::vector<Value>{output} : in.iterate(output);
  for (const auto& o : outs) anyFake = anyFake || (tensorIn(o) && tensorIn(o)->fake);
  if (in.tracer && anyFake) {
    // Inlined forward: fine without gradients. With them Dynamo records the Function as one
    // higher-order op with its backward; Kiln does not, so the call runs eagerly.
    bool grad = autograd::isGradEnabled();
    bool inputsRequireGrad = false;
    for (const auto& x : args)
      if (auto* t = tensorIn(x); t && t->fake) inputsRequireGrad = inputsRequireGrad || t->type.requiresGrad;
    if (grad && inputsRequireGrad) {
      capture::Unsupported u("KB031", "autograd.Function with inputs that require grad",
                             "Kiln does not capture the backward of a torch.autograd.Function yet (" + name +
                                 "); the call runs eagerly with its own backward.",
                             {"Call it under torch.no_grad() or on inputs that do not require grad to have its forward compiled."});
      u.kilnLimitation = true;
  u.where = in.currentLocation();
      u.stack = in.userStack();
      throw u;
    }
    return output;
  }
  if (!autograd::isGradEnabled() || !needsGrad) return output;

  autograd::CustomFunctionSpec spec;
  spec.name = name;
  spec.materializeGrads = materialize;
  for (const auto& x : args) spec.inputs.push_back(tensorIn(x) ? tensorIn(x)->t : tensor::Tensor());
  py::Interpreter* interp = &in;
  spec.backward = [interp, backwardFn](std::vector<tensor::Tensor> grads) {
    CallArgs call;
    for (auto& g : grads) call.args.push_back(g.defined() ? py::makeTensor(std::move(g)) : py::None());
    Value r = interp->call(backwardFn, call);
    std::vector<Value> items = r->kind == VK::Tuple || r->kind == VK::List ? interp->iterate(r) : std::vector<Value>{r};
    std::vector<tensor::Tensor> out;
    for (const auto& v : items) {
      if (py::isNone(v)) out.emplace_back();
      else if (auto* t = tensorIn(v); t && !t->fake) out.push_back(t->t);
      else interp->raise("TypeError", "backward() must return Tensors or None, got " + py::typeName(v));
    }
    return out;
  };

  // Each output: an input returned unchanged becomes a view of it (its own autograd identity);
  // a dirty input is rebased onto the node; outputs marked non-differentiable get no grad_fn.
  std::vector<tensor::Tensor*> targets;
  std::vector<bool> differentiable;
  for (auto& o : outs) {
    if (!tensorIn(o)) continue;
    const bool diff = !contains(nonDiff, o);
    if (contains(args, o) && !contains(dirty, o)) {
      const tensor::Tensor& x = tensorIn(o)->t;
      o = py::makeTensor(x.view(x.sizes(), x.strides(), x.offset()));
    }
    targets.push_back(&tensorIn(o)->t);
    differentiable.push_back(diff);
  }
  autograd::attachCustomFunction(std::move(spec), targets, differentiable);
  return single ? outs[0] : py::makeTuple(outs);
}

}  // namespace

void installAutogradFunction(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& autogradModule) {
  (void)in;
  autogradModule->scope->vars["_attach_function"] = py::makeBuiltin("torch.autograd._attach_function", attachFunction);
  static_cast<py::BuiltinObj*>(autogradModule->scope->vars["_attach_function"].get())->isMethod = false;
}

}  // namespace kiln::torchapi
