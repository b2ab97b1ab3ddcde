#include "engine/capture/compile_context.h"

#include "engine/autograd/compiled_function.h"
#include "engine/autograd/grad_mode.h"
#include "engine/capture/data_dependent.h"
#include "engine/capture/ddp_split.h"
#include "engine/capture/frame.h"
#include "engine/capture/inductor_options.h"
#include "engine/capture/resume.h"
#include "engine/capture/tracer.h"
#include "engine/ir/text.h"
#include "engine/ops/index_ops.h"
#include "engine/python/unparse.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/tensor/stop.h"
#include "engine/torch/torch_functions.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>
#include "engine/torch/nn_module.h"

#include <chrono>

namespace kiln::capture {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {
std::string baseName(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// A Python traceback as a graph break's user stack (file names by their base, as breaks show them).
std::vector<ir::SourceLoc> userStackOf(const std::vector<py::TraceFrame>& frames) {
  std::vector<ir::SourceLoc> out;
  for (const auto& f : frames) {
    ir::SourceLoc l;
    l.file = baseName(f.file);
    l.line = f.span.line;
    l.col = f.span.col;
    l.function = f.function;
    out.push_back(l);
  }
  return out;
}

// The file a break names: the frame it happened in (a prelude module's `torch.optim.py`, a
// user's helper module), as Dynamo names the innermost frame; the script by its display name.
std::string breakFile(const py::Interpreter& in, const std::string& script, const std::string& file) {
  return file.empty() || file == in.file() ? script : baseName(file);
}
}  // namespace

CompileContext::CompileContext(session::SessionSink& sink, codegen::KernelCompiler* cpu, const std::string& scriptPath)
    : sink_(sink), cpu_(cpu), file_(baseName(scriptPath)) {}
CompileContext::~CompileContext() = default;

void CompileContext::useBackend(const std::string& name, std::shared_ptr<Backend> backend) { backends_[name] = std::move(backend); }

Backend& CompileContext::backendFor(const std::string& name) {
  std::shared_ptr<Backend>& b = backends_[name];
  if (!b) b = BackendRegistry::global().make(name, BackendConfig{passOptions, cpu_});
  return *b;
}

void CompileContext::checkInductorOptions(py::Interpreter& in, const Value& options) { capture::checkInductorOptions(in, options); }

void CompileContext::reset() {
  frames_.clear();
  byCode_.clear();
  resumeCache_.clear();
}

int CompileContext::recompileLimit(py::Interpreter& in) {
  auto asInt = [](const py::Value& v, int dflt) {
    return v && v->kind == VK::Int ? static_cast<int>(py::as<py::IntObj>(v)->small()) : dflt;
  };
  int limit = asInt(torchapi::dynamoConfig(in, "recompile_limit"), 8);
  int old = asInt(torchapi::dynamoConfig(in, "cache_size_limit"), 8);
  return limit == 8 && old != 8 ? old : limit;
}

std::shared_ptr<Frame> CompileContext::newFrame(const Value& fn, const CompileOptions& opts) {
  auto f = std::make_shared<Frame>();
  f->fn = fn;
  f->opts = opts;
  f->name = fn->kind == VK::Function ? py::as<py::FunctionObj>(fn)->name : "forward";
  f->id = -1;  // numbered when first compiled, as Dynamo numbers frames in compile order
  return f;
}

namespace {

py::FunctionObj* forwardOf(py::Interpreter& in, const Value& module) {
  Value fwd = in.getAttr(module, "forward");
  if (fwd->kind == VK::BoundMethod) fwd = py::as<py::BoundMethodObj>(fwd)->fn;
  if (fwd->kind != VK::Function) in.raise("RuntimeError", "torch.compile: the module's forward is not a Python function");
  return py::as<py::FunctionObj>(fwd);
}

}  // namespace

namespace {

// What Dynamo's BACKEND_MATCH compares: torch.compile's inductor wrapper objects are equal when
// their mode and dynamic agree; a backend by name is the same callable each time.
std::string backendKey(const CompileOptions& o) {
  return o.backend + "|" + o.mode + "|" + (o.dynamic ? (*o.dynamic ? "dynamic" : "static") : "automatic");
}

constexpr const char* kBackendMatchFailure =
    "BACKEND_MATCH failure: torch.compile detected different backend callables. If this is unexpected, wrap your backend in "
    "functools.partial (or reuse the same cached backend) to avoid creating a new backend function each time. More details: "
    "https://github.com/pytorch/pytorch/issues/168373";

}  // namespace

Value CompileContext::compile(py::Interpreter& in, const Value& target, const CompileOptions& opts) {
  // One frame per code, whichever callable compiled it; a call installs its callable's options
  // (Dynamo's callback) on the frame, and entries compiled with others fail BACKEND_MATCH.
  auto withOptions = [opts](const std::shared_ptr<Frame>& frame) { frame->opts = opts; };
  // A torch.compiler.disable'd function stays eager.
  if (target->kind == VK::Builtin && py::as<py::BuiltinObj>(target)->dynamoDisabled) return target;
  if (target->kind == VK::Function) {
    auto frame = frameFor(target, opts);
    frame->alwaysOptimize = true;  // Dynamo's always_optimize_code_objects
    auto* fn = py::as<py::FunctionObj>(target);
    Value f = target;
    return py::makeBuiltin(fn->name, [this, frame, f, withOptions](py::Interpreter& in, CallArgs& a) {
      withOptions(frame);
      return callWith(in, frame, f, a, nullptr);
    });
  }
  if (target->kind == VK::Instance && in.getAttrOrNull(target, "_modules")) {
    // torch.compile(module) -> OptimizedModule: calls go through the compiled forward, every
    // other attribute reads the original module (_orig_mod).
    forwardOf(in, target);
    Value fwd = in.getAttr(target, "forward");
    if (fwd->kind == VK::BoundMethod) fwd = py::as<py::BoundMethodObj>(fwd)->fn;
    auto frame = frameFor(fwd, opts);
    frame->alwaysOptimize = true;  // Dynamo's always_optimize_code_objects
    auto cls = std::make_shared<py::ClassObj>();
    cls->name = cls->qualname = "OptimizedModule";
    cls->mro.push_back(cls);
    Value orig = target;
    cls->dict["__call__"] = py::makeBuiltin("OptimizedModule.__call__", [this, frame, orig, withOptions](py::Interpreter& in, CallArgs& a) {
      CallArgs rest = a;
      rest.args.erase(rest.args.begin());
      // As PyTorch's OptimizedModule.__call__ compiles the original module's _call_impl, the
      // module's forward pre-hooks and forward hooks run around the compiled forward.
      Value compiled = py::makeBuiltin("compiled forward", [this, frame, orig, withOptions](py::Interpreter& in, CallArgs& c) {
        withOptions(frame);
        return call(in, frame, c, orig);
      });
      return torchapi::callForwardWithHooks(in, orig, compiled, rest);
    });
    auto wrapper = std::make_shared<std::weak_ptr<py::Obj>>();  // the OptimizedModule (weak: no cycle)
    cls->dict["__getattr__"] = py::makeBuiltin("OptimizedModule.__getattr__", [orig, wrapper](py::Interpreter& in, CallArgs& a) {
      const std::string name = in.str(a.args.at(1));
      Value v = in.getAttr(orig, name);
      // nn.Module methods that return the module (opt.to(torch.float64), opt.eval()) return the
      // OptimizedModule, as in PyTorch, not the module it wraps.
      static const std::set<std::string> chained = {"to",       "cpu",   "cuda", "type",           "float", "double",   "half",
                                                    "bfloat16", "train", "eval", "requires_grad_", "apply", "to_empty", "share_memory"};
      if (!chained.count(name) || v->kind != VK::BoundMethod) return v;
      return py::makeBuiltin(name, [v, orig, wrapper](py::Interpreter& in, CallArgs& c) {
        Value r = in.call(v, c);
        if (r == orig)
          if (Value om = wrapper->lock()) return om;
        return r;
      });
    });
    auto om = std::make_shared<py::InstanceObj>(cls);
    *wrapper = om;
    om->dict->setStr("_orig_mod", orig);
    return om;
  }
  if (target->kind == VK::BoundMethod) {
    auto* bm = py::as<py::BoundMethodObj>(target);
    auto frame = frameFor(bm->fn, opts);
    frame->alwaysOptimize = true;  // Dynamo's always_optimize_code_objects
    Value self = bm->self;
    return py::makeBuiltin(frame->name, [this, frame, self, withOptions](py::Interpreter& in, CallArgs& a) {
      withOptions(frame);
      return call(in, frame, a, self);
    });
  }
  in.raise("RuntimeError", "torch.compile expects a function or an nn.Module, got " + py::typeName(target));
}

void CompileContext::compileModuleInPlace(py::Interpreter& in, const Value& module, const CompileOptions& opts) {
  forwardOf(in, module);
  Value fwd = in.getAttr(module, "forward");
  if (fwd->kind == VK::BoundMethod) fwd = py::as<py::BoundMethodObj>(fwd)->fn;
  auto frame = frameFor(fwd, opts);
  frame->alwaysOptimize = true;  // Dynamo's always_optimize_code_objects
  auto st = std::make_shared<torchapi::CompiledModuleState>();
  std::weak_ptr<py::Obj> weakSelf = module;  // the module owns the state: avoid a cycle
  st->compiledCall = py::makeBuiltin("compiled forward", [this, frame, weakSelf, opts](py::Interpreter& in, CallArgs& a) {
    frame->opts = opts;  // this callable's backend (BACKEND_MATCH, as in compile())
    Value self = weakSelf.lock();
    return call(in, frame, a, self);
  });
  py::as<py::InstanceObj>(module)->native = st;
}

namespace {

// Binds a call's arguments to the function's parameters (self excluded): names and values in
// parameter order. False when the signature is beyond what capture handles (*args, **kwargs).
bool bindArgs(py::FunctionObj& fn, const CallArgs& a, bool hasSelf, std::vector<Value>& out, std::vector<std::string>& names) {
  size_t first = hasSelf ? 1 : 0;
  size_t normal = 0;  // positional parameters bound
  std::set<std::string> named;
  for (size_t i = first; i < fn.params.size(); ++i) {
    const auto& p = fn.params[i];
    if (p.kind == py::Param::VarArgs) {
      // *args: the positional arguments after the named ones, as a tuple (Dynamo's L['args']).
      std::vector<Value> rest;
      for (size_t k = normal; k < a.args.size(); ++k) rest.push_back(a.args[k]);
      names.push_back(p.name);
      out.push_back(py::makeTuple(std::move(rest)));
      normal = a.args.size();
      continue;
    }
    if (p.kind == py::Param::VarKw) {
      // **kwargs: the keyword arguments no parameter takes, in call order (L['kwargs']).
      auto d = std::make_shared<py::DictObj>();
      for (const auto& [k, v] : a.kwargs)
        if (!named.count(k)) d->setStr(k, v);
      names.push_back(p.name);
      out.push_back(d);
      continue;
    }
    if (p.kind != py::Param::Normal) return false;
    names.push_back(p.name);
    named.insert(p.name);
    size_t pos = i - first;
    if (pos < a.args.size()) {
      out.push_back(a.args[pos]);
      ++normal;
      continue;
    }
    if (Value v = a.kwarg(p.name)) {
      out.push_back(v);
      continue;
    }
    if (fn.defaults[i]) {
      out.push_back(fn.defaults[i]);
      continue;
    }
    return false;  // let the normal call raise the TypeError
  }
  for (const auto& [k, v] : a.kwargs)  // a keyword no parameter takes, and no **kwargs: the call's TypeError
    if (!named.count(k) && std::none_of(fn.params.begin(), fn.params.end(), [](const py::Param& p) { return p.kind == py::Param::VarKw; }))
      return false;
  return a.args.size() <= normal;
}

struct InterceptScope {
  py::Interpreter& in;
  explicit InterceptScope(py::Interpreter& i) : in(i) { ++in.interceptDepth; }
  ~InterceptScope() { --in.interceptDepth; }
};

// Guards are evaluated with Dynamo's frame callback off: user code a guard runs (an object's
// __getattr__ behind a hasattr guard) is not a frame to compile, and its exceptions are the
// guard's answer.
struct NoInterceptScope {
  py::Interpreter& in;
  int saved;
  explicit NoInterceptScope(py::Interpreter& i) : in(i), saved(i.interceptDepth) { in.interceptDepth = 0; }
  ~NoInterceptScope() { in.interceptDepth = saved; }
};

// Builds the templates an entry rebuilds its values from (graph outputs are appended to
// `outputs`), and the scopes of the functions the trace defined that it hands on.
struct Templater {
  py::Interpreter& in;
  Tracer& tr;
  std::vector<int>& outputs;
  std::vector<ScopeTemplate>& scopes;
  const py::Scope* fnClosure;  // the compiled function's closure at capture
  std::map<const py::Scope*, int> scopeIndex;
  std::string unbuildable;  // why a value handed on cannot be made again
  std::string sourceless;   // a value Dynamo cannot reconstruct either (Reconstruction failure)

  bool isTraceScope(const py::Scope* sc) const { return sc && sc->serial >= tr.firstScope; }

  // The template of trace scope `sc` (made, with its parents, on first use).
  int scopeOf(const std::shared_ptr<py::Scope>& sc) {
    auto known = scopeIndex.find(sc.get());
    if (known != scopeIndex.end()) return known->second;
    int i = static_cast<int>(scopes.size());
    scopes.emplace_back();
    scopeIndex[sc.get()] = i;
    const std::shared_ptr<py::Scope>& parent = sc->parent;
    if (isTraceScope(parent.get())) {
      int p = scopeOf(parent);
      scopes[static_cast<size_t>(i)].parent = p;
    } else if (parent.get() == fnClosure) {
      scopes[static_cast<size_t>(i)].parentIsClosure = true;
    } else {
      scopes[static_cast<size_t>(i)].realParent = parent;
    }
    return i;
  }

  // Variable `name` of trace scope `sc` is made again with its current value.
  void addVar(int i, const std::string& name, const Value& v) {
    auto& names = scopes[static_cast<size_t>(i)].names;
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    names.push_back(name);
    scopes[static_cast<size_t>(i)].values.emplace_back();
    size_t k = names.size() - 1;
    tr.onLocalRead(name, v);  // a constant that came from an argument is guarded
    ValueTemplate t = make(v);
    scopes[static_cast<size_t>(i)].values[k] = std::move(t);
  }

  ValueTemplate closure(const Value& v) {
    auto* f = py::as<py::FunctionObj>(v);
    ValueTemplate t;
    t.kind = ValueTemplate::Kind::Closure;
    t.constant = v;
    t.index = scopeOf(f->closure);
    for (const auto& d : f->defaults) t.items.push_back(d ? make(d) : ValueTemplate{});
    for (const auto& name : tr.freeVarsOf(f))
      for (std::shared_ptr<py::Scope> sc = f->closure; sc; sc = sc->parent) {
        auto it = sc->vars.find(name);
        if (it == sc->vars.end()) continue;
        if (isTraceScope(sc.get())) addVar(scopeOf(sc), name, it->second);
        break;
      }
    return t;
  }

