// torch.autograd.Function's native half: torch.autograd._attach_function wires the outputs of
// a Function's forward into autograd (engine/autograd/custom_function.h). The Python half
// (Function.apply, FunctionCtx, once_differentiable) is
// engine/torch/prelude/torch.autograd.function.py (re-exported by torch.autograd.py).
//
// While capturing, a Function applied to inputs that require grad (under grad mode) is traced
// as Dynamo 2.11 traces it, without a graph break: its forward's ops are already in the graph
// (recorded under no_grad), backward is traced once on fake gradients to check that it can be
// (if not, the call breaks the graph with the reason), and the call is recorded as one
// torch.ops.higher_order.autograd_function_apply node (inputs, outputs, saved values). When the
// graph's backward runs, that node (run eagerly) makes the outputs results of a <Name>Backward
// node that calls the user's backward with a ctx rebuilt from the run's saved values and the
// non-tensor attributes forward set (applyCapturedFunction).
#include "engine/torch/autograd_function.h"
#include "engine/autograd/custom_function.h"
#include "engine/autograd/grad_mode.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"
#include "engine/torch/torch_functions.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

py::TensorObj* tensorIn(const Value& v) { return v && v->kind == VK::Tensor ? py::as<py::TensorObj>(v) : nullptr; }

bool contains(const std::vector<Value>& items, const Value& v) {
  return std::any_of(items.begin(), items.end(), [&](const Value& x) { return x.get() == v.get(); });
}

// The gradients a backward returned, one per forward argument (undefined: None).
std::vector<tensor::Tensor> gradientsOf(py::Interpreter& in, const Value& r) {
  std::vector<Value> items = r->kind == VK::Tuple || r->kind == VK::List ? in.iterate(r) : std::vector<Value>{r};
  std::vector<tensor::Tensor> out;
  for (const auto& v : items) {
    if (py::isNone(v)) out.emplace_back();
    else if (auto* t = tensorIn(v); t && !t->fake) out.push_back(t->t);
    else in.raise("TypeError", "backward() must return Tensors or None, got " + py::typeName(v));
  }
  return out;
}

// A Function call captured into a graph (the autograd_function_apply node's fn_id names it).
struct CapturedFunction {
  py::Interpreter* interp = nullptr;
  std::string name;                                  // "TripleSumBackward"
  Value backward;                                    // cls.backward (or vjp): backward(ctx, *grads)
  std::shared_ptr<py::ClassObj> ctxClass;            // the ctx's class (BackwardCFunction)
  std::vector<std::pair<std::string, Value>> attrs;  // ctx attributes as forward left them
  std::map<const py::Obj*, size_t> savedSlot;        // fake tensor in attrs -> index into `saved`
  std::vector<Value> held;                           // those fake tensors, kept alive
  bool materialize = true;
  std::vector<bool> differentiable;  // per output
};

std::mutex registryMutex;
std::map<int64_t, std::shared_ptr<CapturedFunction>>& registry() {
  static std::map<int64_t, std::shared_ptr<CapturedFunction>> r;
  return r;
}

// `v` with every fake tensor that stands for a saved value replaced by the run's tensor
// (through tuples, lists and dicts); other values are shared with the capture.
Value substitute(const Value& v, const CapturedFunction& f, const std::vector<tensor::Tensor>& saved, int depth = 0) {
  if (!v) return v;
  if (v->kind == VK::Tensor) {
    auto it = f.savedSlot.find(v.get());
    if (it == f.savedSlot.end()) return v;
    const tensor::Tensor& t = saved.at(it->second);
    return t.defined() ? py::makeTensor(t) : py::None();
  }
  if (depth > 8) return v;
  if (v->kind == VK::Tuple || v->kind == VK::List) {
    const auto& items = v->kind == VK::Tuple ? py::as<py::TupleObj>(v)->items : py::as<py::ListObj>(v)->items;
    std::vector<Value> out;
    bool changed = false;
    for (const auto& x : items) {
      out.push_back(substitute(x, f, saved, depth + 1));
      changed = changed || out.back() != x;
    }
    if (!changed) return v;
    return v->kind == VK::Tuple ? py::makeTuple(std::move(out)) : py::makeList(std::move(out));
  }
  if (v->kind == VK::Dict) {
    auto* d = py::as<py::DictObj>(v);
    auto out = std::make_shared<py::DictObj>();
    bool changed = false;
    for (const auto& [k, x] : d->items) {
      out->items.emplace_back(k, substitute(x, f, saved, depth + 1));
      changed = changed || out->items.back().second != x;
    }
    return changed ? Value(out) : v;
  }
  return v;
}

