// torch._dynamo and torch.compiler: what scripts call to steer capture — graph_break, disable,
// mark_dynamic / mark_static, is_compiling, reset, allow_in_graph and the config object.
#include "engine/torch/tensor_protocol.h"

#include "engine/torch/capture_hooks.h"

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

// torch._dynamo.config: a module of options, with PyTorch 2.11's defaults; the ones Kiln reads
// change what capture does (capture/compile_context.cpp reads them through torchapi::dynamoConfig).
void fillConfig(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& cfg) {
  auto& d = cfg->scope->vars;
  d["recompile_limit"] = py::makeInt(8);
  d["cache_size_limit"] = py::makeInt(8);  // the old name; either may be set
  d["accumulated_recompile_limit"] = py::makeInt(256);
  d["accumulated_cache_size_limit"] = py::makeInt(256);
  for (const char* off : {"verbose", "suppress_errors", "capture_scalar_outputs", "capture_dynamic_output_shape_ops", "specialize_int",
                          "specialize_float", "nested_graph_breaks", "error_on_recompile", "fail_on_recompile_limit_hit",
                          "allow_unspec_int_on_nn_module", "capture_func_transforms"})
    d[off] = py::False();
  for (const char* on : {"automatic_dynamic_shapes", "assume_static_by_default", "force_parameter_static_shapes",
                         "force_nn_module_property_static_shapes", "optimize_ddp", "inline_inbuilt_nn_modules"})
    d[on] = py::True();
  // config.patch(name=value, ...) or patch({"name": value}): a context manager and decorator
  // that sets options and restores them.
  std::weak_ptr<py::ModuleObj> weak = cfg;
  d["patch"] = py::makeBuiltin("torch._dynamo.config.patch", [weak](py::Interpreter& in, CallArgs& a) -> Value {
    auto self = weak.lock();
    std::vector<std::pair<std::string, Value>> changes;
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (a.args[i]->kind == VK::Dict)
        for (auto& [k, v] : py::as<py::DictObj>(a.args[i])->items) changes.emplace_back(in.str(k), v);
      else if (a.args[i]->kind == VK::Str && i + 1 < a.args.size()) changes.emplace_back(in.str(a.args[i]), a.args[i + 1]), ++i;
    }
    for (auto& kv : a.kwargs) changes.push_back(kv);
    for (const auto& [k, v] : changes)
      if (!self->scope->vars.count(k)) in.raise("AttributeError", "torch._dynamo.config has no option '" + k + "'");
    auto saved = std::make_shared<std::vector<std::pair<std::string, Value>>>();
    auto enter = [self, changes, saved]() {
      for (const auto& [k, v] : changes) {
        saved->emplace_back(k, self->scope->vars[k]);
        self->scope->vars[k] = v;
      }
    };
    auto exit = [self, saved]() {
      for (auto it = saved->rbegin(); it != saved->rend(); ++it) self->scope->vars[it->first] = it->second;
      saved->clear();
    };
    auto pcls = std::make_shared<py::ClassObj>();
    pcls->name = pcls->qualname = "ConfigPatch";
    pcls->mro.push_back(pcls);
    pcls->dict["__enter__"] = py::makeBuiltin("ConfigPatch.__enter__", [enter](py::Interpreter&, CallArgs&) {
      enter();
      return py::None();
    });
    pcls->dict["__exit__"] = py::makeBuiltin("ConfigPatch.__exit__", [exit](py::Interpreter&, CallArgs&) {
      exit();
      return py::False();
    });
    pcls->dict["__call__"] = py::makeBuiltin("ConfigPatch.__call__", [enter, exit](py::Interpreter&, CallArgs& c) -> Value {
      Value fn = c.args.at(1);
      return py::makeBuiltin("config.patch(...)", [enter, exit, fn](py::Interpreter& in, CallArgs& b) -> Value {
        enter();
        try {
          Value r = in.call(fn, b);
          exit();
          return r;
        } catch (...) {
          exit();
          throw;
        }
      });
    });
    return std::make_shared<py::InstanceObj>(pcls);
  });
  (void)in;
}