  ValueTemplate make(const Value& v) {
    ValueTemplate t;
    if (!v) return t;      // a Constant with no value: an attribute the function deleted
    tr.onFloatEscapes(v);  // a value computed from dynamic floats leaves the frame: specialized
    if (v->kind == VK::Tensor) {
      auto* tv = py::as<py::TensorObj>(v);
      if (tv->fake) {
        if (tv->node < 0 || tr.isInput(tv->node)) {
          // (Its own source first: after x.data = y, x reads y's input but is still x.)
          const Source* s = tr.sourceOf(v);
          if (!s && tv->node >= 0) s = tr.inputSource(tv->node);
          if (s) {
            t.kind = ValueTemplate::Kind::FromSource;
            t.source = *s;
            return t;
          }
        }
        int node = tr.nodeOf(v);
        t.kind = ValueTemplate::Kind::GraphOutput;
        auto it = std::find(outputs.begin(), outputs.end(), node);
        t.index = static_cast<int>(it - outputs.begin());
        if (it == outputs.end()) outputs.push_back(node);
        // Attributes the function set on a tensor it made (y.doubled = tag * 2): set again on
        // the graph's output, as Dynamo replays stores on new tensors after the graph.
        if (tv->attrs)
          for (auto& [k, x] : tv->attrs->items) {
            t.keys.push_back(k);
            t.items.push_back(make(x));
          }
        return t;
      }
    }
    if (v->kind == VK::Tuple || v->kind == VK::List) {
      // A container the frame received (an argument, a global's list) is that object, not a
      // copy of what it held when the trace ran: `return xs` hands back xs itself.
      if (const Source* s = tr.sourceOf(v)) {
        t.kind = ValueTemplate::Kind::FromSource;
        t.source = *s;
        return t;
      }
      t.kind = v->kind == VK::Tuple ? ValueTemplate::Kind::Tuple : ValueTemplate::Kind::List;
      t.constant = v;
      for (auto& x : in.iterate(v)) t.items.push_back(make(x));
      return t;
    }
    if (v->kind == VK::Dict && !tr.sourceOf(v)) {
      // A dict built in the function (Dynamo rebuilds it in the transformed code).
      t.kind = ValueTemplate::Kind::Dict;
      t.constant = v;
      for (auto& [k, x] : py::as<py::DictObj>(v)->items) {
        t.keys.push_back(k);
        t.items.push_back(make(x));
      }
      return t;
    }
    if (v->kind == VK::Instance && tr.isNew(v) && !tr.sourceOf(v)) {
      // A user object the function made (and returns, or hands to the code after a break): its
      // attributes may be graph values, so it is made again from them after the graph, as
      // Dynamo reconstructs new objects; never the traced object with fake tensors inside.
      auto* inst = py::as<py::InstanceObj>(v);
      static thread_local std::set<const py::Obj*> building;  // a cycle stays the traced object
      if (!inst->native && building.insert(v.get()).second) {
        t.kind = ValueTemplate::Kind::Object;
        t.constant = v;
        for (auto& [k, x] : inst->dict->items) {
          t.keys.push_back(k);
          t.items.push_back(make(x));
        }
        building.erase(v.get());
        return t;
      }
    }
    // A function the trace defined closes over the trace's variables (fake tensors): it is
    // defined again each call over the values they have in the compiled code.
    if (v->kind == VK::Function && tr.isNew(v) && isTraceScope(py::as<py::FunctionObj>(v)->closure.get())) return closure(v);
    // A method bound to an object the trace made has no source Dynamo could rebuild it from
    // (its UserMethodVariable is sourceless): Dynamo's "Reconstruction failure".
    if (v->kind == VK::BoundMethod) {
      auto* bm = py::as<py::BoundMethodObj>(v);
      if (bm->fn && bm->fn->kind == VK::Function && bm->self && bm->self->kind == VK::Instance && tr.isNew(bm->self) &&
          sourceless.empty()) {
        sourceless = "a method bound to an object made while capturing";
        if (unbuildable.empty()) unbuildable = sourceless;
      }
    }
    // A generator the trace started holds the trace's frame: nothing can run it afterwards.
    if (v->kind == VK::Generator && tr.isNew(v) && unbuildable.empty()) unbuildable = "a generator made while capturing";
    // Tensor.item() under fullgraph (or float()/int() of it) handed on as it is: the graph
    // returns the tensor it was read from (one made by the graph), the entry reads its item,
    // as Dynamo's graph outputs the SymInt (a SymFloat through scalar_tensor). Any other
    // unbacked scalar is not in Kiln's graph, so nothing can hand it on.
    if (isUnbacked(v)) {
      auto* u = py::as<py::InstanceObj>(v);
      Value of = u->dict->getStr("_item_of");
      auto* tv = of && of->kind == VK::Tensor ? py::as<py::TensorObj>(of) : nullptr;
      if (tv && tv->fake && tv->node >= 0 && !tr.isInput(tv->node)) {
        t.kind = ValueTemplate::Kind::GraphOutput;
        auto it = std::find(outputs.begin(), outputs.end(), tv->node);
        t.index = static_cast<int>(it - outputs.begin());
        if (it == outputs.end()) outputs.push_back(tv->node);
        Value conv = u->dict->getStr("_convert");
        t.method = conv && conv->kind == VK::Str ? py::as<py::StrObj>(conv)->v : "item";
        return t;
      }
      if (unbuildable.empty()) unbuildable = "an unbacked scalar from Tensor.item()";
    }
    switch (v->kind) {
      case VK::None:
      case VK::Bool:
      case VK::Int:
      case VK::Float:
      case VK::Str:
      case VK::DType:
      case VK::Function:
      case VK::Builtin:
      case VK::Class:
      case VK::Module: break;
      default:
        if (const Source* s = tr.sourceOf(v)) {
          t.kind = ValueTemplate::Kind::FromSource;
          t.source = *s;
          return t;
        }
    }
    tr.onUse(v);  // a list item the entry hands back as a constant
    t.kind = ValueTemplate::Kind::Constant;
    t.constant = v;
    return t;
  }
};

// Whether `v` holds (in its items, attributes, defaults or closures) a function that the trace
// defined over trace scope `sc`.
bool closesOver(const Value& v, const py::Scope* sc, Tracer& tr, int depth, std::set<const py::Obj*>& seen) {
  if (!v || depth < 0 || !tr.isNew(v) || !seen.insert(v.get()).second) return false;
  switch (v->kind) {
    case VK::Function: {
      auto* f = py::as<py::FunctionObj>(v);
      for (py::Scope* s = f->closure.get(); s; s = s->parent.get())
        if (s == sc) return true;
      for (const auto& d : f->defaults)
        if (closesOver(d, sc, tr, depth - 1, seen)) return true;
      return false;
    }
    case VK::List:
    case VK::Tuple: {
      const auto& items = v->kind == VK::List ? py::as<py::ListObj>(v)->items : py::as<py::TupleObj>(v)->items;
      for (const auto& x : items)
        if (closesOver(x, sc, tr, depth - 1, seen)) return true;
      return false;
    }
    case VK::Dict:
      for (const auto& [k, x] : py::as<py::DictObj>(v)->items)
        if (closesOver(x, sc, tr, depth - 1, seen)) return true;
      return false;
    case VK::Instance:
      for (const auto& [k, x] : py::as<py::InstanceObj>(v)->dict->items)
        if (closesOver(x, sc, tr, depth - 1, seen)) return true;
      return false;
    case VK::BoundMethod:
      return closesOver(py::as<py::BoundMethodObj>(v)->fn, sc, tr, depth - 1, seen) ||
             closesOver(py::as<py::BoundMethodObj>(v)->self, sc, tr, depth - 1, seen);
    default: return false;
  }
}

// The Python side effects capture saw, as templates the entry replays (call before the
// tracer undoes them: their final state is read here).
void recordEffects(Templater& tm, CacheEntry& e, const py::FunctionObj& fn) {
  Tracer& tr = tm.tr;
  auto itemTemplate = [&](const Value& v) {
    if (const Source* s = tr.originalItemSource(v)) {
      ValueTemplate t;
      t.kind = ValueTemplate::Kind::FromSource;
      t.source = *s;
      return t;
    }
    return tm.make(v);
  };
  for (const auto& c : tr.containerEffects) {
    ContainerWrite w;
    w.source = c.source;
    w.kind = c.object->kind;
    if (c.object->kind == VK::List) {
      for (const auto& v : py::as<py::ListObj>(c.object)->items) w.items.push_back(itemTemplate(v));
    } else if (c.object->kind == VK::Dict) {
      for (const auto& [k, v] : py::as<py::DictObj>(c.object)->items) {
        w.keys.push_back(itemTemplate(k));
        w.values.push_back(itemTemplate(v));
      }
    } else {
      auto d = std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(c.object)->native);
      for (const auto& [k, v] : d->items) w.items.push_back(itemTemplate(k));
    }
    e.containerWrites.push_back(std::move(w));
  }
  for (const auto& v : tr.varEffects) {
    VarWrite w;
    w.global = v.module != nullptr;
    w.name = v.name;
    w.scope = v.scope;
    int depth = 0;
    for (py::Scope* sc = fn.closure.get(); sc && v.scope; sc = sc->parent.get(), ++depth)
      if (sc == v.scope.get()) {
        w.depth = depth;
        break;
      }
    auto& vars = v.module ? v.module->scope->vars : v.scope->vars;
    auto it = vars.find(v.name);
    if (it == vars.end()) w.deleted = true;
    else w.value = itemTemplate(it->second);
    e.varWrites.push_back(std::move(w));
  }
}

// Values an entry reads through sources, fetched when the call starts (see runEntry).
using Fetched = std::map<const ValueTemplate*, Value>;

void fetchSources(py::Interpreter& in, const ValueTemplate& t, const std::map<std::string, Value>& locals, const py::ModuleObj& globals,
                  Fetched& into) {
  if (t.kind == ValueTemplate::Kind::FromSource) into[&t] = t.source.fetch(in, locals, globals);
  for (const auto& x : t.items) fetchSources(in, x, locals, globals, into);
}

// A new function object with `from`'s code, defaults, module and attributes over `closure` (a
// new object: its serial is fresh, so capture sees it as made now).
std::shared_ptr<py::FunctionObj> copyFunction(const py::FunctionObj& from, std::shared_ptr<py::Scope> closure) {
  auto f = std::make_shared<py::FunctionObj>();
  f->name = from.name;
  f->qualname = from.qualname;
  f->def = from.def;
  f->lambda = from.lambda;
  f->params = from.params;
  f->defaults = from.defaults;
  f->module = from.module;
  f->attrs = from.attrs;
  f->closure = std::move(closure);
  return f;
}

// What one run of an entry makes its values from. `outs` holds one Python tensor per graph
// output: every place an output goes (the unsupported call's arguments, the live locals, the
// result) gets the same object, as in the program (an in-place change of its autograd state
// must be seen by all of them); containers, objects, functions and scopes the trace made are
// made once per run, for the same reason.
struct Rebuild {
  py::Interpreter& in;
  const CacheEntry& e;
  const py::FunctionObj* fn;  // the function being run (its closure is the scopes' parent)
  std::vector<Value>& outs;
  const std::map<std::string, Value>& locals;
  const py::ModuleObj& globals;
  const Fetched& fetched;
  std::map<const py::Obj*, Value> made;
  std::vector<std::shared_ptr<py::Scope>> scopes;

  bool isSetGradEnabled(const py::InstanceObj* obj) {
    auto torch = in.importModule("torch");
    auto it = torch->scope->vars.find("set_grad_enabled");
    return it != torch->scope->vars.end() && it->second.get() == obj->cls.get() && obj->dict->getStr("_enabled");
  }

  // Makes a torch.set_grad_enabled(...) object handed on as a live local now (see value()).
  void prebuildGradMode(const ValueTemplate& t) {
    if (t.kind == ValueTemplate::Kind::Object && isSetGradEnabled(py::as<py::InstanceObj>(t.constant))) value(t);
  }

  std::shared_ptr<py::Scope> scope(int i) {
    if (scopes.empty()) scopes.resize(e.scopes.size());
    auto& built = scopes.at(static_cast<size_t>(i));
    if (built) return built;
    const ScopeTemplate& st = e.scopes[static_cast<size_t>(i)];
    built = std::make_shared<py::Scope>();
    auto sc = built;  // `scopes` does not move while filling it, but stay independent of that
    sc->parent = st.parent >= 0 ? scope(st.parent) : st.parentIsClosure ? (fn ? fn->closure : nullptr) : st.realParent;
    for (size_t k = 0; k < st.names.size(); ++k) sc->vars[st.names[k]] = value(st.values[k]);
    return sc;
  }