// Whether a fake tensor sits inside `v` where substitute() cannot reach it (an object's
// attributes): the rebuilt ctx would hand backward a capture-time stand-in.
bool fakeOutOfReach(const Value& v, bool reachable, int depth = 0) {
  if (!v || depth > 4) return false;
  if (auto* t = tensorIn(v)) return t->fake && !reachable;
  if (v->kind == VK::Tuple || v->kind == VK::List) {
    const auto& items = v->kind == VK::Tuple ? py::as<py::TupleObj>(v)->items : py::as<py::ListObj>(v)->items;
    return std::any_of(items.begin(), items.end(), [&](const Value& x) { return fakeOutOfReach(x, reachable && depth < 8, depth + 1); });
  }
  if (v->kind == VK::Dict) {
    for (const auto& [k, x] : py::as<py::DictObj>(v)->items)
      if (fakeOutOfReach(x, reachable && depth < 8, depth + 1)) return true;
    return false;
  }
  if (v->kind == VK::Instance) {
    for (const auto& [k, x] : py::as<py::InstanceObj>(v)->dict->items)
      if (fakeOutOfReach(x, false, depth + 1)) return true;
  }
  return false;
}

void collectSaved(const Value& v, CapturedFunction& f, std::vector<Value>& saved, int depth = 0) {
  if (!v) return;
  if (auto* t = tensorIn(v)) {
    if (t->fake && !f.savedSlot.count(v.get())) {
      f.savedSlot[v.get()] = saved.size();
      saved.push_back(v);
      f.held.push_back(v);
    }
    return;
  }
  if (depth > 8) return;
  if (v->kind == VK::Tuple || v->kind == VK::List)
    for (const auto& x : v->kind == VK::Tuple ? py::as<py::TupleObj>(v)->items : py::as<py::ListObj>(v)->items)
      collectSaved(x, f, saved, depth + 1);
  if (v->kind == VK::Dict)
    for (const auto& [k, x] : py::as<py::DictObj>(v)->items) collectSaved(x, f, saved, depth + 1);
}

