// CompileContext: what torch.compile hands its callables to. It owns the frames (one per
// compiled function or module forward), their caches and compile ids, and drives a capture
// and the chosen backend on a cache miss. Every step is reported to the session sink.
#pragma once

#include "engine/capture/backend.h"
#include "engine/passes/pass_manager.h"
#include "engine/python/interpreter.h"
#include "engine/python/trace_hooks.h"
#include "engine/session/sink.h"
#include "engine/torch/capture_hooks.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>
#include "engine/ir/graph.h"

namespace kiln::codegen {
class KernelCompiler;
}

namespace kiln::capture {

struct StopAtCall;
struct ResumePlan;  // resume.h

// torch.compile's options, parsed by torch (engine/torch/capture_hooks.h).
using CompileOptions = torchapi::CompileOptions;

struct Frame;  // frame.h
struct CacheEntry;

class CompileContext : public torchapi::CompileHooks {
 public:
  CompileContext(session::SessionSink& sink, codegen::KernelCompiler* cpu, const std::string& scriptPath);
  ~CompileContext();

  // torch.compile(fn_or_module, ...) and module.compile(...).
  py::Value compile(py::Interpreter& in, const py::Value& target, const CompileOptions& opts) override;
  void compileModuleInPlace(py::Interpreter& in, const py::Value& module, const CompileOptions& opts) override;
  // Called by a compiled callable: cache lookup, capture on a miss, then run.
  // `intercepted`: a call Kiln's frame callback caught (not a torch.compile'd callable), which
  // inherits the run-only mode of the frame that made it.
  py::Value call(py::Interpreter& in, const std::shared_ptr<Frame>& frame, py::CallArgs& args, const py::Value& self,
                 bool intercepted = false);
  // A user function called while a compiled function runs (its eager parts, resume functions):
  // compiled as a frame of its own, keyed by its code (one frame per function definition).
  py::Value callIntercepted(py::Interpreter& in, const py::Value& fn, py::CallArgs& args, const py::Value& self) override;
  // Runs `frame` for the function object `fn` (same code as the frame's, maybe another closure).
  py::Value callWith(py::Interpreter& in, const std::shared_ptr<Frame>& frame, const py::Value& fn, py::CallArgs& args,
                     const py::Value& self, bool intercepted = false);

  // torch._dynamo.reset(): every frame, cache entry and resume function is forgotten; frame
  // ids start again at 0.
  void reset() override;
  // options=... of torch.compile with the inductor backend (inductor_options.h).
  void checkInductorOptions(py::Interpreter& in, const py::Value& options) override;
  // config.recompile_limit (or the old name cache_size_limit, when only that one was changed).
  static int recompileLimit(py::Interpreter& in);

  // Pass-manager options every inductor compile uses (--disable-pass, --stop-after).
  passes::PassManagerOptions passOptions;
  // The backend of a torch.compile call that names none (kiln run --backend NAME): a name in
  // BackendRegistry::global(), checked by the caller.
  std::string backendByDefault = "inductor";
  std::string defaultBackend() const override { return backendByDefault; }
  // The backend to use for `name` in this context instead of one the registry makes (kiln bench
  // hands an inductor that records every graph it compiles).
  void useBackend(const std::string& name, std::shared_ptr<Backend> backend);
  // When set, wraps the runner of every compiled graph (kiln run --verify checks each call
  // against the captured graph run eagerly, driver/verify.h).
  using RunnerWrapper = std::function<GraphRunner(GraphRunner run, std::shared_ptr<const ir::Graph> captured, const std::string& compileId,
                                                  const std::string& backend)>;
  RunnerWrapper wrapRunner;

 private:
  std::shared_ptr<Frame> newFrame(const py::Value& fn, const CompileOptions& opts);
  // This context's backend for `name`: made from the registry at its first use.
  Backend& backendFor(const std::string& name);
  std::map<std::string, std::shared_ptr<Backend>> backends_;
  session::SessionSink& sink_;
  codegen::KernelCompiler* cpu_;
  std::string file_;
  std::vector<std::shared_ptr<Frame>> frames_;
  std::map<const void*, std::shared_ptr<Frame>> byCode_;  // intercepted frames by function definition
  std::vector<CompileOptions> activeOpts_;                // options of the compiled calls running
  // Dynamo's run-only callback: set while a frame that hit the recompile limit runs (and the
  // frames it calls); the frames it reaches look up their caches but never compile. A
  // torch.compile'd callable called meanwhile installs its own callback again (clears it).
  bool runOnly_ = false;
  // Resume functions by break site (statement, expression): recompiles of a frame that break
  // at the same place reuse the same resume code, so they share its frame, as in Dynamo.
  // (The flag: the resume functions share the frame's cells with functions it defined.)
  std::map<std::tuple<const void*, const void*, bool>, std::pair<py::StmtP, py::StmtP>> resumeCache_;
  std::shared_ptr<Frame> frameFor(const py::Value& fn, const CompileOptions& opts);
  std::optional<CacheEntry> captureEntry(py::Interpreter& in, const std::shared_ptr<Frame>& frame, const py::Value& self,
                                         const std::string& selfName, const std::vector<py::Value>& args,
                                         const std::vector<std::string>& names, const std::string& cid, session::SessionSink& sink,
                                         bool firstCapture, const CacheEntry* dynamicOf = nullptr, const StopAtCall* stopAt = nullptr);
  void applyAutomaticDynamic(Frame& frame, CacheEntry& e, std::optional<ir::Graph>& shown);
  // captureEntry's steps (compile_context.cpp), over one capture's state.
  struct Capture;
  enum class Next { Go, Skip, Restart };  // go on; the frame runs eagerly; capture again (Capture::restartAt)
  void startTrace(Capture& c);
  Next bindArguments(Capture& c);
  Next traceFrame(Capture& c);
  Next planBreak(Capture& c, py::GraphBreak& u);
  session::GraphBreakEvent breakEvent(Capture& c, const py::GraphBreak& u);
  ResumePlan planResumeAt(Capture& c, const py::GraphBreak& u, std::set<std::string>& cells);
  void fillBreakPlan(Capture& c, const py::GraphBreak& u, const ResumePlan& plan, const std::set<std::string>& cells);
  std::string breakCode(Capture& c, const py::GraphBreak& u, const ResumePlan& plan);
  Next observedException(Capture& c, const py::PyError& e);
  void recordInputMutations(Capture& c);
  void recordSideEffects(Capture& c);
  Next checkReconstructible(Capture& c);
  void finishGraph(Capture& c);
  void noteFrameState(Capture& c);
  void keepCapturedGraph(Capture& c);
  bool tracedNothing(const Capture& c) const;
  void writeTransformedCode(Capture& c);
  void compileCaptured(Capture& c);
  void reportCompile(Capture& c);
  Next skip(Capture& c, const std::string& why, const session::GraphBreakEvent* b);
  void failCompile(Capture& c, const session::GraphBreakEvent& b);
  void failCompile(Capture& c, const py::PyError& e);
};

// The compile context of a run (the interpreter's CompilerHooks are always one).
inline CompileContext* compilerOf(py::Interpreter& in) { return static_cast<CompileContext*>(in.compiler); }

}  // namespace kiln::capture
