// What torch's functions ask of torch.compile, declared here so that torch does not include
// engine/capture (the frontend's order is python < torch < capture, engine/layers.txt):
//  - TracerHooks: the capture in progress as torch functions use it (record a call on fake
//    tensors, the fake stand-in of a real tensor, symbolic sizes, grad-mode and autocast nodes).
//    capture::Tracer implements it, and the interpreter's TraceHooks are always a Tracer while
//    capturing (capture installs them in `Interpreter::tracer`);
//  - CompileHooks: torch.compile, module.compile() and torch._dynamo.reset() as the compile
//    context does them (capture::CompileContext, installed in `Interpreter::compiler`);
//  - torch.compile's options, parsed here since they are checked with or without a compile
//    context (with --eager too), and the backend names they are checked against.
#pragma once

#include "engine/ir/graph.h"
#include "engine/python/interpreter.h"
#include "engine/python/trace_hooks.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::torchapi {

class TracerHooks : public py::TraceHooks {
 public:
  // The graph being captured (node ids, a node's flags; autograd_function.cpp marks getitems).
  virtual ir::Graph& capturedGraph() = 0;
  // Records a call on fake tensors; returns the fake result.
  virtual py::Value record(const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                           const std::vector<std::pair<std::string, py::Value>>& kwargs, const ir::TensorType& result) = 0;
  // A call with several tensor results: the call node, then a getitem per result (their fakes).
  virtual std::vector<py::Value> recordMulti(const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                                             const std::vector<std::pair<std::string, py::Value>>& kwargs,
                                             const std::vector<ir::TensorType>& results) = 0;
  // Drops the nodes made since the graph's next id was `n` (a speculated backward is dropped again).
  virtual void truncate(size_t n) = 0;
  // The fake tensor standing for `v` in the graph (null for non-tensors), the node a fake
  // tensor stands for (-1 if not fake), whether a node is a graph input.
  virtual py::Value fakeOf(const py::Value& v) = 0;
  virtual int nodeOf(const py::Value& v) = 0;
  virtual bool isInput(int node) const = 0;
  // Whether the function reaches `v` through a source (its arguments, globals, closures).
  virtual bool hasSource(const py::Value& v) = 0;
  // Side effects on objects that existed before capture recorded so far (attribute stores,
  // container mutations, globals and cells): a change in the count is a new one.
  virtual size_t sideEffectCount() const = 0;
  // x.data = v on a traced tensor.
  virtual void onSetData(const py::Value& x, const py::Value& v) = 0;
  // Grad mode changed while tracing (`torch._C._set_grad_enabled` nodes).
  virtual void onGradMode(bool enabled) = 0;
  // An autocast block entered while tracing (Dynamo's `_enter_autocast` node; its id) and left.
  virtual int onEnterAutocast(const std::string& device, ir::DType dtype, bool enabled) = 0;
  virtual void onExitAutocast(int enterNode) = 0;
  // x.shape / x.size() and x.numel() of a traced tensor (the concrete value given): the value
  // carrying its expression when the dims are symbolic.
  virtual py::Value symbolicSizes(const py::Value& tensor, py::Value sizes) = 0;
  virtual py::Value symbolicNumel(const py::Value& tensor, py::Value numel) = 0;
  // x[...] on a traced tensor: slice bounds against symbolic sizes are guarded.
  virtual void onTensorIndex(const py::Value& tensor, const py::Value& index) = 0;
  // What Tensor.item() gives under fullgraph: an unbacked SymFloat or SymInt of this capture
  // (engine/torch/unbacked.h).
  virtual py::Value makeUnbacked(bool isFloat) = 0;
};

// The tracer capturing now (null outside capture).
inline TracerHooks* tracerOf(py::Interpreter& in) { return static_cast<TracerHooks*>(in.tracer); }

struct CompileOptions {
  std::string backend = "inductor";  // a registered backend's name (backendExists)
  bool fullgraph = false;
  std::optional<bool> dynamic;  // None = automatic dynamic
  std::string mode = "default";
};

class CompileHooks : public py::CompilerHooks {
 public:
  // torch.compile(fn_or_module, ...) and module.compile(...).
  virtual py::Value compile(py::Interpreter& in, const py::Value& target, const CompileOptions& opts) = 0;
  virtual void compileModuleInPlace(py::Interpreter& in, const py::Value& module, const CompileOptions& opts) = 0;
  // torch._dynamo.reset(): every frame and cache entry is forgotten.
  virtual void reset() = 0;
  // Inductor's options=... checked when torch.compile is called.
  virtual void checkInductorOptions(py::Interpreter& in, const py::Value& options) = 0;
  // The backend of a torch.compile call that names none (kiln run --backend NAME).
  virtual std::string defaultBackend() const { return "inductor"; }
};

// The compile context of a run (null with --eager).
inline CompileHooks* compilerOf(py::Interpreter& in) { return static_cast<CompileHooks*>(in.compiler); }

// Parses torch.compile's keyword arguments (backend=, fullgraph=, dynamic=, mode=, options=),
// raising as torch.compile does for an unknown backend or mode.
CompileOptions parseCompileOptions(py::Interpreter& in, const py::CallArgs& args);

// Whether torch.compile knows a backend by this name. The backends are capture's registry
// (capture::BackendRegistry::global()), which sets the lookup when it is made; until then there
// is no registry and so no backend.
bool backendExists(const std::string& name);
void setBackendLookup(std::function<bool(const std::string&)> lookup);

// torch._dynamo.config.<name> (the current value; null when absent).
py::Value dynamoConfig(py::Interpreter& in, const std::string& name);

// The FX name of a captured target: torch.cos -> cos, _operator.mul -> mul.
std::string fxBaseName(const std::string& target);

}  // namespace kiln::torchapi