[[noreturn]] void breakAt(py::Interpreter& in, const std::string& name, const std::string& why, bool kilnLimitation) {
  py::GraphBreak u(
      "KB031", "autograd.Function that Kiln cannot capture",
      "torch.autograd.Function " + name + " cannot be traced into the graph: " + why + "; the call runs eagerly with its own backward.",
      {"Call it under torch.no_grad() or on inputs that do not require grad to have its forward compiled."});
  u.kilnLimitation = kilnLimitation;
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

// The capture of Function.apply on inputs that require grad (see the top of this file).
Value captureFunction(py::Interpreter& in, const std::string& name, const Value& runBackward, const Value& ctx, const Value& backward,
                      int64_t firstNode, const std::vector<Value>& args, const Value& output, const std::vector<Value>& dirty,
                      const std::vector<Value>& nonDiff, bool materialize) {
  TracerHooks& tr = *tracerOf(in);
  const bool single = output->kind != VK::Tuple;
  std::vector<Value> outs = single ? std::vector<Value>{output} : in.iterate(output);
  if (outs.empty()) breakAt(in, name, "its forward returns no tensor", true);
  for (const auto& o : outs) {
    auto* t = tensorIn(o);
    if (!t) breakAt(in, name, "its forward returns " + py::typeName(o) + " among its outputs", true);
    if (!t->fake) breakAt(in, name, "its forward returns a tensor computed outside the graph", true);
  }
  if (!ctx || ctx->kind != VK::Instance) breakAt(in, name, "its ctx is not an object", true);

  // backward must trace (Dynamo speculates it as a subgraph): once, on fake gradients, with grad
  // mode off as a backward runs; what it recorded is dropped again.
  const size_t mark = static_cast<size_t>(tr.capturedGraph().nextId());
  const size_t effects = tr.sideEffectCount();
  std::string why;
  bool limitation = false;
  {
    autograd::GradModeGuard off(false);
    CallArgs call;
    for (const auto& o : outs) {
      ir::TensorType ty = tensorIn(o)->type;
      ty.requiresGrad = false;
      call.args.push_back(tr.record("torch.ones_like", ir::NodeKind::CallFunction, {o}, {}, ty));
    }
    try {
      Value r = in.call(runBackward, call);
      std::vector<Value> items = r->kind == VK::Tuple || r->kind == VK::List ? in.iterate(r) : std::vector<Value>{r};
      for (const auto& v : items)
        if (!py::isNone(v) && !tensorIn(v)) why = "its backward returns " + py::typeName(v);
    } catch (const py::GraphBreak& u) {
      why = "its backward cannot be traced (" + u.title + ")";
      limitation = u.kilnLimitation;
    } catch (const py::PyError& e) {
      why = "tracing its backward raised " + e.type() + ": " + e.message();
      limitation = true;
    }
  }
  // Tracing it must leave nothing behind: a backward that changes objects, globals or cells
  // outside itself would have that replayed by every forward call (Dynamo breaks on it too).
  if (why.empty() && tr.sideEffectCount() != effects) why = "its backward changes state outside itself";
  tr.truncate(mark);
  if (!why.empty()) breakAt(in, name, why, limitation);

  auto f = std::make_shared<CapturedFunction>();
  f->interp = &in;
  f->name = name;
  f->backward = backward;
  f->materialize = materialize;
  auto* c = py::as<py::InstanceObj>(ctx);
  f->ctxClass = c->cls;
  std::vector<Value> saved;
  for (const auto& [k, v] : c->dict->items) {
    if (k->kind != VK::Str) continue;
    const std::string key = py::as<py::StrObj>(k)->v;
    if (key == "dirty_tensors" || key == "non_differentiable") continue;  // marks, read here
    if (fakeOutOfReach(v, true)) breakAt(in, name, "ctx." + key + " holds a tensor inside an object", true);
    collectSaved(v, *f, saved, 0);
    f->attrs.emplace_back(key, v);
  }
  for (const auto& o : outs) f->differentiable.push_back(!contains(nonDiff, o));

  int64_t id;
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    id = static_cast<int64_t>(registry().size());
    registry()[id] = f;
  }
  std::vector<Value> inputs;
  for (const auto& x : args) inputs.push_back(tensorIn(x) ? x : py::None());
  std::vector<ir::TensorType> types;
  for (const auto& o : outs) types.push_back(tensorIn(o)->type);
  std::vector<Value> results = tr.recordMulti(
      torchapi::kAutogradFunctionApply, ir::NodeKind::CallFunction, {py::makeList(inputs), py::makeList(outs), py::makeList(saved)},
      {{"fn_id", py::makeInt(id)}, {"name", py::makeStr(name)}, {"first_node", py::makeInt(firstNode)}}, types);
  std::vector<Value> items;
  for (size_t i = 0; i < outs.size(); ++i) {
    auto* r = py::as<py::TensorObj>(results[i]);
    if (!f->differentiable[i]) {
      // No gradient flows through it: the getitem is as if computed under no_grad.
      if (ir::Node* n = tr.capturedGraph().find(r->node)) {
        n->noGrad = true;
        n->types[0].requiresGrad = false;
      }
      r->type.requiresGrad = false;
    }
    if (contains(dirty, outs[i]) && contains(args, outs[i])) {
      // A dirty input is the output itself (rebased onto the Function's node), so every later
      // use of the object reads the node's result.
      auto* o = tensorIn(outs[i]);
      o->node = r->node;
      o->type = r->type;
      items.push_back(outs[i]);
    } else {
      items.push_back(results[i]);
    }
  }
  return single ? items[0] : py::makeTuple(items);
}