// The marks torch._dynamo.mark_dynamic / mark_static leave on a tensor, as PyTorch leaves
// them (_dynamo_dynamic_indices / _dynamo_static_indices sets).
void markDims(py::Interpreter& in, const Value& t, const Value& index, const char* attr) {
  if (t->kind != VK::Tensor)
    in.raise("TypeError", std::string(attr == std::string("_dynamo_static_indices") ? "mark_static" : "mark_dynamic") +
                              " expects a tensor, got " + py::typeName(t));
  auto* tv = py::as<py::TensorObj>(t);
  int64_t nd = static_cast<int64_t>(tv->tensorType().sizes.size());
  std::vector<Value> dims;
  if (py::isNone(index)) {
    for (int64_t i = 0; i < nd; ++i) dims.push_back(py::makeInt(i));
  } else if (index->kind == VK::List || index->kind == VK::Tuple) {
    dims = in.iterate(index);
  } else {
    dims.push_back(index);
  }
  Value set = tv->attrs ? tv->attrs->getStr(attr) : nullptr;
  if (!set) {
    CallArgs none;
    set = in.call(in.builtin("set"), none);
    if (!tv->attrs) tv->attrs = std::make_shared<py::DictObj>();
    tv->attrs->setStr(attr, set);
  }
  for (auto& d : dims) {
    if (d->kind != VK::Int) in.raise("TypeError", "dimension indices must be ints");
    int64_t i = py::as<py::IntObj>(d)->small();
    if (i < 0) i += nd;
    if (i < 0 || i >= nd)
      in.raise("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-nd) + ", " + std::to_string(nd - 1) +
                                 "], but got " + std::to_string(py::as<py::IntObj>(d)->small()) + ")");
    CallArgs add;
    add.args = {py::makeInt(i)};
    in.call(in.getAttr(set, "add"), add);
  }
}

// torch.compiler.disable(fn, recursive=True, reason=None): the function runs eagerly; called
// from a traced function it is a graph break. `skippedAs` names a function of PyTorch's own that
// its trace rules skip (the prelude's stand-in for it): the break then reads as Dynamo's
// "marked as skipped" one for that function.
Value disable(py::Interpreter& in, const Value& fn, bool recursive, const std::string& reason, const std::string& skippedAs = "") {
  if (fn->kind == VK::Builtin && py::as<py::BuiltinObj>(fn)->dynamoDisabled) return fn;
  std::string name = fn->kind == VK::Function ? py::as<py::FunctionObj>(fn)->name : py::typeName(fn);
  char addr[32];
  std::snprintf(addr, sizeof addr, "%p", static_cast<void*>(fn.get()));
  std::string shown = "<function " + name + " at " + addr + ">";
  auto b = std::make_shared<py::BuiltinObj>(name, [fn, recursive, reason, shown, skippedAs](py::Interpreter& in, CallArgs& a) -> Value {
    if (in.tracer) {
      py::GraphBreak u =
          skippedAs.empty()
              ? py::GraphBreak("KB012", "Skip calling `torch.compiler.disable()`d function",
                               "Skip calling function `" + shown + "` since it was wrapped with `torch.compiler.disable` (reason: " +
                                   (reason.empty() ? std::string("None") : reason) + ")",
                               {"Remove the `torch.compiler.disable` call"})
              : py::GraphBreak("KB043", "Attempted to call function marked as skipped",
                               "Dynamo developers have intentionally marked that the function `" + skippedAs +
                                   "` in file `torch/_compile.py` should not be traced.",
                               {"Avoid calling the function `" + skippedAs + "`.",
                                "Apply `@torch._dynamo.dont_skip_tracing` to the function `" + skippedAs +
                                    "` to force tracing into the function. More graph breaks may occur as a result "
                                    "of attempting to trace into the function.",
                                "Please file an issue to PyTorch."});
      u.where = in.currentLocation();
      u.stack = in.userStack();
      throw u;
    }
    // recursive=True: nothing it calls is compiled either.
    int saved = in.interceptDepth;
    if (recursive) in.interceptDepth = 0;
    struct Restore {
      py::Interpreter& in;
      int depth;
      ~Restore() { in.interceptDepth = depth; }
    } restore{in, saved};
    if (fn->kind == VK::Function) return in.callFunction(*py::as<py::FunctionObj>(fn), a, nullptr);
    return in.call(fn, a);
  });
  b->wrapped = fn;
  b->dynamoDisabled = true;
  (void)in;
  return b;
}