  Value value(const ValueTemplate& t) {
    switch (t.kind) {
      case ValueTemplate::Kind::GraphOutput: {
        Value out = outs.at(static_cast<size_t>(t.index));
        if (!t.method.empty()) {  // a scalar read from the output: "item", or item() then "float" / "int"
          py::CallArgs none;
          Value item = in.call(in.getAttr(out, "item"), none);
          if (t.method == "item") return item;
          py::CallArgs one;
          one.args.push_back(item);
          return in.call(in.builtin(t.method), one);
        }
        for (size_t i = 0; i < t.keys.size() && i < t.items.size(); ++i)
          if (t.keys[i]->kind == VK::Str) in.setAttr(out, py::as<py::StrObj>(t.keys[i])->v, value(t.items[i]));
        return out;
      }
      case ValueTemplate::Kind::Constant: return t.constant;
      case ValueTemplate::Kind::FromSource: {
        auto early = fetched.find(&t);
        Value v = early != fetched.end() && early->second ? early->second : t.source.fetch(in, locals, globals);
        if (!v) in.raise("RuntimeError", "compiled code could not read " + t.source.text());
        return v;
      }
      case ValueTemplate::Kind::Method: return in.getAttr(value(t.items.at(0)), t.method);
      default: break;
    }
    if (auto known = made.find(t.constant.get()); t.constant && known != made.end()) return known->second;
    switch (t.kind) {
      case ValueTemplate::Kind::Dict: {
        auto d = std::make_shared<py::DictObj>();
        if (t.constant) made[t.constant.get()] = d;
        for (size_t i = 0; i < t.keys.size(); ++i) d->set(t.keys[i], value(t.items[i]));
        return d;
      }
      case ValueTemplate::Kind::Object: {
        auto* traced = py::as<py::InstanceObj>(t.constant);
        if (isSetGradEnabled(traced)) {
          // Dynamo reconstructs a torch.set_grad_enabled(mode) object by calling it again: that
          // sets grad mode then, and the object restores (on __exit__) the mode it found.
          CallArgs c;
          c.args.push_back(traced->dict->getStr("_enabled"));
          Value obj = in.call(traced->cls, c);
          made[t.constant.get()] = obj;
          return obj;
        }
        auto obj = std::make_shared<py::InstanceObj>(traced->cls);
        obj->sub = traced->sub;
        made[t.constant.get()] = obj;
        for (size_t i = 0; i < t.keys.size(); ++i) obj->dict->set(t.keys[i], value(t.items[i]));
        return obj;
      }
      case ValueTemplate::Kind::Closure: {
        auto* traced = py::as<py::FunctionObj>(t.constant);
        auto f = copyFunction(*traced, traced->closure);
        made[t.constant.get()] = f;
        for (size_t i = 0; i < t.items.size() && i < f->defaults.size(); ++i) f->defaults[i] = value(t.items[i]);
        if (t.index >= 0) f->closure = scope(t.index);
        return f;
      }
      case ValueTemplate::Kind::Tuple:
      case ValueTemplate::Kind::List: {
        std::vector<Value> items;
        if (t.kind == ValueTemplate::Kind::List) {
          // Made (empty) before its items: a list that holds itself is the same list.
          auto l = py::asShared<py::ListObj>(py::makeList({}));
          if (t.constant) made[t.constant.get()] = l;
          for (const auto& x : t.items) l->items.push_back(value(x));
          return l;
        }
        for (const auto& x : t.items) items.push_back(value(x));
        Value tup = py::makeTuple(items);
        if (t.constant) made[t.constant.get()] = tup;
        return tup;
      }
      default: return py::None();
    }
  }
};

std::string show(py::Interpreter& in, const ValueTemplate& t) {
  switch (t.kind) {
    case ValueTemplate::Kind::GraphOutput: {
      const std::string out = "graph_out_0[" + std::to_string(t.index) + "]";
      if (t.method.empty()) return out;
      return t.method == "item" ? out + ".item()" : t.method + "(" + out + ".item())";
    }
    case ValueTemplate::Kind::Constant:
      if (t.constant->kind == VK::Function) return py::as<py::FunctionObj>(t.constant)->name;
      if (t.constant->kind == VK::Builtin) return py::as<py::BuiltinObj>(t.constant)->name;
      return in.repr(t.constant);
    case ValueTemplate::Kind::FromSource: return t.source.display();
    case ValueTemplate::Kind::Method: return show(in, t.items.at(0)) + "." + t.method;
    case ValueTemplate::Kind::Closure: return py::as<py::FunctionObj>(t.constant)->name;
    case ValueTemplate::Kind::Object: {
      std::string s = py::as<py::InstanceObj>(t.constant)->cls->name + "(";
      for (size_t i = 0; i < t.keys.size(); ++i) s += (i ? ", " : "") + in.str(t.keys[i]) + "=" + show(in, t.items[i]);
      return s + ")";
    }
    case ValueTemplate::Kind::Dict: {
      std::string s = "{";
      for (size_t i = 0; i < t.keys.size(); ++i) s += (i ? ", " : "") + in.repr(t.keys[i]) + ": " + show(in, t.items[i]);
      return s + "}";
    }
    case ValueTemplate::Kind::Tuple:
    case ValueTemplate::Kind::List: {
      std::string s = t.kind == ValueTemplate::Kind::Tuple ? "(" : "[";
      for (size_t i = 0; i < t.items.size(); ++i) s += (i ? ", " : "") + show(in, t.items[i]);
      if (t.kind == ValueTemplate::Kind::Tuple && t.items.size() == 1) s += ",";
      return s + (t.kind == ValueTemplate::Kind::Tuple ? ")" : "]");
    }
  }
  return "None";
}

// The arguments gradients flow through: all of them, except for a torch.autograd.Function's
// node, whose gradients go to its inputs only (not to its forward's outputs or saved values).
void forEachGradArg(const ir::Node& n, const std::function<void(int)>& f) {
  if (n.target == torchapi::kAutogradFunctionApply && !n.args.empty()) {
    for (const auto& a : n.args[0].list)
      if (a.isNode()) f(a.node);
    return;
  }
  ir::forEachNodeArg(n, f);
}

// Per captured node: the node whose storage it shares as far as gradients can tell (a view
// or an in-place update of a tensor shares that tensor's). Over-approximated: every tensor
// subscript and view-like method counts as a view. An in-place node (x.add_(y), x[i] = y)
// changes every value of its storage, which later nodes read under another node id.
std::map<int, int> storageRoots(const ir::Graph& g) {
  static const std::set<std::string> kViews = {
      "getitem", "view",       "view_as", "reshape",  "reshape_as", "transpose",  "permute", "t",     "squeeze", "unsqueeze",
      "expand",  "expand_as",  "narrow",  "select",   "flatten",    "unflatten",  "split",   "chunk", "unbind",  "diagonal",
      "detach",  "contiguous", "movedim", "swapaxes", "swapdims",   "as_strided", "unfold",  "alias", "T",       "mT"};
  std::map<int, int> root;
  for (const auto& n : g.nodes) {
    root[n.id] = n.id;
    if (n.args.empty() || !n.args[0].isNode()) continue;
    const std::string base = n.target.substr(n.target.rfind('.') + 1);
    if (torchapi::isInplaceNode(n) || kViews.count(base)) root[n.id] = root.count(n.args[0].node) ? root[n.args[0].node] : n.args[0].node;
  }
  return root;
}

// Per graph output: whether it depends on an input that requires grad (through any node).
std::vector<bool> differentiableOutputs(const ir::Graph& g, const std::vector<tensor::Tensor>& inputs) {
  std::set<int> reach, reachedRoots;  // roots: storages an in-place node wrote a value requiring grad into
  std::map<int, int> root = storageRoots(g);
  size_t i = 0;
  for (const ir::Node* p : g.placeholders()) {
    if (i < inputs.size() && inputs[i].requiresGrad()) reach.insert(p->id);
    ++i;
  }
  auto reached = [&](int a) { return reach.count(a) > 0 || reachedRoots.count(root[a]) > 0; };
  for (const auto& n : g.nodes) {
    if (n.kind == ir::NodeKind::Placeholder || n.kind == ir::NodeKind::Output || n.noGrad) continue;
    bool r = false;
    forEachGradArg(n, [&](int a) { r = r || reached(a); });
    if (!r) continue;
    reach.insert(n.id);
    if (torchapi::isInplaceNode(n)) reachedRoots.insert(root[n.id]);
  }
  std::vector<bool> out;
  for (const auto& a : g.output()->args.at(0).list) {
    bool r = false;
    if (a.isNode()) r = reached(a.node);
    out.push_back(r);
  }
  return out;
}

// Per graph input: whether a gradient can reach it from the outputs (not only through nodes
// run under no_grad). An input used only in a no_grad region gets no gradient (grad stays None).
// An in-place node is live when a later live node reads its storage (through any alias).
std::vector<bool> inputsReachedByGradients(const ir::Graph& g) {
  std::set<int> live, liveRoots;
  std::map<int, int> root = storageRoots(g);
  auto use = [&](int a) {
    live.insert(a);
    liveRoots.insert(root[a]);
  };
  for (const auto& a : g.output()->args.at(0).list)
    if (a.isNode()) use(a.node);
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const ir::Node& n = *it;
    if (n.kind == ir::NodeKind::Placeholder || n.kind == ir::NodeKind::Output || n.noGrad) continue;
    if (!live.count(n.id) && !(torchapi::isInplaceNode(n) && liveRoots.count(root[n.id]))) continue;
    use(n.id);
    forEachGradArg(n, use);
  }
  std::vector<bool> out;
  for (const ir::Node* p : g.placeholders()) out.push_back(live.count(p->id) > 0);
  return out;
}

// The compiled backward of an entry as CompiledFunctionBackward calls it, when it was compiled for
// the inputs' requires_grad as they are now; else null (backward recomputes eagerly).
// A partitioned backward gets the activations the forward call just saved, kept by the closure
// (which the node holds until its backward ran).
autograd::BackwardFn compiledBackward(const std::shared_ptr<BackwardCode>& bw, const std::vector<tensor::Tensor>& inputs) {
  if (!bw) return nullptr;
  std::optional<std::vector<tensor::Tensor>> saved = std::move(*bw->lastSaved);
  bw->lastSaved->reset();
  if (bw->requiresGrad.size() != inputs.size()) return nullptr;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].requiresGrad() && !bw->requiresGrad[i]) return nullptr;
  if (bw->savedCount > 0 && (!saved || saved->size() != bw->savedCount)) return nullptr;
  auto kept = std::make_shared<std::vector<tensor::Tensor>>(saved ? std::move(*saved) : std::vector<tensor::Tensor>{});
  return [bw, kept](const std::vector<tensor::Tensor>& in, const std::vector<tensor::Tensor>& grads) { return bw->run(in, *kept, grads); };
}

// Whether two of the inputs share storage (the same tensor, or views of one another).
bool inputsShareStorage(const std::vector<tensor::Tensor>& inputs) {
  std::set<const tensor::Storage*> seen;
  for (const auto& t : inputs)
    if (!seen.insert(t.storage().get()).second) return true;
  return false;
}

// The containers, globals and cells the function changed get the contents capture saw (all
// values are computed before anything is written: a list may be rebuilt from its own items).
template <typename Inst>
void replayEffects(py::Interpreter& in, const CacheEntry& e, const py::FunctionObj* fn, const Inst& inst,
                   const std::map<std::string, Value>& locals, const py::ModuleObj& globals) {
  struct Pending {
    Value target;
    std::vector<Value> items, keys, values;
  };
  std::vector<Pending> pending;
  for (const auto& w : e.containerWrites) {
    Pending p;
    p.target = w.source.fetch(in, locals, globals);
    if (!p.target) in.raise("RuntimeError", "compiled code could not read " + w.source.text() + " to update it");
    for (const auto& t : w.items) p.items.push_back(inst(t));
    for (const auto& t : w.keys) p.keys.push_back(inst(t));
    for (const auto& t : w.values) p.values.push_back(inst(t));
    pending.push_back(std::move(p));
  }
  std::vector<std::pair<const VarWrite*, Value>> vars;
  for (const auto& w : e.varWrites) vars.emplace_back(&w, w.deleted ? nullptr : inst(w.value));
  for (size_t i = 0; i < pending.size(); ++i) {
    const auto& w = e.containerWrites[i];
    auto& p = pending[i];
    if (w.kind == VK::List && p.target->kind == VK::List) {
      py::as<py::ListObj>(p.target)->items = std::move(p.items);
    } else if (w.kind == VK::Dict && p.target->kind == VK::Dict) {
      auto* d = py::as<py::DictObj>(p.target);
      d->items.clear();
      for (size_t k = 0; k < p.keys.size(); ++k) d->items.emplace_back(p.keys[k], p.values[k]);
    } else if (p.target->kind == VK::Instance) {
      auto d = std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(p.target)->native);
      d->items.clear();
      for (auto& v : p.items) d->items.emplace_back(v, py::None());
    }
  }
  for (const auto& [w, v] : vars) {
    std::unordered_map<std::string, Value>* target = nullptr;
    if (w->global) {
      if (fn && fn->module) target = &fn->module->scope->vars;
    } else if (w->depth >= 0) {
      // The cell of the function being run (another closure of the same code has its own), at
      // the place in its closure chain the capture wrote to (it may not hold the name yet).
      py::Scope* sc = fn ? fn->closure.get() : nullptr;
      for (int d = 0; sc && d < w->depth; ++d) sc = sc->parent.get();
      if (sc) target = &sc->vars;
    } else {
      for (py::Scope* sc = fn ? fn->closure.get() : nullptr; sc && !target; sc = sc->parent.get())
        if (sc->vars.count(w->name)) target = &sc->vars;
      if (!target)
        if (auto sc = w->scope.lock()) target = &sc->vars;
    }
    if (!target) continue;
    if (v) (*target)[w->name] = v;
    else target->erase(w->name);
  }
  (void)globals;
}

// The resume function to call: it closes over the closure of the function running now (one
// code may run with many closures), or over the frame's shared cells, made for this call, when
// it has them (the functions it defined and handed on close over the same scope).
// An instance whose class has its own Python __setattr__: a recorded store on it is the raw
// one that __setattr__ made (Tracer::onSetAttr), replayed without calling __setattr__ again.
bool hasPythonSetattr(const Value& v) {
  if (!v || v->kind != VK::Instance) return false;
  Value sa = py::as<py::InstanceObj>(v)->cls->lookup("__setattr__");
  return sa && sa->kind == VK::Function;
}

Value resumeWith(const Value& resume, int cellScope, Rebuild& rebuild) {
  auto* r = py::as<py::FunctionObj>(resume);
  std::shared_ptr<py::Scope> closure = cellScope >= 0 ? rebuild.scope(cellScope) : rebuild.fn ? rebuild.fn->closure : r->closure;
  if (closure == r->closure) return resume;
  return copyFunction(*r, closure);
}

