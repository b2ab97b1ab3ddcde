// CompileContext: what torch.compile hands its callables to. It owns the frames (one per
// compiled function or module forward), their caches and compile ids, and drives a capture
// and the chosen backend on a cache miss. Every step is reported to the session sink.
#pragma once

#include "engine/passes/pass_manager.h"
#include "engine/python/interpreter.h"
#include "engine/session/sink.h"

#include <map>
#include <memory>
#include <optional>
#include "engine/ir/graph.h"
#include <string>
#include <tuple>
#include <vector>

namespace kiln::codegen { class KernelCompiler; }

namespace kiln::driver {
struct CompiledFrameLog;
struct VerifyStats;
}

namespace kiln::capture {

struct StopAtCall;

struct CompileOptions {
  std::string backend = "inductor";  // inductor | aot_eager | eager
  bool fullgraph = false;
  std::optional<bool> dynamic;       // None = automatic dynamic
  std::string mode = "default";
};

struct Frame;  // frame.h
struct CacheEntry;

class CompileContext {
 public:
  CompileContext(session::SessionSink& sink, codegen::KernelCompiler* cpu, const std::string& scriptPath);
  ~CompileContext();

  // torch.compile(fn_or_module, ...) and module.compile(...).
  py::Value compile(py::Interpreter& in, const py::Value& target, const CompileOptions& opts);
  void compileModuleInPlace(py::Interpreter& in, const py::Value& module, const CompileOptions& opts);
  // Called by a compiled callable: cache lookup, capture on a miss, then run.
  // `intercepted`: a call Kiln's frame callback caught (not a torch.compile'd callable), which
  // inherits the run-only mode of the frame that made it.
  py::Value call(py::Interpreter& in, const std::shared_ptr<Frame>& frame, py::CallArgs& args, const py::Value& self,
                 bool intercepted = false);
  // A user function called while a compiled function runs (its eager parts, resume functions):
  // compiled as a frame of its own, keyed by its code (one frame per function definition).
  py::Value callIntercepted(py::Interpreter& in, const py::Value& fn, py::CallArgs& args, const py::Value& self);
  // Runs `frame` for the function object `fn` (same code as the frame's, maybe another closure).
  py::Value callWith(py::Interpreter& in, const std::shared_ptr<Frame>& frame, const py::Value& fn, py::CallArgs& args,
                     const py::Value& self, bool intercepted = false);

  // torch._dynamo.reset(): every frame, cache entry and resume function is forgotten; frame
  // ids start again at 0.
  void reset();
  // torch._dynamo.config.<name> (the current value; null when absent).
  static py::Value configValue(py::Interpreter& in, const std::string& name);
  // config.recompile_limit (or the old name cache_size_limit, when only that one was changed).
  static int recompileLimit(py::Interpreter& in);

  // Pass-manager options every inductor compile uses (--disable-pass, --stop-after).
  passes::PassManagerOptions passOptions;
  driver::CompiledFrameLog* frameLog = nullptr;  // kiln bench: record every compiled graph
  // kiln run --verify: when set, every compiled graph is checked against eager (driver/verify.h).
  std::shared_ptr<driver::VerifyStats> verifyStats;

 private:
  std::shared_ptr<Frame> newFrame(const py::Value& fn, const CompileOptions& opts);
  session::SessionSink& sink_;
  codegen::KernelCompiler* cpu_;
  std::string file_;
  std::vector<std::shared_ptr<Frame>> frames_;
  std::map<const void*, std::shared_ptr<Frame>> byCode_;  // intercepted frames by function definition
  std::vector<CompileOptions> activeOpts_;                 // options of the compiled calls running
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
                                         const std::vector<std::string>& names, const std::string& cid,
                                         session::SessionSink& sink, bool firstCapture, const CacheEntry* dynamicOf = nullptr,
                                         const StopAtCall* stopAt = nullptr);
  void applyAutomaticDynamic(Frame& frame, CacheEntry& e, ir::Graph& shown);
};

// Parses torch.compile's keyword arguments (backend=, fullgraph=, dynamic=, mode=, options=).
CompileOptions parseCompileOptions(py::Interpreter& in, const py::CallArgs& args);

}  // namespace kiln::capture