Value disableEntry(py::Interpreter& in, CallArgs& a) {
  bool recursive = true;
  std::string reason;
  Value fn = a.args.empty() ? nullptr : a.args[0];
  if (Value r = a.kwarg("recursive")) recursive = in.truthy(r);
  if (a.args.size() > 1) recursive = in.truthy(a.args[1]);
  if (Value r = a.kwarg("reason"); r && !py::isNone(r)) reason = in.str(r);
  if (Value f = a.kwarg("fn")) fn = f;
  if (!fn || py::isNone(fn))
    return py::makeBuiltin("torch.compiler.disable.<decorator>",
                           [recursive, reason](py::Interpreter& in, CallArgs& b) { return disable(in, b.args.at(0), recursive, reason); });
  return disable(in, fn, recursive, reason);
}

// torch._dynamo._kiln_skipped(qualname)(fn): the prelude's stand-in for a function of PyTorch's
// own that Dynamo's trace rules skip without recursing (DDP's _inside_ddp_forward): run eagerly,
// the functions it calls still compiled, the graph break PyTorch's.
Value skippedEntry(py::Interpreter& in, CallArgs& a) {
  const std::string qualname = a.args.empty() ? std::string() : in.str(a.args[0]);
  return py::makeBuiltin("torch._dynamo._kiln_skipped.<decorator>",
                         [qualname](py::Interpreter& in, CallArgs& b) { return disable(in, b.args.at(0), false, "", qualname); });
}

}  // namespace

void installDynamo(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& dynamo, const std::shared_ptr<py::ModuleObj>& compiler) {
  auto def = [](const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
    m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
    py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;  // a module function
    py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;  // a module function
  };
  def(dynamo, "_kiln_skipped", skippedEntry);
  def(dynamo, "graph_break", [](py::Interpreter& in, CallArgs& a) -> py::Value {
    if (!in.tracer) return py::None();  // outside capture it does nothing, as in PyTorch
    std::string msg = a.args.empty() ? "None" : in.str(a.args[0]);
    if (py::Value m = a.kwarg("msg")) msg = in.str(m);
    py::GraphBreak u("KB004", "Call to `torch._dynamo.graph_break()`", "User-inserted graph break. Message: " + msg,
                     {"Remove the `torch._dynamo.graph_break()` call."});
    u.where = in.currentLocation();
    u.stack = in.userStack();
    throw u;
  });
  for (const auto& m : {dynamo, compiler}) {
    def(m, "reset", [](py::Interpreter& in, CallArgs&) {
      if (in.compiler) compilerOf(in)->reset();
      return py::None();
    });
    def(m, "disable", disableEntry);
    // True while Dynamo traces (Kiln: while capturing); compiled code never re-runs the test.
    def(m, "is_compiling", [](py::Interpreter& in, CallArgs&) { return py::makeBool(in.tracer != nullptr); });
    def(m, "is_dynamo_compiling", [](py::Interpreter& in, CallArgs&) { return py::makeBool(in.tracer != nullptr); });
    def(m, "allow_in_graph", [](py::Interpreter&, CallArgs& a) { return a.args.at(0); });
  }
  def(dynamo, "mark_dynamic", [](py::Interpreter& in, CallArgs& a) {
    markDims(in, a.args.at(0), a.args.size() > 1 ? a.args[1] : (a.kwarg("index") ? a.kwarg("index") : py::None()),
             "_dynamo_dynamic_indices");
    return py::None();
  });
  def(dynamo, "maybe_mark_dynamic", [](py::Interpreter& in, CallArgs& a) {
    markDims(in, a.args.at(0), a.args.size() > 1 ? a.args[1] : py::None(), "_dynamo_weak_dynamic_indices");
    return py::None();
  });
  def(dynamo, "mark_static", [](py::Interpreter& in, CallArgs& a) {
    markDims(in, a.args.at(0), a.args.size() > 1 ? a.args[1] : py::None(), "_dynamo_static_indices");
    return py::None();
  });
  def(dynamo, "mark_static_address", [](py::Interpreter&, CallArgs&) { return py::None(); });
  auto config = std::make_shared<py::ModuleObj>("torch._dynamo.config");
  config->scope->vars["__name__"] = py::makeStr("torch._dynamo.config");
  fillConfig(in, config);
  in.registerModule(config);
  dynamo->scope->vars["config"] = config;
}

}  // namespace kiln::torchapi