// `cache`: what the guard checks of this call fetched (the inputs are mostly what they checked).
Value runEntry(py::Interpreter& in, const CacheEntry& e, const std::map<std::string, Value>& locals, const py::ModuleObj& globals,
               const py::FunctionObj* fn, FetchCache* cache = nullptr) {
  std::vector<tensor::Tensor> inputs;
  for (const auto& src : e.inputs) {
    Value v = src.fetch(in, locals, globals, cache);
    if (!v || v->kind != VK::Tensor) in.raise("RuntimeError", "compiled code could not read its input " + src.text());
    if (py::as<py::TensorObj>(v)->fake)
      in.raise("RuntimeError", "internal error: " + src.text() + " holds a fake tensor that escaped capture");
    inputs.push_back(py::as<py::TensorObj>(v)->t);
  }
  // Everything else the entry reads through sources is read now too, as the frame read it before
  // changing anything: the replayed side effects may move it (an item popped from a list).
  Fetched fetched;
  {
    auto pre = [&](const ValueTemplate& t) { fetchSources(in, t, locals, globals, fetched); };
    pre(e.output);
    for (const auto& [obj, attr, value] : e.sideEffects) pre(obj), pre(value);
    for (const auto& w : e.containerWrites) {
      for (const auto& t : w.items) pre(t);
      for (const auto& t : w.keys) pre(t);
      for (const auto& t : w.values) pre(t);
    }
    for (const auto& w : e.varWrites) pre(w.value);
    for (const auto& sc : e.scopes)
      for (const auto& t : sc.values) pre(t);
    pre(e.plan.callee);
    pre(e.plan.test);
    for (const auto& t : e.plan.args) pre(t);
    for (const auto& [k, t] : e.plan.kwargs) pre(t);
    for (const auto& t : e.plan.stack) pre(t);
    for (const auto& t : e.plan.live) pre(t);
  }
  GraphRunner run = e.run;
  if (run && e.mutates && e.captured && inputsShareStorage(inputs)) {
    std::shared_ptr<ir::Graph> g = e.captured;
    run = [g](const std::vector<tensor::Tensor>& x) { return runtime::runTorchGraph(*g, x); };
  }
  std::vector<tensor::Tensor> outs;
  // Inputs that require grad under grad mode: the compiled graph runs without recording, and
  // its outputs get one CompiledFunctionBackward node that recomputes the graph eagerly when
  // backward() reaches it (compiled backward graphs are not built yet).
  // (An `with torch.enable_grad():` inside the graph records even when the call starts
  // under no_grad.)
  bool needGrad = false;
  bool gradSomewhere = autograd::isGradEnabled();
  if (!gradSomewhere && e.captured)
    for (const auto& n : e.captured->nodes)
      if (n.target == "torch._C._set_grad_enabled" && !n.args.empty() && n.args[0].kind == ir::Arg::Kind::Bool && n.args[0].b)
        gradSomewhere = true;
  if (gradSomewhere)
    for (const auto& t : inputs) needGrad = needGrad || t.requiresGrad();
  if (run && needGrad && e.ddpSplit) {  // (a split entry never mutates its inputs: run is e.run)
    // Split under DDP: each piece its own CompiledFunctionBackward, so backward reaches the last
    // piece's parameters (and DDP all-reduces their bucket) before it differentiates earlier ones.
    try {
      outs = runDdpPieces(*e.ddpSplit, inputs, [](const DdpPiece& p, const std::vector<tensor::Tensor>& x) {
        std::vector<tensor::Tensor> o;
        {
          autograd::GradModeGuard off(false);
          o = p.run(x);
        }
        bool anyGrad = false;
        for (const auto& t : x) anyGrad = anyGrad || t.requiresGrad();
        if (!anyGrad) return o;
        auto g = std::make_shared<ir::Graph>(p.graph);
        std::vector<tensor::Tensor> gradInputs = x;
        std::vector<bool> reached = inputsReachedByGradients(*g);
        for (size_t i = 0; i < gradInputs.size() && i < reached.size(); ++i)
          if (!reached[i] && gradInputs[i].requiresGrad()) gradInputs[i] = gradInputs[i].detach();
        autograd::attachCompiledFunction(
            [g](const std::vector<tensor::Tensor>& y) { return runtime::runTorchGraph(*g, y, /*functional=*/true); }, gradInputs, o,
            differentiableOutputs(*g, x), compiledBackward(p.backward, x));
        return o;
      });
    } catch (const tensor::TorchError& err) {
      if (dynamic_cast<const tensor::Interrupted*>(&err)) in.raiseStopped();
      in.raise(err.type(), err.what());
    }
  } else if (run && needGrad && e.captured) {
    try {
      {
        autograd::GradModeGuard off(false);
        outs = run(inputs);
      }
      std::shared_ptr<ir::Graph> g = e.captured;
      std::vector<tensor::Tensor> gradInputs = inputs;
      std::vector<bool> reached = inputsReachedByGradients(*g);
      for (size_t i = 0; i < gradInputs.size() && i < reached.size(); ++i)
        if (!reached[i] && gradInputs[i].requiresGrad()) gradInputs[i] = gradInputs[i].detach();
      autograd::attachCompiledFunction(
          [g](const std::vector<tensor::Tensor>& x) { return runtime::runTorchGraph(*g, x, /*functional=*/true); }, gradInputs, outs,
          differentiableOutputs(*g, inputs), compiledBackward(e.backward, inputs));
    } catch (const tensor::TorchError& err) {
      if (dynamic_cast<const tensor::Interrupted*>(&err)) in.raiseStopped();  // a compiled kernel stopped at Ctrl-C / a time limit
      in.raise(err.type(), err.what());
    }
  } else if (run) {
    try {
      outs = run(inputs);
      if (e.backward) e.backward->lastSaved->reset();  // no backward will read them
    } catch (const tensor::TorchError& err) {
      if (dynamic_cast<const tensor::Interrupted*>(&err)) in.raiseStopped();  // a compiled kernel stopped at Ctrl-C / a time limit
      in.raise(err.type(), err.what());
    }
  }
  std::vector<Value> outValues;
  for (auto& t : outs) outValues.push_back(t.defined() ? py::makeTensor(t) : py::None());
  Rebuild rebuild{in, e, fn, outValues, locals, globals, fetched, {}, {}};
  auto inst = [&](const ValueTemplate& t) { return rebuild.value(t); };
  for (const auto& [src, index] : e.mutations) {
    Value v = src.fetch(in, locals, globals);
    if (!v || v->kind != VK::Tensor) continue;
    tensor::Tensor& dst = py::as<py::TensorObj>(v)->t;
    // The input the graph mutated (a BatchNorm's running stats) takes its new value; on a GPU
    // through the device's copy kernel: a host loop here read CUDA memory (seed 001_04).
    ops::copyInto(dst, outs.at(static_cast<size_t>(index)));
  }
  for (const auto& [obj, attr, value] : e.sideEffects) {
    Value target = inst(obj);
    if (value.kind == ValueTemplate::Kind::Constant && !value.constant) in.delAttr(target, attr);
    else if (hasPythonSetattr(target)) in.genericSetAttr(target, attr, inst(value));  // the store its __setattr__ made
    else in.setAttr(target, attr, inst(value));
  }
  replayEffects(in, e, fn, inst, locals, globals);
  for (const auto& [src, count] : e.iteratorAdvances)
    if (Value v = src.fetch(in, locals, globals); v && v->kind == VK::Iterator) {
      auto* it = py::as<py::IteratorObj>(v);
      if (it->isRange) {
        for (size_t k = 0; k < count && (it->rStep > 0 ? it->rCur < it->rStop : it->rCur > it->rStop); ++k)
          if (__builtin_add_overflow(it->rCur, it->rStep, &it->rCur)) it->rCur = it->rStop;
        continue;
      }
      const size_t n = it->seq && it->seq->kind == VK::Tuple ? py::as<py::TupleObj>(it->seq)->items.size() : it->pos;
      it->pos = std::min(it->pos + count, n);
    }
  const BreakPlan& p = e.plan;
  switch (p.kind) {
    case BreakPlan::Kind::None: return inst(e.output);
    case BreakPlan::Kind::Call: {
      // The unsupported call runs eagerly, then the rest of the function in its resume function.
      CallArgs call;
      for (const auto& a : p.args) call.args.push_back(inst(a));
      for (const auto& [k, a] : p.kwargs) call.kwargs.emplace_back(k, inst(a));
      std::vector<Value> stack;
      for (const auto& s : p.stack) stack.push_back(inst(s));
      Value result;
      // Dynamo stores the live locals before the call: a torch.set_grad_enabled(...) object
      // among them is made again then, which sets grad mode for the call and what follows.
      for (const auto& l : p.live) rebuild.prebuildGradMode(l);
      {
        // The graph's grad-mode changes ended with it; the call runs in the mode the program
        // had there (inside its `with torch.no_grad():`), the resume function re-enters the block.
        autograd::GradModeGuard mode(p.gradEnabled);
        struct Autocast {  // and in its autocast block, likewise re-entered by the resume function
          GlobalState saved = currentGlobalState();
          explicit Autocast(const GlobalState& at) { restoreAutocast(at); }
          ~Autocast() { restoreAutocast(saved); }
        } autocast(p.globalState);
        struct Inference {
          bool saved = tensor::inferenceModeEnabled();
          explicit Inference(bool on) { tensor::setInferenceModeEnabled(on); }
          ~Inference() { tensor::setInferenceModeEnabled(saved); }
        } inference(p.inferenceMode || tensor::inferenceModeEnabled());
        result = in.call(inst(p.callee), call);
      }
      if (!p.resume) return result;  // `return call(...)`: no resume function
      CallArgs next;
      next.args = stack;
      if (p.resultUsed) next.args.push_back(result);
      for (const auto& l : p.live) next.args.push_back(inst(l));
      return in.call(resumeWith(p.resume, p.cellScope, rebuild), next);
    }
    case BreakPlan::Kind::Branch: {
      bool taken = in.truthy(inst(p.test));
      for (const auto& l : p.live) rebuild.prebuildGradMode(l);
      CallArgs next;
      const std::vector<bool>& takes = taken ? p.liveTrue : p.liveElse;
      for (size_t i = 0; i < p.live.size(); ++i)
        if (takes.empty() || takes[i]) next.args.push_back(inst(p.live[i]));
      return in.call(resumeWith(taken ? p.resume : p.resumeElse, p.cellScope, rebuild), next);
    }
  }
  return py::None();
}

// The file a function was defined in: the script's, or a library module's (a prelude module's
// `<kiln>/torch.nn.py`: nn.Sequential's forward, compiled through torch.compile(model)).
const std::string& definingFile(const py::Interpreter& in, const py::FunctionObj& fn) {
  return fn.module && !fn.module->file.empty() ? fn.module->file : in.file();
}

std::string frameSource(py::Interpreter& in, py::FunctionObj& fn) {
  if (!fn.def) return "";
  if (fn.def->name.rfind("torch_dynamo_resume_in_", 0) == 0) return py::unparse(*fn.def);
  // The lines of the file it was defined in (a library function's are not the script's).
  auto it = in.sources().find(definingFile(in, fn));
  const std::string& src = it != in.sources().end() ? it->second : in.source();
  int line = 1;
  size_t p = 0, start = std::string::npos, end = src.size();
  while (p < src.size()) {
    if (line == fn.def->span.line && start == std::string::npos) start = p;
    if (src[p] == '\n') {
      ++line;
      if (line > fn.def->span.endLine && start != std::string::npos) {
        end = p;
        break;
      }
    }
    ++p;
  }
  return start == std::string::npos ? "" : src.substr(start, end - start);
}

Value makeResume(const py::StmtP& def, py::FunctionObj& original) {
  auto f = std::make_shared<py::FunctionObj>();
  f->name = f->qualname = def->name;
  f->def = def;
  f->params = def->params;
  f->defaults.assign(def->params.size(), nullptr);
  f->closure = original.closure;
  f->module = original.module;
  // A method's rest keeps its zero-argument super(): the class it was defined in, and the
  // method's first argument, which the resume function takes among its live locals.
  auto cd = original.attrs.find("__class_def__");
  if (cd != original.attrs.end() && original.def && !original.def->params.empty()) {
    const std::string& first = original.def->params[0].name;
    for (size_t i = 0; i < def->params.size(); ++i)
      if (def->params[i].name == first) {
        f->attrs["__class_def__"] = cd->second;
        f->attrs["__super_self__"] = py::makeInt(static_cast<int64_t>(i));
      }
  }
  return f;
}

}  // namespace

std::shared_ptr<Frame> CompileContext::frameFor(const Value& fnValue, const CompileOptions& opts) {
  auto* fn = py::as<py::FunctionObj>(fnValue);
  const void* code = fn->def ? static_cast<const void*>(fn->def.get()) : static_cast<const void*>(fn->lambda.get());
  auto it = byCode_.find(code);
  if (it != byCode_.end()) return it->second;
  auto frame = newFrame(fnValue, opts);
  if (fn->name.rfind("torch_dynamo_resume_in_", 0) == 0) frame->kind = "resume";
  byCode_.emplace(code, frame);
  return frame;
}

Value CompileContext::callWith(py::Interpreter& in, const std::shared_ptr<Frame>& frame, const Value& fnValue, CallArgs& args,
                               const Value& self, bool intercepted) {
  // One frame per code; the call runs the function object it was made with (its closure).
  Value saved = frame->fn;
  frame->fn = fnValue;
  struct Restore {
    std::shared_ptr<Frame> f;
    Value v;
    ~Restore() { f->fn = v; }
  } restore{frame, saved};
  return call(in, frame, args, self, intercepted);
}

Value CompileContext::callIntercepted(py::Interpreter& in, const Value& fnValue, CallArgs& args, const Value& self) {
  CompileOptions defaults;
  defaults.backend = backendByDefault;
  auto frame = frameFor(fnValue, activeOpts_.empty() ? defaults : activeOpts_.back());
  return callWith(in, frame, fnValue, args, self, true);
}

// The graph inputs' types with the size symbols of a dynamic entry's guards (each symbolic dim
// at the value `captured` has it now); empty when no input dim is symbolic.
static std::vector<ir::TensorType> dynamicInputTypes(const std::vector<Guard>& guards, const std::vector<Source>& inputs,
                                                     const ir::Graph& captured) {
  std::vector<ir::TensorType> types;
  bool any = false;
  auto ph = captured.placeholders();
  for (size_t i = 0; i < ph.size(); ++i) {
    if (ph[i]->types.size() != 1) return {};
    ir::TensorType t = ph[i]->types[0];
    const std::string key = i < inputs.size() ? inputs[i].text() : "";
    for (const auto& g : guards) {
      if (g.kind != Guard::Kind::TensorMatch || g.source.text() != key || g.type.sizes.size() != t.sizes.size()) continue;
      for (size_t d = 0; d < t.sizes.size(); ++d)
        if (g.type.sizes[d].symbolic()) {
          int64_t v = t.sizes[d].value;
          t.sizes[d] = ir::Dim::sym(g.type.sizes[d].symbol);
          t.sizes[d].value = v;
          t.strides.clear();
          any = true;
        }
    }
    types.push_back(std::move(t));
  }
  return any ? types : std::vector<ir::TensorType>{};
}

// Parameters, buffers and other tensors reached through an attribute keep static shapes
// (Dynamo's force_parameter_static_shapes / force_nn_module_property_static_shapes).
static bool attributeSource(const Source& src) {
  return std::any_of(src.steps.begin(), src.steps.end(), [](const Source::Step& s) { return s.kind == Source::Step::Kind::Attr; });
}

// Automatic dynamic shapes, as Dynamo decides them when the trace first reads an input tensor:
// a dim torch._dynamo.mark_dynamic marked, or whose size changed between compiles of this frame,
// is Dynamic (a symbol of its own); with dynamic=True every other dim is Duck (equal sizes share
// a symbol); mark_static, dynamic=False, parameters and attribute tensors keep dims static.
static Tracer::DimPlan planDims(py::Interpreter& in, const Frame& frame, const Source& src, const py::TensorObj& fake,
                                const py::TensorObj* real) {
  Tracer::DimPlan plan;
  const auto& sizes = fake.type.sizes;
  plan.kinds.assign(sizes.size(), Tracer::DimKind::Static);
  plan.parameter = real && real->parameter;
  plan.marked = Tracer::markedDims(in, fake, "_dynamo_dynamic_indices");
  std::vector<int64_t> marks = plan.marked, statics = Tracer::markedDims(in, fake, "_dynamo_static_indices");
  for (int64_t d : Tracer::markedDims(in, fake, "_dynamo_weak_dynamic_indices")) marks.push_back(d);  // maybe_mark_dynamic
  const bool automatic = !(frame.opts.dynamic && !*frame.opts.dynamic);
  const bool forced = frame.opts.dynamic && *frame.opts.dynamic;
  const bool fixed = attributeSource(src) || plan.parameter;
  const std::string key = src.text();
  auto seen = frame.seenSizes.find(key);
  auto dyn = frame.dynamicDims.find(key);
  for (size_t d = 0; d < sizes.size(); ++d) {
    const auto dim = static_cast<int64_t>(d);
    if (std::count(statics.begin(), statics.end(), dim)) continue;
    if (std::count(marks.begin(), marks.end(), dim)) {
      plan.kinds[d] = Tracer::DimKind::Dynamic;
      continue;
    }
    if (fixed || !automatic) continue;
    bool changed = seen != frame.seenSizes.end() && seen->second.size() == sizes.size() && seen->second[d] != sizes[d].value;
    bool was = dyn != frame.dynamicDims.end() && dyn->second.count(d);
    // A Python number there before: every dim is dynamic (Dynamo's frame state of a scalar has
    // no sizes to keep).
    bool wasScalar = frame.seenInts.count(key) > 0 || frame.seenFloats.count(key) > 0;
    if (changed || was || wasScalar) plan.kinds[d] = Tracer::DimKind::Dynamic;
    else if (forced) plan.kinds[d] = Tracer::DimKind::Duck;
  }
  return plan;
}

