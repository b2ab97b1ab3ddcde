#include "engine/capture/compile_context.h"

#include "engine/capture/frame.h"
#include "engine/driver/backends.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/torch/nn_module.h"

#include <chrono>

namespace kiln::capture {

using py::CallArgs;
using py::Value;
using py::VK;

CompileOptions parseCompileOptions(py::Interpreter& in, const CallArgs& a) {
  CompileOptions o;
  for (const auto& [k, v] : a.kwargs) {
    if (k == "backend") {
      if (v->kind != VK::Str) in.raise("TypeError", "torch.compile(backend=...) must be a backend name string in Kiln");
      o.backend = static_cast<py::StrObj*>(v.get())->v;
      if (o.backend != "inductor" && o.backend != "eager" && o.backend != "aot_eager")
        in.raise("InvalidBackend", "Invalid backend: '" + o.backend + "', see `torch._dynamo.list_backends()` for available backends.");
    } else if (k == "fullgraph") {
      o.fullgraph = in.truthy(v);
    } else if (k == "dynamic") {
      if (!py::isNone(v)) o.dynamic = in.truthy(v);
    } else if (k == "mode") {
      if (!py::isNone(v)) o.mode = in.str(v);
    } else if (k != "options" && k != "disable") {
      in.raise("TypeError", "compile() got an unexpected keyword argument '" + k + "'");
    }
  }
  return o;
}

CompileContext::CompileContext(session::SessionSink& sink, codegen::KernelCompiler* cpu, std::string scriptFile)
    : sink_(sink), cpu_(cpu), file_(std::move(scriptFile)) {}
CompileContext::~CompileContext() = default;

std::shared_ptr<Frame> CompileContext::newFrame(const Value& fn, const CompileOptions& opts) {
  auto f = std::make_shared<Frame>();
  f->fn = fn;
  f->opts = opts;
  f->name = fn->kind == VK::Function ? static_cast<py::FunctionObj*>(fn.get())->name : "forward";
  f->id = -1;  // numbered when first compiled, as Dynamo numbers frames in compile order
  return f;
}

namespace {

py::FunctionObj* forwardOf(py::Interpreter& in, const Value& module) {
  Value fwd = in.getAttr(module, "forward");
  if (fwd->kind == VK::BoundMethod) fwd = static_cast<py::BoundMethodObj*>(fwd.get())->fn;
  if (fwd->kind != VK::Function) in.raise("RuntimeError", "torch.compile: the module's forward is not a Python function");
  return static_cast<py::FunctionObj*>(fwd.get());
}

}  // namespace

Value CompileContext::compile(py::Interpreter& in, const Value& target, const CompileOptions& opts) {
  if (target->kind == VK::Function) {
    auto frame = newFrame(target, opts);
    auto* fn = static_cast<py::FunctionObj*>(target.get());
    return py::makeBuiltin(fn->name, [this, frame](py::Interpreter& in, CallArgs& a) { return call(in, frame, a, nullptr); });
  }
  if (target->kind == VK::Instance && in.getAttrOrNull(target, "_modules")) {
    // torch.compile(module) -> OptimizedModule: calls go through the compiled forward, every
    // other attribute reads the original module (_orig_mod).
    forwardOf(in, target);
    Value fwd = in.getAttr(target, "forward");
    if (fwd->kind == VK::BoundMethod) fwd = static_cast<py::BoundMethodObj*>(fwd.get())->fn;
    auto frame = newFrame(fwd, opts);
    auto cls = std::make_shared<py::ClassObj>();
    cls->name = cls->qualname = "OptimizedModule";
    cls->mro.push_back(cls);
    Value orig = target;
    cls->dict["__call__"] = py::makeBuiltin("OptimizedModule.__call__", [this, frame, orig](py::Interpreter& in, CallArgs& a) {
      CallArgs rest = a;
      rest.args.erase(rest.args.begin());
      return call(in, frame, rest, orig);
    });
    cls->dict["__getattr__"] = py::makeBuiltin("OptimizedModule.__getattr__", [orig](py::Interpreter& in, CallArgs& a) {
      return in.getAttr(orig, in.str(a.args.at(1)));
    });
    auto om = std::make_shared<py::InstanceObj>(cls);
    om->dict->setStr("_orig_mod", orig);
    return om;
  }
  if (target->kind == VK::BoundMethod) {
    auto* bm = static_cast<py::BoundMethodObj*>(target.get());
    auto frame = newFrame(bm->fn, opts);
    Value self = bm->self;
    return py::makeBuiltin(frame->name, [this, frame, self](py::Interpreter& in, CallArgs& a) { return call(in, frame, a, self); });
  }
  in.raise("RuntimeError", "torch.compile expects a function or an nn.Module, got " + py::typeName(target));
}

void CompileContext::compileModuleInPlace(py::Interpreter& in, const Value& module, const CompileOptions& opts) {
  forwardOf(in, module);
  Value fwd = in.getAttr(module, "forward");
  if (fwd->kind == VK::BoundMethod) fwd = static_cast<py::BoundMethodObj*>(fwd.get())->fn;
  auto frame = newFrame(fwd, opts);
  auto st = std::make_shared<torchapi::CompiledModuleState>();
  std::weak_ptr<py::Obj> weakSelf = module;  // the module owns the state: avoid a cycle
  st->compiledCall = py::makeBuiltin("compiled forward", [this, frame, weakSelf](py::Interpreter& in, CallArgs& a) {
    Value self = weakSelf.lock();
    return call(in, frame, a, self);
  });
  static_cast<py::InstanceObj*>(module.get())->native = st;
}

namespace {

// The frame's arguments by parameter position (self excluded), from positional + keyword
// arguments and defaults. Empty optional when the signature is beyond what capture handles.
bool bindArgs(py::Interpreter& in, py::FunctionObj& fn, const CallArgs& a, bool hasSelf, std::vector<Value>& out,
              std::vector<std::string>& names) {
  size_t first = hasSelf ? 1 : 0;
  for (size_t i = first; i < fn.params.size(); ++i) {
    const auto& p = fn.params[i];
    if (p.kind != py::Param::Normal) return false;
    names.push_back(p.name);
    size_t pos = i - first;
    if (pos < a.args.size()) { out.push_back(a.args[pos]); continue; }
    if (Value v = a.kwarg(p.name)) { out.push_back(v); continue; }
    if (fn.defaults[i]) { out.push_back(fn.defaults[i]); continue; }
    return false;  // let the normal call raise the TypeError
  }
  (void)in;
  return a.args.size() <= names.size();
}

void buildTemplate(py::Interpreter& in, const Value& v, OutputTemplate& t, std::vector<int>& outputs) {
  if (v->kind == VK::Tensor && static_cast<py::TensorObj*>(v.get())->fake) {
    int node = static_cast<py::TensorObj*>(v.get())->node;
    t.kind = OutputTemplate::Kind::GraphOutput;
    auto it = std::find(outputs.begin(), outputs.end(), node);
    t.index = static_cast<int>(it - outputs.begin());
    if (it == outputs.end()) outputs.push_back(node);
    return;
  }
  if (v->kind == VK::Tuple || v->kind == VK::List) {
    t.kind = v->kind == VK::Tuple ? OutputTemplate::Kind::Tuple : OutputTemplate::Kind::List;
    for (auto& x : in.iterate(v)) {
      t.items.emplace_back();
      buildTemplate(in, x, t.items.back(), outputs);
    }
    return;
  }
  t.kind = OutputTemplate::Kind::Constant;
  t.constant = v;
}

Value instantiate(const OutputTemplate& t, const std::vector<tensor::Tensor>& outs) {
  switch (t.kind) {
    case OutputTemplate::Kind::GraphOutput: return py::makeTensor(outs.at(static_cast<size_t>(t.index)));
    case OutputTemplate::Kind::Constant: return t.constant;
    case OutputTemplate::Kind::Tuple:
    case OutputTemplate::Kind::List: {
      std::vector<Value> items;
      for (const auto& x : t.items) items.push_back(instantiate(x, outs));
      return t.kind == OutputTemplate::Kind::Tuple ? py::makeTuple(items) : py::makeList(items);
    }
  }
  return py::None();
}

std::string templateExpr(const OutputTemplate& t, py::Interpreter& in) {
  switch (t.kind) {
    case OutputTemplate::Kind::GraphOutput: return "graph_out_0[" + std::to_string(t.index) + "]";
    case OutputTemplate::Kind::Constant: return in.repr(t.constant);
    case OutputTemplate::Kind::Tuple:
    case OutputTemplate::Kind::List: {
      std::string s = t.kind == OutputTemplate::Kind::Tuple ? "(" : "[";
      for (size_t i = 0; i < t.items.size(); ++i) s += (i ? ", " : "") + templateExpr(t.items[i], in);
      if (t.kind == OutputTemplate::Kind::Tuple && t.items.size() == 1) s += ",";
      return s + (t.kind == OutputTemplate::Kind::Tuple ? ")" : "]");
    }
  }
  return "None";
}

Value runEntry(py::Interpreter& in, const CacheEntry& e, const std::vector<Value>& args) {
  std::vector<tensor::Tensor> inputs;
  for (const auto& src : e.inputs) inputs.push_back(static_cast<py::TensorObj*>(args.at(static_cast<size_t>(src.argIndex)).get())->t);
  std::vector<tensor::Tensor> outs;
  if (e.run) {
    try {
      outs = e.run(inputs);
    } catch (const tensor::TorchError& err) {
      in.raise(err.type(), err.what());
    }
  }
  return instantiate(e.output, outs);
}

std::string baseName(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

}  // namespace

Value CompileContext::call(py::Interpreter& in, const std::shared_ptr<Frame>& frame, CallArgs& a, const Value& self) {
  auto* fn = static_cast<py::FunctionObj*>(frame->fn.get());
  auto eager = [&]() {
    CallArgs copy = a;
    return in.callFunction(*fn, copy, self);
  };
  // Nested compiled calls during a capture are inlined, as Dynamo inlines them.
  if (frame->skip || in.tracer) return eager();
  std::vector<Value> args;
  std::vector<std::string> names;
  if (!bindArgs(in, *fn, a, self != nullptr, args, names)) return eager();

  // Cache lookup, newest entry first.
  std::vector<std::string> reasons;
  for (auto it = frame->cache.rbegin(); it != frame->cache.rend(); ++it) {
    std::string failure;
    for (const auto& g : it->guards) {
      failure = g.check(in, args);
      if (!failure.empty()) break;
    }
    if (failure.empty()) return runEntry(in, *it, args);
    reasons.push_back(it->compileId + ": " + failure);
  }
  if (frame->compiles >= kRecompileLimit) {
    frame->skip = true;
    frame->skipReason = "recompile_limit reached";
    return eager();
  }
  if (frame->id < 0) {
    frame->id = static_cast<int>(frames_.size());
    frames_.push_back(frame);
    session::FrameEvent fe;
    fe.frameId = frame->id;
    fe.name = frame->name;
    fe.file = baseName(file_);
    fe.firstLine = fn->def ? fn->def->span.line : 0;
    fe.kind = "function";
    if (fn->def) {
      // The function's source text, for the frames panel.
      const std::string& src = in.source();
      int line = 1;
      size_t p = 0, start = std::string::npos, end = src.size();
      while (p < src.size()) {
        if (line == fn->def->span.line && start == std::string::npos) start = p;
        if (src[p] == '\n') { ++line; if (line > fn->def->span.endLine && start != std::string::npos) { end = p; break; } }
        ++p;
      }
      if (start != std::string::npos) fe.source = src.substr(start, end - start);
    }
    sink_.frame(fe);
  }
  std::string cid = std::to_string(frame->id) + "/" + std::to_string(frame->compiles++);
  if (!reasons.empty()) sink_.recompile(session::RecompileEvent{frame->id, cid, reasons});

  // Capture: evaluate the function with fake tensors standing for tensor arguments.
  auto t0 = std::chrono::steady_clock::now();
  Tracer tracer(baseName(file_));
  tracer.graph.name = frame->name;
  CacheEntry entry;
  entry.compileId = cid;
  CallArgs fakeArgs;
  for (size_t i = 0; i < args.size(); ++i) {
    Guard g;
    g.name = names[i];
    g.source = "L['" + names[i] + "']";
    g.argIndex = static_cast<int>(i);
    g.line = fn->def ? fn->def->span.line : 0;
    if (args[i]->kind == VK::Tensor && !static_cast<py::TensorObj*>(args[i].get())->fake) {
      const tensor::Tensor& t = static_cast<py::TensorObj*>(args[i].get())->t;
      fakeArgs.args.push_back(tracer.addInput(names[i], t, InputSource{g.source, static_cast<int>(i)}));
      g.kind = Guard::Kind::TensorMatch;
      g.type = t.type();
    } else {
      fakeArgs.args.push_back(args[i]);
      g.kind = Guard::Kind::ConstantMatch;
      g.constant = args[i];
    }
    entry.guards.push_back(std::move(g));
  }
  entry.inputs = tracer.inputs;
  Value result;
  in.tracer = &tracer;
  try {
    result = in.callFunction(*fn, fakeArgs, self);
    in.tracer = nullptr;
  } catch (Unsupported& u) {
    in.tracer = nullptr;
    // The skeleton cannot resume after a break yet: the frame runs eagerly from now on.
    session::GraphBreakEvent b;
    b.frameId = frame->id;
    b.compileId = cid;
    b.code = u.code;
    b.title = u.title;
    b.explanation = u.explanation + " Kiln cannot resume after a graph break yet, so the frame runs eagerly.";
    b.hints = u.hints;
    b.file = baseName(file_);
    b.line = u.where.span.line;
    b.col = u.where.span.col;
    for (const auto& f : u.stack) {
      ir::SourceLoc l;
      l.file = baseName(f.file);
      l.line = f.span.line;
      l.col = f.span.col;
      l.function = f.function;
      b.userStack.push_back(l);
    }
    sink_.graphBreak(b);
    session::CompileEvent ce;
    ce.compileId = cid;
    ce.frameId = frame->id;
    ce.compileIndex = frame->compiles - 1;
    ce.backend = frame->opts.backend;
    ce.status = "skipped";
    ce.message = u.title;
    sink_.compile(ce);
    sink_.compileDone(cid);
    if (frame->opts.fullgraph) in.raise("Unsupported", u.title + "\n  Explanation: " + u.explanation);
    frame->skip = true;
    return eager();
  } catch (...) {
    in.tracer = nullptr;
    throw;
  }
  std::vector<int> outputs;
  buildTemplate(in, result, entry.output, outputs);
  tracer.finish(outputs);
  double captureMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  sink_.timing(session::TimingEvent{cid, "capture", captureMs});

  // The transformed code: what the frame runs from now on for arguments passing the guards.
  std::string params;
  for (size_t i = 0; i < names.size(); ++i) params += (i ? ", " : "") + names[i];
  std::string fnName = "__compiled_fn_" + std::to_string(frame->id) + "_" + cid.substr(cid.find('/') + 1);
  std::string code = "def __transformed_code_" + cid.substr(cid.find('/') + 1) + "_for_" + frame->name + "(" +
                     (self ? std::string("self") + (params.empty() ? "" : ", ") : "") + params + "):\n";
  int ops = tracer.graph.opCount();
  if (ops > 0) {
    std::string inputsText;
    for (size_t i = 0; i < entry.inputs.size(); ++i) inputsText += (i ? ", " : "") + names[static_cast<size_t>(entry.inputs[i].argIndex)];
    code += "    graph_out_0 = " + fnName + "(" + inputsText + ")  # [" + cid + "] " + std::to_string(ops) + " ops\n";
  }
  code += "    return " + templateExpr(entry.output, in) + "\n";
  entry.transformedCode = code;

  session::CompileEvent ce;
  ce.compileId = cid;
  ce.frameId = frame->id;
  ce.compileIndex = frame->compiles - 1;
  ce.backend = frame->opts.backend;
  for (const auto& g : entry.guards) ce.guards.push_back(g.record(in));
  ce.transformedCode = code;
  if (ops > 0) {
    // Empty graphs are not compiled (Dynamo's allow_empty_graphs=False).
    driver::BackendOptions bo;
    bo.backend = frame->opts.backend;
    bo.passes = passOptions;
    try {
      entry.run = driver::compileGraph(tracer.graph, cid, bo, sink_, cpu_);
    } catch (const std::exception& e) {
      ce.status = "failed";
      ce.message = std::string("backend compile failed, running the captured graph eagerly: ") + e.what();
      ir::Graph g = tracer.graph;
      entry.run = [g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); };
    }
  }
  sink_.compile(ce);
  sink_.compileDone(cid);
  frame->cache.push_back(std::move(entry));
  return runEntry(in, frame->cache.back(), args);
}

}  // namespace kiln::capture