// _attach_function(name, backward, args, output, dirty, non_differentiable, materialize_grads
//                  [, ctx, user_backward, first_node])
Value attachFunction(py::Interpreter& in, CallArgs& a) {
  if (a.args.size() != 7 && a.args.size() != 10) in.raise("TypeError", "_attach_function() takes 7 or 10 arguments");
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
    if (grad && inputsRequireGrad && a.args.size() == 10) {
      const int64_t firstNode = a.args[9]->kind == VK::Int ? py::as<py::IntObj>(a.args[9])->small() : 0;
      return captureFunction(in, name, backwardFn, a.args[7], a.args[8], firstNode, args, output, dirty, nonDiff, materialize);
    }
    if (grad && inputsRequireGrad) {
      py::GraphBreak u("KB031", "autograd.Function with inputs that require grad",
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
    return gradientsOf(*interp, interp->call(backwardFn, call));
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
  py::as<py::BuiltinObj>(autogradModule->scope->vars["_attach_function"])->isMethod = false;
  // Where a Function's forward starts in the graph being captured (0 outside capture): the
  // captured node reads its inputs as they were there (a dirty input is changed by forward).
  autogradModule->scope->vars["_function_begin"] = py::makeBuiltin("torch.autograd._function_begin", [](py::Interpreter& in, CallArgs&) {
    return py::makeInt(in.tracer ? tracerOf(in)->capturedGraph().nextId() : 0);
  });
  py::as<py::BuiltinObj>(autogradModule->scope->vars["_function_begin"])->isMethod = false;
}

std::vector<tensor::Tensor> applyCapturedFunction(const ir::Node& n, const std::vector<tensor::Tensor>& inputs,
                                                  const std::vector<tensor::Tensor>& outputs, const std::vector<tensor::Tensor>& saved) {
  const ir::Arg* id = n.kwarg("fn_id");
  std::shared_ptr<CapturedFunction> f;
  if (id && id->kind == ir::Arg::Kind::Int) {
    std::lock_guard<std::mutex> lock(registryMutex);
    auto it = registry().find(id->i);
    if (it != registry().end()) f = it->second;
  }
  if (!f) throw std::runtime_error("autograd_function_apply: no captured torch.autograd.Function for this node");
  // Each output is a tensor of its own (an input returned as it was becomes a view of it).
  std::vector<tensor::Tensor> outs;
  for (const auto& o : outputs) outs.push_back(o.defined() ? o.view(o.sizes(), o.strides(), o.offset()) : o);
  bool needsGrad = false;
  for (const auto& t : inputs) needsGrad = needsGrad || (t.defined() && t.requiresGrad());
  if (!autograd::isGradEnabled() || !needsGrad) return outs;

  // The ctx backward sees: forward's attributes, with the run's tensors for the saved ones.
  py::Interpreter* interp = f->interp;
  auto ctx = std::make_shared<py::InstanceObj>(f->ctxClass);
  for (const auto& [k, v] : f->attrs) ctx->dict->setStr(k, substitute(v, *f, saved));
  autograd::CustomFunctionSpec spec;
  spec.name = f->name;
  spec.materializeGrads = f->materialize;
  spec.inputs = inputs;
  Value backwardFn = f->backward;
  Value ctxValue = ctx;
  spec.backward = [interp, backwardFn, ctxValue](std::vector<tensor::Tensor> grads) {
    CallArgs call;
    call.args.push_back(ctxValue);
    for (auto& g : grads) call.args.push_back(g.defined() ? py::makeTensor(std::move(g)) : py::None());
    return gradientsOf(*interp, interp->call(backwardFn, call));
  };
  std::vector<tensor::Tensor*> targets;
  for (auto& o : outs) targets.push_back(&o);
  autograd::attachCustomFunction(std::move(spec), targets, f->differentiable);
  return outs;
}

}  // namespace kiln::torchapi