// After a capture: the frame remembers each input's sizes and which dims changed (they are
// dynamic in later compiles), and the shown graph gets the entry's size symbols: a copy of the
// entry's captured graph in `shown`, made only where there are symbols (else the captured graph
// is the one shown).
void CompileContext::applyAutomaticDynamic(Frame& frame, CacheEntry& e, std::optional<ir::Graph>& shown) {
  if (frame.opts.dynamic && !*frame.opts.dynamic) return;
  std::map<int64_t, std::string> symbols;
  for (auto& g : e.guards) {
    if (g.kind != Guard::Kind::TensorMatch) continue;
    for (const auto& d : g.type.sizes)
      if (d.symbolic()) symbols.emplace(d.value, d.symbol);
    if (attributeSource(g.source)) continue;
    std::string key = g.source.text();
    std::vector<int64_t> sizes;
    for (const auto& d : g.type.sizes) sizes.push_back(d.value);
    std::set<size_t>& dyn = frame.dynamicDims[key];
    auto seen = frame.seenSizes.find(key);
    for (size_t d = 0; d < sizes.size(); ++d) {
      bool changed = seen != frame.seenSizes.end() && seen->second.size() == sizes.size() && seen->second[d] != sizes[d];
      if (changed) dyn.insert(d);
    }
    frame.seenSizes[key] = sizes;
  }
  if (symbols.empty()) return;
  shown = *e.captured;
  for (auto& n : shown->nodes)
    for (auto& t : n.types)
      for (auto& d : t.sizes)
        if (!d.symbolic()) {
          auto it = symbols.find(d.value);
          if (it != symbols.end()) {
            int64_t v = d.value;
            d = ir::Dim::sym(it->second);
            d.value = v;
          }
        }
}

Value CompileContext::call(py::Interpreter& in, const std::shared_ptr<Frame>& frame, CallArgs& a, const Value& self, bool intercepted) {
  auto* fn = py::as<py::FunctionObj>(frame->fn);
  // Run-only (Dynamo's False callback): a frame past its recompile limit, and every frame a
  // run-only frame calls, runs a cached entry whose guards pass or else runs eagerly, and its
  // callees are run-only in turn. A torch.compile'd callable installs its callback again.
  const bool runOnly = frame->runOnly || (intercepted && runOnly_);
  struct RunOnlyScope {
    bool& flag;
    bool saved;
    ~RunOnlyScope() { flag = saved; }
  } runOnlyScope{runOnly_, runOnly_};
  runOnly_ = runOnly;
  InterceptScope active(in);
  activeOpts_.push_back(frame->opts);
  struct Pop {
    std::vector<CompileOptions>& v;
    ~Pop() { v.pop_back(); }
  } pop{activeOpts_};
  auto eager = [&]() {
    CallArgs copy = a;
    return in.callFunction(*fn, copy, self);
  };
  // Nested compiled calls during a capture are inlined, as Dynamo inlines them.
  // A generator function's call only makes the generator: Dynamo does not compile such a frame
  // (its body would run later, outside any capture, on the trace's fake tensors).
  // (A lambda is a frame too: torch.compile(lambda t: t * t + 1).)
  if (frame->skip || in.tracer || (!fn->def && !fn->lambda) || (fn->def && fn->def->isGenerator)) return eager();
  std::vector<Value> args;
  std::vector<std::string> names;
  if (!bindArgs(*fn, a, self != nullptr, args, names)) return eager();
  std::map<std::string, Value> locals;
  std::string selfName = self && !fn->params.empty() ? fn->params[0].name : "";
  if (self) locals[selfName] = self;
  for (size_t i = 0; i < names.size(); ++i) locals[names[i]] = args[i];
  // Closure cells read like locals (Dynamo's L['offset'] for a free variable).
  for (py::Scope* sc = fn->closure.get(); sc; sc = sc->parent.get())
    for (const auto& [k, v] : sc->vars) locals.emplace(k, v);
  const py::ModuleObj& globals = *fn->module;

  // Cache lookup, newest entry first. The guards' sources are fetched through one cache: each
  // shared prefix (a submodule) is read once per call.
  FetchCache fetchCache;
  std::vector<std::string> reasons;
  std::vector<int> lines;  // the failing guards' user lines, per reason
  for (auto pos = frame->cache.rbegin(); pos != frame->cache.rend(); ++pos) {
    std::shared_ptr<CacheEntry> it = *pos;  // held while it runs
    std::string failure;
    const Guard* failed = nullptr;
    static const Guard kGlobalState;  // stands for Dynamo's GLOBAL_STATE guard in the reason
    if (it->backendKey != backendKey(frame->opts)) {
      failure = kBackendMatchFailure;
      failed = &kGlobalState;
    } else if (it->gradMode != autograd::isGradEnabled()) {
      failure = "GLOBAL_STATE changed: grad_mode";
      failed = &kGlobalState;
    } else if (std::string changed = globalStateChange(it->globalState, currentGlobalState()); !changed.empty()) {
      failure = "GLOBAL_STATE changed: " + changed;
      failed = &kGlobalState;
    }
    {
      NoInterceptScope guardEval(in);
      const bool ordered = it->checkOrder.size() == it->guards.size();
      for (size_t k = 0; k < it->guards.size(); ++k) {
        if (failed) break;
        const Guard& g = it->guards[ordered ? it->checkOrder[k] : k];
        failure = g.check(in, locals, globals, &fetchCache);
        if (!failure.empty()) {
          failed = &g;
          break;
        }
      }
    }
    if (!failed) {
      // The entry that holds becomes the most recently used, looked up first from now on (as
      // Dynamo moves a hit to the front of the frame's cache: a later recompile lists its
      // failure first).
      frame->cache.erase(std::next(pos).base());
      frame->cache.push_back(it);
      if (!it->dynamic) return runEntry(in, *it, locals, globals, fn, &fetchCache);
      // A dynamic entry serves every size its guards allow. Kiln captures each new shape again
      // (quietly, on fake tensors) and runs the entry's kernels over size symbols at the new
      // sizes; only where a shape gives other kernels is code generated for it.
      // The key is the sizes and strides of every guarded tensor, graph input or not (a size read from a
      // tensor that never enters the graph, torch.zeros(y.shape[0]), shapes the graph too).
      std::string key;
      for (const auto& g : it->guards)
        if (g.kind == Guard::Kind::TensorMatch)
          if (Value v = g.source.fetch(in, locals, globals); v && v->kind == VK::Tensor)
            key += tensor::shapeStr(py::as<py::TensorObj>(v)->t.sizes()) + "/" +
                   tensor::shapeStr(py::as<py::TensorObj>(v)->t.strides());  // layouts lower differently
      auto sp = it->specialized.find(key);
      if (sp != it->specialized.end()) {
        // A shape's own trace may have read more than the entry's (an int used only in the
        // branch this shape takes): its guards must hold too, or it is traced again.
        NoInterceptScope guardEval(in);
        for (const auto& g : sp->second->guards)
          if (!g.check(in, locals, globals).empty()) {
            it->specialized.erase(sp);
            sp = it->specialized.end();
            break;
          }
      }
      if (sp == it->specialized.end()) {
        // Each shape keeps its wrapper and buffers; past 64 shapes they are dropped and
        // re-derived on demand (a capture and a schedule; code generation only for shapes
        // whose kernels differ from the entry's).
        if (it->specialized.size() >= 64) it->specialized.clear();
        session::NullSink quiet;
        auto fresh = captureEntry(in, frame, self, selfName, args, names, it->compileId, quiet, false, it.get());
        if (!fresh) return eager();
        sp = it->specialized.emplace(key, std::make_shared<CacheEntry>(std::move(*fresh))).first;
      }
      // Held while it runs: user code it calls (a graph break) may call this function again
      // and clear the per-shape entries.
      std::shared_ptr<CacheEntry> keep = sp->second;
      return runEntry(in, *keep, locals, globals, fn);
    }
    reasons.push_back(failed->verboseReason(it->compileId, failure));
    lines.push_back(failed->line);
    // Dynamo's guard managers count failures and check the accessors that failed most often
    // first (a stable sort, ties keep their order): so does the entry (shape guards, checked
    // after all others, and the aliasing guards keep their place at the end).
    auto pinned = [](const Guard& g) {
      return g.kind == Guard::Kind::Shape || g.kind == Guard::Kind::FloatValue || g.kind == Guard::Kind::NoAliasing ||
             g.kind == Guard::Kind::DuplicateInput;
    };
    if (failed != &kGlobalState && !pinned(*failed)) {
      ++it->guards[static_cast<size_t>(failed - it->guards.data())].failCount;
      if (it->checkOrder.size() != it->guards.size()) {
        it->checkOrder.resize(it->guards.size());
        for (size_t k = 0; k < it->checkOrder.size(); ++k) it->checkOrder[k] = k;
      }
      const auto& gs = it->guards;
      std::stable_sort(it->checkOrder.begin(), it->checkOrder.end(),
                       [&](size_t a, size_t b) { return (pinned(gs[a]) ? -1 : gs[a].failCount) > (pinned(gs[b]) ? -1 : gs[b].failCount); });
    }
  }
  if (runOnly) return eager();  // a miss in run-only mode: no compile, no recompile logged
  // Dynamo's has_tensor_in_frame: a frame it meets that torch.compile was not given directly (a
  // resume function, a function called from code running eagerly) with no tensor or module to
  // trace is not compiled (no compile id, guards or recompile); the next call is looked at again.
  if (!frame->alwaysOptimize && !hasTensorInFrame(in, *fn, args, self)) return eager();
  // Dynamo's convert_frame never compiles a frame whose code is named __setattr__ ("setattr could
  // be tricky to handle generally"): it runs eagerly, the frames it calls are still looked at.
  // (Traced code still inlines a user __setattr__ at an attribute store.)
  if (fn->def && fn->def->name == "__setattr__") return eager();
  const int recompileLimit = CompileContext::recompileLimit(in);
  if (frame->compiles >= recompileLimit) {
    // Dynamo logs the recompile, then finds the limit hit and runs the frame eagerly from now on.
    sink_.recompile(session::RecompileEvent{frame->id, std::to_string(frame->id) + "/" + std::to_string(frame->compiles), reasons, lines});
    if (Value fail = torchapi::dynamoConfig(in, "fail_on_recompile_limit_hit"); fail && in.truthy(fail))
      in.raise("FailOnRecompileLimitHit", "recompile_limit reached, because fail_on_recompile_limit_hit = True this is a HARD failure");
    // From now on the frame is run-only (Dynamo's RUN_ONLY strategy for the code, recursive):
    // its entries still serve, and neither it nor what it calls compiles again.
    frame->runOnly = true;
    frame->skipReason = "torch._dynamo hit config.recompile_limit (" + std::to_string(recompileLimit) + ")";
    runOnly_ = true;
    // Dynamo's warning (torch._dynamo.convert_frame logs it); printed to stderr like Python's logging.
    std::string last = reasons.empty() ? "" : reasons.front().substr(0, reasons.front().find('\n'));
    std::cerr << "W kiln.capture: torch._dynamo hit config.recompile_limit (" << recompileLimit << ")\n   function: '" << frame->name
              << "' (" << file_ << ":"
              << (fn->def      ? fn->def->span.line
                  : fn->lambda ? fn->lambda->span.line
                               : 0)
              << ")\n   last reason: " << last << "\nTo log all recompilation reasons, use --logs recompiles.\n";
    return eager();
  }
  if (frame->id < 0) {
    frame->id = static_cast<int>(frames_.size());
    frames_.push_back(frame);
    session::FrameEvent fe;
    fe.frameId = frame->id;
    fe.name = frame->name;
    fe.file = breakFile(in, file_, definingFile(in, *fn));  // the script's name, or the library module's
    fe.firstLine = fn->def ? fn->def->span.line : fn->lambda->span.line;
    fe.kind = frame->kind;
    fe.source = frameSource(in, *fn);
    sink_.frame(fe);
  }
  std::string cid = std::to_string(frame->id) + "/" + std::to_string(frame->compiles++);
  if (!reasons.empty()) sink_.recompile(session::RecompileEvent{frame->id, cid, reasons, lines});

  auto entry = captureEntry(in, frame, self, selfName, args, names, cid, sink_, true);
  if (!entry) return eager();
  auto added = std::make_shared<CacheEntry>(std::move(*entry));
  frame->cache.push_back(added);
  return runEntry(in, *added, locals, globals, fn);
}

// Dynamo checks a list's length before the guards on its items (the length check belongs to
// the list's node of the guard tree, the items are its children): the first failing guard a
// recompile reports is the length one.
//
// Dynamo also installs an entry's guards sorted by Guard.sort_key, whose first part is the
// guard's source: the frame's locals (L['limit']) before the globals (G['log']), the duplicate
// input guards last. The guard tree is checked in that order, so a local's guard fails first.
static void orderGuards(std::vector<Guard>& guards) {
  auto rank = [](const Guard& g) {
    if (g.kind == Guard::Kind::Shape || g.kind == Guard::Kind::FloatValue) return 3;
    if (g.kind == Guard::Kind::NoAliasing || g.kind == Guard::Kind::DuplicateInput) return 2;
    return !g.source.steps.empty() && g.source.steps[0].kind == Source::Step::Kind::Global ? 1 : 0;
  };
  std::stable_sort(guards.begin(), guards.end(), [&](const Guard& a, const Guard& b) { return rank(a) < rank(b); });
  // Each source spelled once, moved along with its guard: spelling them in the inner loop made
  // this quadratic (1.2 s for the 200-layer transformer's guards).
  std::vector<std::string> texts;
  texts.reserve(guards.size());
  for (const auto& g : guards) texts.push_back(g.source.text());
  for (size_t i = 0; i < guards.size(); ++i) {
    if (guards[i].kind != Guard::Kind::SequenceLength) continue;
    const std::string prefix = texts[i] + "[";
    size_t first = i;
    for (size_t j = 0; j < i; ++j)
      if (texts[j].rfind(prefix, 0) == 0) {
        first = j;
        break;
      }
    if (first == i) continue;
    Guard g = std::move(guards[i]);
    guards.erase(guards.begin() + static_cast<long>(i));
    guards.insert(guards.begin() + static_cast<long>(first), std::move(g));
    std::string t = std::move(texts[i]);
    texts.erase(texts.begin() + static_cast<long>(i));
    texts.insert(texts.begin() + static_cast<long>(first), std::move(t));
  }
}

// Within each rank of orderGuards, the guard tree's order: Dynamo inserts guards sorted by the
// length of their source's name, then the name, so each node's children come in the order of
// the smallest (length, name) in their subtree, after the node's own guards (a list's length
// before its items): a depth-first walk of the sources' prefixes (L['ys'][0] before L['ys'][1],
// L['x'] before L['self']...). The entry checks its guards in this order (CacheEntry::checkOrder);
// the guards themselves stay in the trace's order, which shape symbols are numbered by.
static std::vector<size_t> treeOrder(const std::vector<Guard>& guards) {
  auto rank = [](const Guard& g) {
    if (g.kind == Guard::Kind::Shape || g.shapePhase) return 3;
    if (g.kind == Guard::Kind::NoAliasing || g.kind == Guard::Kind::DuplicateInput) return 2;
    return !g.source.steps.empty() && g.source.steps[0].kind == Source::Step::Kind::Global ? 1 : 0;
  };
  using Key = std::pair<size_t, std::string>;
  std::vector<std::vector<std::string>> paths(guards.size());
  std::map<std::string, Key> minKey;  // node (a source prefix) -> smallest key below it
  for (size_t i = 0; i < guards.size(); ++i) {
    const std::string full = guards[i].source.text();
    Key k{full.size(), full};
    Source prefix;
    for (const auto& st : guards[i].source.steps) {
      prefix.steps.push_back(st);
      paths[i].push_back(prefix.text());
      auto [it, added] = minKey.emplace(paths[i].back(), k);
      if (!added && k < it->second) it->second = k;
    }
  }
  std::vector<size_t> order(guards.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (rank(guards[a]) != rank(guards[b])) return rank(guards[a]) < rank(guards[b]);
    if (rank(guards[a]) >= 2) return false;
    const auto &pa = paths[a], &pb = paths[b];
    for (size_t l = 0;; ++l) {
      if (l == pa.size() && l == pb.size()) {
        // Guards on one node go in the order of their builders in Dynamo's guards.py
        // (Guard.sort_key ends with it): a value's EQUALS_MATCH comes after its TYPE_MATCH,
        // SET_CONTAINS and the rest (a set that grew fails `set.__contains__(s, 'c')` first).
        // A HASATTR that holds is no guard of the node's own but its getattr child (`x.to`),
        // checked after them (a tensor's TENSOR_MATCH fails before `hasattr(x, 'to')`).
        auto late = [&](size_t i) {
          if (guards[i].kind == Guard::Kind::HasAttr && guards[i].expected) return 2;
          return guards[i].kind == Guard::Kind::ConstantMatch ? 1 : 0;
        };
        return late(a) < late(b);
      }
      if (l == pa.size() || l == pb.size()) return pa.size() < pb.size();  // a node's own guards first
      if (pa[l] == pb[l]) continue;
      const Key &ka = minKey.at(pa[l]), &kb = minKey.at(pb[l]);
      return ka != kb ? ka < kb : pa[l] < pb[l];
    }
  });
  return order;
}

// Whether `target` is inside a `with` block of `body` (nested functions and classes not entered).
static bool insideWith(const py::Body& body, const py::Stmt* target, bool inWith = false) {
  for (const auto& st : body) {
    if (!st) continue;
    if (st.get() == target) return inWith;
    if (st->kind == py::StmtKind::FunctionDef || st->kind == py::StmtKind::ClassDef) continue;
    const bool w = inWith || st->kind == py::StmtKind::With;
    for (const py::Body* b : {&st->body, &st->orelse, &st->finalbody})
      if (insideWith(*b, target, w)) return true;
    for (const auto& h : st->handlers)
      if (insideWith(h.body, target, w)) return true;
  }
  return false;
}

// The "captured" stage of a compile (order 0): the graph as the user sees it.
static void reportCapturedStage(session::SessionSink& sink, const std::string& cid, const ir::Graph& shown) {
  session::StageEvent se;
  se.compileId = cid;
  se.stage = "captured";
  se.graph = shown;
  se.text = ir::printGraph(shown);
  se.changed = true;
  sink.stage(se);
}

// The errors torch._dynamo.exc raises itself (Unsupported, UserError, TorchRuntimeError ...):
// they are not exceptions of the traced program, and end the compile as they are.
static bool isDynamoError(const py::PyError& e) {
  static const std::set<std::string> kDynamo = {"Unsupported",
                                                "UserError",
                                                "TorchRuntimeError",
                                                "FailOnRecompileLimitHit",
                                                "RecompileLimitExceeded",
                                                "ConstraintViolationError",
                                                "BackendCompilerFailed",
                                                "InternalTorchDynamoError",
                                                "TorchDynamoException",
                                                "UncapturedHigherOrderOpError",
                                                "SkipFrame",
                                                "RestartAnalysis"};
  return kDynamo.count(e.type()) > 0;
}

// Dynamo's DDPOptimizer (ddp_split.h): while DistributedDataParallel.forward runs (its class's
// `_active_ddp_module`) and torch._dynamo.config.optimize_ddp is on, the graph is split at the
// module's bucket boundaries and each piece compiled with `backend`. Null when there is no
// active DDP module or a single bucket; a graph Kiln cannot split is compiled whole and says why
// in a stage of its own.
std::shared_ptr<DdpSplit> ddpSplitOf(py::Interpreter& in, const py::FunctionObj& fn, const Value& self, const std::string& selfName,
                                     const std::vector<Value>& args, const std::vector<std::string>& names, const CacheEntry& entry,
                                     const ir::Graph& graph, const ir::Graph& shown, const std::string& cid, session::SessionSink& sink,
                                     Backend& backend, const std::string& mode) {
  if (Value opt = torchapi::dynamoConfig(in, "optimize_ddp"); opt && !in.truthy(opt)) return nullptr;
  Value ddpClass;
  if (auto m = in.importModule("torch.nn.parallel")) {
    auto it = m->scope->vars.find("DistributedDataParallel");
    if (it != m->scope->vars.end()) ddpClass = it->second;
  }
  Value active = ddpClass ? in.getAttrOrNull(ddpClass, "_active_ddp_module") : nullptr;
  if (!active || py::isNone(active)) return nullptr;
  Value capValue = in.getAttrOrNull(active, "bucket_bytes_cap");
  if (!capValue || capValue->kind != VK::Int) return nullptr;
  const int64_t cap = py::as<py::IntObj>(capValue)->small();
  int64_t firstCap = int64_t{1} << 20;  // torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
  if (auto d = in.importModule("torch.distributed"))
    if (auto it = d->scope->vars.find("_DEFAULT_FIRST_BUCKET_BYTES"); it != d->scope->vars.end() && it->second->kind == VK::Int)
      firstCap = py::as<py::IntObj>(it->second)->small();
  if (firstCap > cap) in.raise("AssertionError", "First bucket should be smaller/equal to other buckets to get comms warmed up ASAP");
  // Which placeholders are parameters that require grad, and their storage bytes.
  std::map<std::string, Value> locals;
  if (self && !selfName.empty()) locals[selfName] = self;
  for (size_t i = 0; i < names.size() && i < args.size(); ++i) locals[names[i]] = args[i];
  for (py::Scope* sc = fn.closure.get(); sc; sc = sc->parent.get())
    for (const auto& [k, v] : sc->vars) locals.emplace(k, v);
  std::vector<int64_t> paramBytes;
  for (const auto& src : entry.inputs) {
    Value v = src.fetch(in, locals, *fn.module);
    int64_t bytes = 0;
    if (v && v->kind == VK::Tensor) {
      auto* t = py::as<py::TensorObj>(v);
      if (!t->fake && t->parameter && t->t.requiresGrad() && t->t.storage()) bytes = int64_t(t->t.storage()->bytes());
    }
    paramBytes.push_back(bytes);
  }
  DdpBuckets buckets = ddpBuckets(graph, paramBytes, cap, firstCap);
  std::string why;
  std::optional<DdpSplit> split = buckets.nodes.size() > 1 ? splitForDdp(graph, buckets, &why) : std::nullopt;
  session::StageEvent se;
  se.compileId = cid;
  se.stage = "ddp_split";
  se.order = 99;
  se.changed = false;
  se.graph = shown;
  if (!split) {
    DdpSplit one;
    one.bucketCap = cap;
    one.buckets = buckets;
    se.text = describeDdpSplit(one) + (buckets.nodes.size() > 1 ? "Kiln compiles this graph whole: " + why + "\n" : "");
    sink.stage(se);
    return nullptr;
  }
  split->bucketCap = cap;
  auto out = std::make_shared<DdpSplit>(std::move(*split));
  // The whole graph as captured (what counts as this compile's graph), then the split.
  session::StageEvent captured;
  captured.compileId = cid;
  captured.stage = "captured";
  captured.graph = shown;
  captured.text = ir::printGraph(shown);
  sink.stage(captured);
  se.text = describeDdpSplit(*out);
  for (const auto& p : out->pieces) se.text += "\n---" + p.graph.name + " graph---\n" + ir::printGraph(p.graph);
  // The stage's graph is the whole graph with every node under its bucket's submodule (the
  // outermost module of its path), so the studio folds it into one box per bucket, submod_0 ...
  for (size_t b = 0; b < out->buckets.nodes.size(); ++b)
    for (int id : out->buckets.nodes[b])
      if (ir::Node* n = se.graph.find(id)) {
        const std::string piece = "submod_" + std::to_string(b);
        n->prov.modulePath = n->prov.modulePath.empty() ? piece : piece + "." + n->prov.modulePath;
      }
  se.changed = true;
  sink.stage(se);
  compileDdpPieces(*out, backend, cid, sink, mode);
  return out;
}

// One capture of a frame: what the steps of captureEntry share, from the tracer to the compile
// event they report.
struct CompileContext::Capture {
  Capture(py::Interpreter& in, const std::shared_ptr<Frame>& frame, const Value& self, const std::string& selfName,
          const std::vector<Value>& args, const std::vector<std::string>& names, const std::string& cid, session::SessionSink& sink,
          bool firstCapture, const CacheEntry* dynamicOf, const StopAtCall* stopAt, const std::string& file)
      : in(in),
        frame(frame),
        self(self),
        selfName(selfName),
        args(args),
        names(names),
        cid(cid),
        sink(sink),
        firstCapture(firstCapture),
        dynamicOf(dynamicOf),
        stopAt(stopAt),
        fn(py::as<py::FunctionObj>(frame->fn)),
        tracer(in, file, fn->module),
        tm{in, tracer, outputs, entry.scopes, fn->closure.get(), {}, {}, {}} {}
  py::Interpreter& in;
  const std::shared_ptr<Frame>& frame;
  const Value& self;
  const std::string& selfName;
  const std::vector<Value>& args;
  const std::vector<std::string>& names;
  const std::string& cid;
  session::SessionSink& sink;
  const bool firstCapture;  // (false: a shape's own capture under a dynamic entry)
  const CacheEntry* dynamicOf;
  const StopAtCall* stopAt;  // second pass: stop before this call
  py::FunctionObj* fn;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  Tracer tracer;
  CacheEntry entry;
  std::vector<int> outputs;  // graph outputs (node ids)
  Templater tm;              // how the entry makes the values it hands on
  session::CompileEvent ce;
  CallArgs fakeArgs;
  Value fakeSelf;
  bool gradBefore = true;  // global state before tracing (tracing leaves it as it found it)
  GlobalState stateBefore;
  bool returnsTensor = false;           // the frame returned one tensor (not a tuple of them)
  std::string tail;                     // transformed code after the graph call: the return, or the break
  std::optional<StopAtCall> restartAt;  // Restart: capture again, stopping before this call
  int callsBeforeCleanup = 0;
  // The captured graph: the tracer's until keepCapturedGraph, then the entry's (which takes it).
  const ir::Graph& graph() const { return entry.captured ? *entry.captured : tracer.graph; }
  // The captured graph as the user sees it: with the entry's size symbols where it has any.
  std::optional<ir::Graph> shownWithSymbols;
  const ir::Graph& shown() const { return shownWithSymbols ? *shownWithSymbols : graph(); }
};

std::optional<CacheEntry> CompileContext::captureEntry(py::Interpreter& in, const std::shared_ptr<Frame>& frame, const Value& self,
                                                       const std::string& selfName, const std::vector<Value>& args,
                                                       const std::vector<std::string>& names, const std::string& cid,
                                                       session::SessionSink& sink, bool firstCapture, const CacheEntry* dynamicOf,
                                                       const StopAtCall* stopAt) {
  Capture c(in, frame, self, selfName, args, names, cid, sink, firstCapture, dynamicOf, stopAt, file_);
  startTrace(c);                                            // the tracer and its dynamic-shape plans
  if (bindArguments(c) == Next::Skip) return std::nullopt;  // fake arguments: lazy graph inputs
  switch (traceFrame(c)) {                                  // evaluate it; a break plans the resume
    case Next::Skip: return std::nullopt;
    case Next::Restart: return captureEntry(in, frame, self, selfName, args, names, cid, sink, firstCapture, dynamicOf, &*c.restartAt);
    case Next::Go: break;
  }
  recordInputMutations(c);                                         // inputs updated in place: written back
  recordSideEffects(c);                                            // attribute stores, iterator steps: replayed
  if (checkReconstructible(c) == Next::Skip) return std::nullopt;  // values the entry cannot make: skip
  finishGraph(c);                                                  // outputs, cleanup, guards in Dynamo's order
  if (c.firstCapture) noteFrameState(c);                           // what automatic dynamic compares next time
  keepCapturedGraph(c);                                            // as compiled, and as shown (dynamic dims)
  if (tracedNothing(c)) {                                          // Dynamo's SkipFrame
    skip(c, "No ops traced for the FX graph. `torch.compile` will skip the frame and fall back to eager.", nullptr);
    return std::nullopt;
  }
  writeTransformedCode(c);                          // as depyf shows it
  if (c.graph().opCount() > 0) compileCaptured(c);  // the backend (eager when it fails)
  reportCompile(c);                                 // the compile event, guards' check order
  return std::move(c.entry);
}

// The frame runs eagerly from now on (a graph break, if any, is reported first).
CompileContext::Next CompileContext::skip(Capture& c, const std::string& why, const session::GraphBreakEvent* b) {
  if (b) c.sink.graphBreak(*b);
  c.ce.status = "skipped";
  c.ce.message = why;
  c.sink.compile(c.ce);
  c.sink.compileDone(c.cid);
  c.frame->skip = true;
  c.frame->skipReason = why;
  return Next::Skip;
}

// With fullgraph=True a break is an error: the compile is recorded failed, with where and why
// (the studio lists it and marks its line; it has no stages).
void CompileContext::failCompile(Capture& c, const session::GraphBreakEvent& b) {
  c.ce.status = "failed";
  c.ce.message = b.title;
  c.ce.file = b.file;
  c.ce.line = b.line;
  c.ce.col = b.col;
  c.ce.detail = b.explanation;
  c.sink.compile(c.ce);
  c.sink.compileDone(c.cid);
}

// A Dynamo error while tracing (an op that fails on fake tensors, a user error it diagnoses) fails
// the compile as PyTorch's does, and is recorded so: failed, at the script's innermost line of the
// error's traceback, with the error as its explanation (the caller then raises it).
void CompileContext::failCompile(Capture& c, const py::PyError& e) {
  c.ce.status = "failed";
  c.ce.message = e.type();
  c.ce.detail = e.type() + ": " + e.message();
  for (auto f = e.traceback.rbegin(); f != e.traceback.rend(); ++f)
    if (f->file == c.in.file()) {
      c.ce.file = breakFile(c.in, file_, f->file);
      c.ce.line = f->span.line;
      c.ce.col = f->span.col;
      break;
    }
  c.sink.compile(c.ce);
  c.sink.compileDone(c.cid);
}

void CompileContext::startTrace(Capture& c) {
  Tracer& tracer = c.tracer;
  const std::shared_ptr<Frame>& frame = c.frame;
  py::Interpreter& in = c.in;
  tracer.stopAt = c.stopAt;
  if (c.firstCapture) {
    // (A shape's own capture under a dynamic entry is concrete: the entry's guards hold for it.)
    tracer.dynamicInts = frame->opts.dynamic && *frame->opts.dynamic;
    tracer.dimPlan = [&in, f = frame.get()](const Source& src, const py::TensorObj& fake, const py::TensorObj* real) {
      return planDims(in, *f, src, fake, real);
    };
    // An int argument is a symbol with dynamic=True, and once its value changed between
    // compiles (automatic dynamic).
    if (!frame->opts.dynamic || *frame->opts.dynamic)
      tracer.intPlan = [f = frame.get()](const Source& src, int64_t value) {
        if (f->opts.dynamic) return true;
        const std::string key = src.text();
        auto seen = f->seenInts.find(key);
        // A float or a tensor there before is a change too (Dynamo's frame state merges them).
        return f->dynamicInts.count(key) > 0 || (seen != f->seenInts.end() && seen->second != value) || f->seenFloats.count(key) > 0 ||
               f->seenSizes.count(key) > 0;
      };
    // A float is specialized at first; once its value (or the kind of value there) changed,
    // and always with dynamic=True, it is dynamic (tracer_floats.cpp); never with dynamic=False.
    tracer.floatPlan = [f = frame.get()](const Source& src, double value) {
      if (f->opts.dynamic) return *f->opts.dynamic;
      const std::string key = src.text();
      if (f->dynamicFloats.count(key)) return true;
      auto seen = f->seenFloats.find(key);
      if (seen != f->seenFloats.end()) return seen->second != value;
      return f->seenInts.count(key) > 0 || f->seenSizes.count(key) > 0;
    };
  }
  tracer.graph.name = frame->name;
  c.entry.compileId = c.cid;
  c.entry.backendKey = backendKey(frame->opts);
  c.entry.gradMode = autograd::isGradEnabled();
  c.entry.globalState = currentGlobalState();
}

CompileContext::Next CompileContext::bindArguments(Capture& c) {
  Tracer& tracer = c.tracer;
  const std::vector<std::string>& names = c.names;
  c.fakeSelf = c.self ? tracer.bindArg(c.selfName, c.self) : nullptr;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const py::Param* p = nullptr;
    for (const auto& q : c.fn->params)
      if (q.name == names[i]) p = &q;
    if (p && (p->kind == py::Param::VarArgs || p->kind == py::Param::VarKw)) {
      // *args / **kwargs: their items are passed on as the call passed them.
      Value bound = tracer.bindVarArgs(names[i], c.args[i]);
      if (!bound) {
        // An item capture cannot read through a source (a list, an object): the frame runs
        // eagerly, as before Kiln captured *args / **kwargs frames.
        c.frame->skip = true;
        c.frame->skipReason = "an item of *" + names[i] + " Kiln cannot pass on while capturing";
        return Next::Skip;
      }
      if (p->kind == py::Param::VarArgs)
        for (const auto& v : py::as<py::TupleObj>(bound)->items) c.fakeArgs.args.push_back(v);
      else
        for (const auto& [k, v] : py::as<py::DictObj>(bound)->items) c.fakeArgs.kwargs.emplace_back(c.in.str(k), v);
      continue;
    }
    c.fakeArgs.args.push_back(tracer.bindArg(names[i], c.args[i]));
  }
  for (py::Scope* sc = c.fn->closure.get(); sc; sc = sc->parent.get())
    for (const auto& [k, v] : sc->vars)
      if (!tracer.argValues.count(k)) tracer.addClosure(k, v);
  tracer.topDepth = c.in.depth() + 1;
  tracer.fullgraph = c.frame->opts.fullgraph;
  c.ce.compileId = c.cid;
  c.ce.frameId = c.frame->id;
  c.ce.compileIndex = c.frame->compiles - 1;
  c.ce.backend = c.frame->opts.backend;
  return Next::Go;
}

CompileContext::Next CompileContext::traceFrame(Capture& c) {
  py::Interpreter& in = c.in;
  Tracer& tracer = c.tracer;
  in.tracer = &tracer;
  // Tracing leaves global state as it found it (a traced set_grad_enabled(False) is part of
  // the graph's semantics, not of the capture).
  c.gradBefore = autograd::isGradEnabled();
  c.stateBefore = currentGlobalState();
  auto endTrace = [&] {
    in.tracer = nullptr;
    autograd::setGradEnabled(c.gradBefore);
    restoreAutocast(c.stateBefore);
  };
  try {
    Value result = in.callFunction(*c.fn, c.fakeArgs, c.fakeSelf);
    c.returnsTensor = result && result->kind == VK::Tensor;
    endTrace();
    recordEffects(c.tm, c.entry, *c.fn);
    tracer.undoSideEffects();
    c.entry.output = c.tm.make(result);
    c.tail = "    return " + show(in, c.entry.output) + "\n";
    return Next::Go;
  } catch (Unsupported& u) {
    endTrace();
    return planBreak(c, u);
  } catch (py::PyError& e) {
    endTrace();
    tracer.undoSideEffects();
    // Dynamo's own errors (an op failing on fake tensors, a user error it diagnoses) fail the
    // compile and reach the caller as they are.
    if (isDynamoError(e)) {
      failCompile(c, e);
      throw;
    }
    return observedException(c, e);
  } catch (...) {
    endTrace();
    tracer.undoSideEffects();
    throw;
  }
}

// A graph break: the graph ends there, the unsupported call (or the branch) runs eagerly, and a
// resume function runs the rest; or the frame runs eagerly when Kiln cannot resume there.
CompileContext::Next CompileContext::planBreak(Capture& c, Unsupported& u) {
  const std::shared_ptr<Frame>& frame = c.frame;
  py::FunctionObj* fn = c.fn;
  Tracer& tracer = c.tracer;
  if (u.at == Unsupported::At::Call && !c.stopAt && !frame->opts.fullgraph) {
    // Capture again, stopping before the call that broke: what the call did the first time
    // (nodes, side effects) must not be part of this entry.
    tracer.undoSideEffects();
    c.restartAt = StopAtCall{u.expr, u.occurrence, std::make_shared<Unsupported>(u)};
    return Next::Restart;
  }
  recordEffects(c.tm, c.entry, *fn);
  tracer.undoSideEffects();
  session::GraphBreakEvent b = breakEvent(c, u);
  // (Under fullgraph=True Dynamo captures Tensor.item() as an unbacked symbol instead of
  // breaking, KB003: a limitation of Kiln's there too.)
  if (frame->opts.fullgraph && (u.kilnLimitation || u.code == "KB003")) {
    // PyTorch would capture this frame whole; Kiln cannot, and says so rather than failing.
    b.explanation += " fullgraph=True asks for one graph, which Kiln cannot make here: the frame runs eagerly.";
    return skip(c, u.title, &b);
  }
  if (frame->opts.fullgraph) {
    // With fullgraph=True a break is an error, not a logged graph break.
    failCompile(c, b);
    c.in.raise(u.errorClass, u.title + "\n  Explanation: " + u.explanation);
  }
  std::set<std::string> cells;
  ResumePlan plan = planResumeAt(c, u, cells);
  if (!plan.resumable) {
    b.explanation += " Kiln cannot resume after this break (" + plan.whyNot + "), so the frame runs eagerly.";
    return skip(c, plan.whyNot, &b);
  }
  // Dynamo's create_call_resume_at: when the instruction after the breaking call is the return
  // (`return inner(x)`, not inside a `with`, whose exit runs in between), the compiled code
  // returns the call's value itself: no resume function (nor a frame for it), no locals passed on.
  if (u.at == Unsupported::At::Call && u.stmt && u.stmt->kind == py::StmtKind::Return && u.stmt->value.get() == u.expr && fn->def &&
      !insideWith(fn->def->body, u.stmt)) {
    plan.live.clear();
    plan.stack.clear();
    plan.resume = nullptr;
  }
  if (u.at == Unsupported::At::Call) tracer.truncate(u.graphSize);
  // Dynamo exits the frame's active blocks when it compiles the graph at a break: a grad mode
  // the frame set is restored at the graph's end (the resume function sets it again). (The
  // block's own exit, run as the break unwound, went with the call's nodes.)
  if (u.at == Unsupported::At::Call && u.gradEnabled != c.gradBefore) tracer.onGradMode(c.gradBefore);
  closeAutocastRegions(tracer.graph);
  fillBreakPlan(c, u, plan, cells);
  if (!c.tm.unbuildable.empty()) {
    // What the eager code after the break would receive cannot be made outside the trace.
    b.explanation += " Kiln cannot hand " + c.tm.unbuildable + " to the code after the break, so the frame runs eagerly.";
    return skip(c, c.tm.unbuildable, &b);
  }
  c.sink.graphBreak(b);
  BreakPlan& bp = c.entry.plan;
  bp.resumeDef = plan.resume;
  bp.resumeElseDef = plan.resumeElse;
  if (plan.resume) bp.resume = makeResume(plan.resume, *fn);
  if (plan.resumeElse) bp.resumeElse = makeResume(plan.resumeElse, *fn);
  for (const auto& def : {plan.resume, plan.resumeElse})
    if (def && fn->def) noteResumeCode(*def, *fn->def);
  c.tail += breakCode(c, u, plan);
  return Next::Go;
}

// The graph break event: Dynamo's code, title, explanation and hints, where, the user stack.
session::GraphBreakEvent CompileContext::breakEvent(Capture& c, const Unsupported& u) {
  session::GraphBreakEvent b;
  b.frameId = c.frame->id;
  b.compileId = c.cid;
  b.code = u.code;
  b.title = u.title;
  b.explanation = u.explanation;
  b.hints = u.hints;
  b.file = breakFile(c.in, file_, u.where.file);
  b.line = u.where.span.line;
  b.col = u.where.span.col;
  b.userStack = userStackOf(u.stack);
  return b;
}

// The resume function(s) after the break (reused from an earlier capture that broke at the same
// place), with `cells` the frame's variables they share with a function it defined.
ResumePlan CompileContext::planResumeAt(Capture& c, const Unsupported& u, std::set<std::string>& cells) {
  py::FunctionObj* fn = c.fn;
  Tracer& tracer = c.tracer;
  std::set<std::string> bound;
  if (u.scope)
    for (const auto& [k, v] : u.scope->vars) bound.insert(k);
  ResumePlan plan;
  if (u.at != Unsupported::At::Unknown && fn->def) plan = planResume(*fn->def, u, bound);  // (a lambda: no resume)
  // A function this frame defined, handed to the code after the break, shares the frame's
  // variables it closes over with the resume function (a `nonlocal` write on one side is seen
  // on the other): those cells move to a scope made each call, the resume function's closure.
  if (plan.resumable && u.scope) {
    std::set<const py::Obj*> seen;
    bool escapes = closesOver(u.callee, u.scope.get(), tracer, 4, seen);
    for (const auto& v : u.args) escapes = escapes || closesOver(v, u.scope.get(), tracer, 4, seen);
    for (const auto& [k, v] : u.kwargs) escapes = escapes || closesOver(v, u.scope.get(), tracer, 4, seen);
    for (const auto* e : plan.stack)
      if (auto it = tracer.exprValues.find(e); it != tracer.exprValues.end())
        escapes = escapes || closesOver(it->second, u.scope.get(), tracer, 4, seen);
    for (const auto& n : plan.live)
      if (auto it = u.scope->vars.find(n); it != u.scope->vars.end())
        escapes = escapes || closesOver(it->second, u.scope.get(), tracer, 4, seen);
    if (escapes) {
      cells = cellVars(*fn->def);
      plan = planResume(*fn->def, u, bound, cells);
    }
  }
  if (plan.resumable) {
    auto key = std::make_tuple(static_cast<const void*>(u.stmt), static_cast<const void*>(u.expr), !cells.empty());
    auto cached = resumeCache_.find(key);
    if (cached != resumeCache_.end()) {
      plan.resume = cached->second.first;
      plan.resumeElse = cached->second.second;
    } else {
      resumeCache_[key] = {plan.resume, plan.resumeElse};
    }
  } else plan.whyNot = "graph break outside a call or branch Kiln can resume after";
  return plan;
}

// What the entry does after its graph: the eager call (or the branch), and the live locals it
// hands to the resume function.
void CompileContext::fillBreakPlan(Capture& c, const Unsupported& u, const ResumePlan& plan, const std::set<std::string>& cells) {
  Tracer& tracer = c.tracer;
  Templater& tm = c.tm;
  BreakPlan& bp = c.entry.plan;
  auto valueOf = [&](const py::Expr* e) -> Value {
    auto it = tracer.exprValues.find(e);
    return it == tracer.exprValues.end() ? py::None() : it->second;
  };
  auto localValue = [&](const std::string& n) -> Value {
    auto it = u.scope->vars.find(n);
    return it == u.scope->vars.end() ? py::None() : it->second;
  };
  if (u.at == Unsupported::At::Call) {
    bp.kind = BreakPlan::Kind::Call;
    const py::Expr* calleeExpr =
        u.expr && u.expr->kind == py::ExprKind::Call ? u.expr->target.get() : nullptr;  // (or a store, a class statement)
    Value recv = calleeExpr && calleeExpr->kind == py::ExprKind::Attribute ? valueOf(calleeExpr->target.get()) : nullptr;
    if (recv && recv->kind == VK::Tensor) {
      bp.callee.kind = ValueTemplate::Kind::Method;
      bp.callee.method = calleeExpr->name;
      bp.callee.items.push_back(tm.make(recv));
    } else {
      bp.callee = tm.make(u.callee);
    }
    for (const auto& s : plan.stack) bp.stack.push_back(tm.make(valueOf(s)));
    for (const auto& v : u.args) bp.args.push_back(tm.make(v));
    for (const auto& [k, v] : u.kwargs) bp.kwargs.emplace_back(k, tm.make(v));
    bp.resultUsed = plan.resultUsed;
    bp.gradEnabled = u.gradEnabled;
    if (const auto* g = std::any_cast<GlobalState>(&u.globalState)) bp.globalState = *g;
    bp.inferenceMode = u.inferenceMode;
  } else {
    bp.kind = BreakPlan::Kind::Branch;
    bp.test = tm.make(u.callee);
  }
  // Python constants passed on to the resume function are specialized there: guard them here,
  // at the break (Dynamo guards a live constant when it reconstructs it for the resume call).
  ir::SourceLoc at;
  at.file = file_;
  at.line = u.stmt ? u.stmt->span.line : 0;
  at.function = c.fn->name;
  if (u.stmt) at.code = py::sourceLine(c.in.source(), at.line, true);
  for (const auto& n : plan.live) tracer.onLocalRead(n, localValue(n), &at);
  for (const auto& n : plan.live) bp.live.push_back(tm.make(localValue(n)));
  bp.liveTrue = plan.liveTrue;
  bp.liveElse = plan.liveElse;
  if (!cells.empty()) {
    bp.cellScope = tm.scopeOf(u.scope);
    for (const auto& n : cells)
      if (auto it = u.scope->vars.find(n); it != u.scope->vars.end()) tm.addVar(bp.cellScope, n, it->second);
  }
}

// The transformed code after the graph call at a break, as depyf would show it.
std::string CompileContext::breakCode(Capture& c, const Unsupported& u, const ResumePlan& plan) {
  py::Interpreter& in = c.in;
  const BreakPlan& bp = c.entry.plan;
  std::string code, liveArgs;
  for (size_t i = 0; i < bp.stack.size(); ++i) code += "    ___stack" + std::to_string(i) + " = " + show(in, bp.stack[i]) + "\n";
  for (const auto& l : bp.live) liveArgs += ", " + show(in, l);
  if (bp.kind == BreakPlan::Kind::Call) {
    std::string callText = show(in, bp.callee) + "(";
    for (size_t i = 0; i < bp.args.size(); ++i) callText += (i ? ", " : "") + show(in, bp.args[i]);
    for (const auto& [k, v] : bp.kwargs)
      callText += (bp.args.empty() && &k == &bp.kwargs.front().first ? "" : ", ") + k + "=" + show(in, v);
    callText += ")";
    std::string resName = "___stack" + std::to_string(bp.stack.size());
    code += "    " + (bp.resultUsed ? resName + " = " : std::string()) + callText + "  # graph break: " + u.title + "\n";
    std::string resumeArgs;
    for (size_t i = 0; i < bp.stack.size(); ++i) resumeArgs += (i ? ", " : "") + std::string("___stack") + std::to_string(i);
    if (bp.resultUsed) resumeArgs += (resumeArgs.empty() ? "" : ", ") + resName;
    resumeArgs += resumeArgs.empty() && !liveArgs.empty() ? liveArgs.substr(2) : liveArgs;
    code += plan.resume ? "    return " + plan.resume->name + "(" + resumeArgs + ")\n" : "    return " + resName + "\n";
  } else {
    auto liveOf = [&](const std::vector<bool>& takes) {
      std::string s;
      for (size_t i = 0; i < bp.live.size(); ++i)
        if (takes.empty() || takes[i]) s += (s.empty() ? "" : ", ") + show(in, bp.live[i]);
      return s;
    };
    code += "    if " + show(in, bp.test) + ":  # graph break: " + u.title + "\n";
    code += "        return " + plan.resume->name + "(" + liveOf(bp.liveTrue) + ")\n";
    code += "    return " + plan.resumeElse->name + "(" + liveOf(bp.liveElse) + ")\n";
  }
  return code;
}

// A Python exception that leaves the traced frame (no handler in it) is Dynamo's "Observed
// exception" (gb0088): with fullgraph=True an Unsupported error; otherwise a graph break it
// cannot resume after, so the function is skipped and runs eagerly from now on, and this
// call raises the program's own exception there (with the side effects the trace undid).
CompileContext::Next CompileContext::observedException(Capture& c, const py::PyError& e) {
  session::GraphBreakEvent b;
  b.frameId = c.frame->id;
  b.compileId = c.cid;
  b.code = "KB040";
  b.title = "Observed exception";
  b.explanation =
      "Dynamo found no exception handler at the top-level compiled function when encountering an "
      "exception. Exception will propagate outside the compiled region.";
  b.hints = {
      "Your code may result in an error when running in eager. Please double check that your code doesn't "
      "contain a similar error when actually running eager/uncompiled."};
  b.file = file_;
  if (!e.traceback.empty()) {
    b.file = breakFile(c.in, file_, e.traceback.back().file);
    b.line = e.traceback.back().span.line;
    b.col = e.traceback.back().span.col;
  }
  b.userStack = userStackOf(e.traceback);
  const std::string debug = "raised exception " + e.type() + "('" + e.message() + "')";
  if (c.frame->opts.fullgraph) {
    failCompile(c, b);
    c.in.raise("Unsupported", b.title + "\n  Explanation: " + b.explanation + "\n\n  Developer debug context: " + debug);
  }
  return skip(c, b.title, &b);
}

// Graph inputs mutated in place (buffer.add_(1)): their final value is a graph output the
// entry copies back into the input tensor (AOTAutograd's input mutations).
void CompileContext::recordInputMutations(Capture& c) {
  Tracer& tracer = c.tracer;
  for (const auto& n : tracer.graph.nodes)
    if (torchapi::isInplaceNode(n)) c.entry.mutates = true;
  std::map<int, int> last;  // input node -> last in-place node on it
  for (const auto& n : tracer.graph.nodes)
    if (torchapi::isInplaceNode(n) && tracer.isInput(n.args[0].node)) last[n.args[0].node] = n.id;
  for (const auto& [input, node] : last) {
    auto it = std::find(c.outputs.begin(), c.outputs.end(), node);
    int index = static_cast<int>(it - c.outputs.begin());
    if (it == c.outputs.end()) c.outputs.push_back(node);
    c.entry.mutations.emplace_back(*tracer.inputSource(input), index);
  }
}

// Side effects become part of what the entry does after its graph.
void CompileContext::recordSideEffects(Capture& c) {
  for (const auto& s : c.tracer.iteratorSteps) c.entry.iteratorAdvances.emplace_back(s.source, s.count);
  for (const auto& se : c.tracer.sideEffects) {
    ValueTemplate obj;
    obj.kind = ValueTemplate::Kind::FromSource;
    obj.source = se.object;
    c.entry.sideEffects.emplace_back(obj, se.attr, c.tm.make(se.value));
  }
}

CompileContext::Next CompileContext::checkReconstructible(Capture& c) {
  if (!c.tm.sourceless.empty()) {
    // Dynamo fails to reconstruct the value at the return: an error with fullgraph=True, else a
    // graph break it cannot resume after (the function is skipped).
    session::GraphBreakEvent b;
    b.frameId = c.frame->id;
    b.compileId = c.cid;
    b.code = "KB042";
    b.title = "Reconstruction failure";
    b.explanation = "Dynamo has no bytecode reconstruction implemented for sourceless variable: " + c.tm.sourceless + ".";
    b.hints = {
        "If Dynamo is attempting to trace a return statement and your code is attempting to return a variable "
        "that Dynamo cannot reconstruct, then remove it from the return statement."};
    b.file = file_;
    if (c.frame->opts.fullgraph) {
      failCompile(c, b);
      c.in.raise("Unsupported", b.title + "\n  Explanation: " + b.explanation);
    }
    return skip(c, b.title, &b);
  }
  if (!c.tm.unbuildable.empty())
    return skip(c, "the frame returns " + c.tm.unbuildable + ", which Kiln cannot make outside the trace", nullptr);
  return Next::Go;
}

void CompileContext::finishGraph(Capture& c) {
  Tracer& tracer = c.tracer;
  CacheEntry& entry = c.entry;
  // Dynamo's _return skips a frame on count_calls() before cleanup_graph drops grad-mode changes
  // that cancel out; compile_subgraph then decides on the count after it (a break's graph of
  // only such changes is not compiled), except that a frame returning one tensor (and changing
  // nothing else) always compiles its graph: an empty one, counted, where only those were left.
  c.callsBeforeCleanup = tracer.graph.opCount() + tracer.symbolicCalls;
  tracer.placeInputsFirst();  // before the grad-mode changes are paired: they must be adjacent
  tracer.dropCancellingGradModes(c.gradBefore);
  tracer.finish(c.outputs);
  tracer.finishDynamicFloats();
  tracer.guardNoAliasing();
  double captureMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c.t0).count();
  c.sink.timing(session::TimingEvent{c.cid, "capture", captureMs});
  for (const auto& i : tracer.inputs) entry.inputs.push_back(i.source);
  entry.guards = std::move(tracer.guards);  // the tracer is done with them: some 15,000 at 200 layers
  orderGuards(entry.guards);
  if (c.firstCapture) {
    entry.dynamic = tracer.produceShapeGuards(entry.guards);
    // An entry with dynamic floats serves other values of them: it is run through per-call
    // concrete captures, as one with symbolic sizes.
    if (tracer.hasDynamicFloats()) entry.dynamic = entry.floatDynamic = true;
  }
}

// The int and float values this capture read, which the next compile of the frame compares to
// (a value that changed is dynamic from then on).
void CompileContext::noteFrameState(Capture& c) {
  Frame* frame = c.frame.get();
  if (frame->opts.dynamic) return;
  for (const auto& [src, value] : c.tracer.intReads) {
    const std::string key = src.text();
    auto seen = frame->seenInts.find(key);
    if ((seen != frame->seenInts.end() && seen->second != value) || frame->seenFloats.count(key) || frame->seenSizes.count(key))
      frame->dynamicInts.insert(key);
    frame->seenInts[key] = value;
  }
  for (const auto& [src, value] : c.tracer.floatReads) {
    const std::string key = src.text();
    auto seen = frame->seenFloats.find(key);
    if ((seen != frame->seenFloats.end() && seen->second != value) || frame->seenInts.count(key) || frame->seenSizes.count(key))
      frame->dynamicFloats.insert(key);
    frame->seenFloats[key] = value;
  }
}

void CompileContext::keepCapturedGraph(Capture& c) {
  c.entry.gradMode = autograd::isGradEnabled();
  c.entry.globalState = currentGlobalState();
  // The tracer is done with its graph: the entry takes it (no copy), and the backend compiles the
  // entry's. Copies of a 7,600-node graph held through the compile were some 10 MB each.
  c.entry.captured = std::make_shared<ir::Graph>(std::move(c.tracer.graph));
  if (c.firstCapture) applyAutomaticDynamic(*c.frame, c.entry, c.shownWithSymbols);
}

// Dynamo's _return: a frame that reaches its return with no call traced (count_calls() == 0)
// raises SkipFrame ("No ops traced for the FX graph") unless fullgraph=True. The convert then
// returns no code, whose default strategy skips the code object from now on (ConvertFrameReturn
// with FrameExecStrategy(SKIP, DEFAULT), apply_to_code): later calls run it eagerly, with no
// cache lookup and no recompile, while the frames it calls are still compiled. (A break is no
// return: its empty graph is simply not compiled.)
bool CompileContext::tracedNothing(const Capture& c) const {
  return c.callsBeforeCleanup == 0 && c.firstCapture && !c.dynamicOf && c.entry.plan.kind == BreakPlan::Kind::None &&
         !c.frame->opts.fullgraph;
}

// The entry's transformed code (the graph call, then the return or the break) and its guards,
// kept in the entry and reported with the compile.
void CompileContext::writeTransformedCode(Capture& c) {
  const std::string& cid = c.cid;
  CacheEntry& entry = c.entry;
  std::string params;
  for (size_t i = 0; i < c.names.size(); ++i) params += (i ? ", " : "") + c.names[i];
  if (c.self) params = c.selfName + (params.empty() ? "" : ", " + params);
  const std::string fnName = "__compiled_fn_" + std::to_string(c.frame->id) + "_" + cid.substr(cid.find('/') + 1);
  const int ops = c.graph().opCount();
  std::string code = "def __transformed_code_" + cid.substr(cid.find('/') + 1) + "_for_" + c.frame->name + "(" + params + "):\n";
  if (ops > 0) {
    std::string inputsText;
    for (size_t i = 0; i < entry.inputs.size(); ++i) inputsText += (i ? ", " : "") + entry.inputs[i].display();
    code += "    graph_out_0 = " + fnName + "(" + inputsText + ")  # [" + cid + "] " + std::to_string(ops) + " ops\n";
  }
  code += c.tail;
  if (entry.plan.resumeDef) {
    code += "\n\n" + py::unparse(*entry.plan.resumeDef);
    if (entry.plan.resumeElseDef) code += "\n\n" + py::unparse(*entry.plan.resumeElseDef);
  }
  entry.transformedCode = code;
  for (const auto& g : entry.guards) c.ce.guards.push_back(g.record(c.in));
  c.ce.transformedCode = code;
}

// The backend compiles the graph (empty graphs are not compiled: Dynamo's
// allow_empty_graphs=False); when it fails, the captured graph runs eagerly and the compile is
// recorded failed with the reason.
void CompileContext::compileCaptured(Capture& c) {
  py::Interpreter& in = c.in;
  CacheEntry& entry = c.entry;
  const CacheEntry* dynamicOf = c.dynamicOf;
  const std::string& cid = c.cid;
  session::SessionSink& sink = c.sink;
  const ir::Graph& graph = c.graph();
  const ir::Graph& shown = c.shown();
  const std::shared_ptr<Frame>& frame = c.frame;
  py::FunctionObj* fn = c.fn;
  const Value& self = c.self;
  const std::string& selfName = c.selfName;
  const std::vector<Value>& args = c.args;
  const std::vector<std::string>& names = c.names;
  session::CompileEvent& ce = c.ce;
  try {
    Backend& backend = backendFor(frame->opts.backend);
    std::vector<ir::TensorType> dynInputs;
    if (entry.dynamic || dynamicOf) dynInputs = dynamicInputTypes(dynamicOf ? dynamicOf->guards : entry.guards, entry.inputs, graph);
    if (dynamicOf && dynamicOf->dynamicCode && !dynInputs.empty())
      entry.run = backend.reuse(graph, dynInputs, *dynamicOf->dynamicCode, nullptr);
    if (!entry.run && dynamicOf && dynamicOf->floatDynamic) {
      ir::Graph g = graph;  // one float value's graph: run as captured, no code generated
      entry.run = [g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); };
    }
    if (!entry.run && !dynamicOf && dynInputs.empty() && !entry.mutates)
      if (auto split = ddpSplitOf(in, *fn, self, selfName, args, names, entry, graph, shown, cid, sink, backend, frame->opts.mode)) {
        entry.ddpSplit = split;
        entry.run = [split](const std::vector<tensor::Tensor>& x) {
          return runDdpPieces(*split, x, [](const DdpPiece& p, const std::vector<tensor::Tensor>& in) { return p.run(in); });
        };
      }
    if (!entry.run) {
      CompileRequest request{&shown, dynInputs.empty() ? nullptr : &dynInputs, !dynamicOf, frame->opts.mode};
      if (!backend.reportsCapturedStage()) reportCapturedStage(sink, cid, shown);
      CompiledCode compiled = backend.compile(graph, cid, sink, request);
      entry.run = std::move(compiled.run);
      entry.dynamicCode = std::move(compiled.reusable);
      if (!dynamicOf) entry.backward = std::move(compiled.backward);
    }
    if (wrapRunner && entry.run) entry.run = wrapRunner(std::move(entry.run), entry.captured, cid, frame->opts.backend);
  } catch (const std::exception& e) {
    if (tensor::stopRequested()) {
      // Ctrl-C or a time limit during the compile (an LLVM compile stops between passes): the
      // compile is recorded as stopped and the request raised; no eager fallback is kept.
      ce.status = "failed";
      ce.message = std::string("backend compile stopped: ") + e.what();
      sink.compile(ce);
      sink.compileDone(cid);
      in.raiseStopped();
    }
    ce.status = "failed";
    ce.message = std::string("backend compile failed, running the captured graph eagerly: ") + e.what();
    ir::Graph g = graph;
    entry.run = [g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); };
  }
}

// The compile event (a graph of only symbolic calls is still a graph of the frame's), then what
// the entry checks first.
void CompileContext::reportCompile(Capture& c) {
  py::Interpreter& in = c.in;
  Tracer& tracer = c.tracer;
  CacheEntry& entry = c.entry;
  session::SessionSink& sink = c.sink;
  const std::string& cid = c.cid;
  const bool returnsTensor = c.returnsTensor;
  const int ops = c.graph().opCount();
  const int callsBeforeCleanup = c.callsBeforeCleanup;
  const ir::Graph& shown = c.shown();
  session::CompileEvent& ce = c.ce;
  const bool returnsOnlyTensor = entry.plan.kind == BreakPlan::Kind::None && returnsTensor && entry.sideEffects.empty() &&
                                 entry.containerWrites.empty() && entry.varWrites.empty();
  if (ops == 0 && (tracer.symbolicCalls > 0 || (returnsOnlyTensor && callsBeforeCleanup > 0))) {
    // Dynamo compiles a graph whose only calls are on symbolic ints or floats (`n <= 0` on an
    // automatic dynamic int), or grad-mode changes that cancel out before a `return x.grad`:
    // count_calls() > 0, though dead-code elimination leaves it empty (`return ()`). It is a
    // graph of the frame's; Kiln has nothing to run for it.
    reportCapturedStage(sink, cid, shown);
  }
  sink.compile(ce);
  sink.compileDone(cid);
  // A marked dim the trace specialized fails the compile, as Dynamo's produce_guards does.
  if (!tracer.constraintViolation.empty()) in.raise("ConstraintViolationError", tracer.constraintViolation);
  entry.checkOrder = treeOrder(entry.guards);
}

}  // namespace kiln::capture
