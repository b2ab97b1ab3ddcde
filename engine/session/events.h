// The events the engine emits while it runs a script. Every stage of the compiler reports
// through a SessionSink (sink.h); the store (storage/) writes them to SQLite and the studio
// only ever reads the store, so a live run and a reopened session look the same.
#pragma once

#include "engine/ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::session {

struct SessionStart {
  std::string scriptPath;
  std::string scriptText;
  std::string optionsJson;  // {"eager": false, "backend": "inductor", ...}
  std::string engineVersion;
  int64_t startedAtMs = 0;  // unix epoch ms
};

// A compiled function (or a resume function): Dynamo's frame. Its id is the first number of
// compile ids ("0/1" = frame 0, compile 1).
struct FrameEvent {
  int frameId = 0;
  std::string name;  // function name (forward, resume_forward_at_44)
  std::string file;
  int firstLine = 0;
  std::string kind = "function";  // function | resume
  std::string source;             // the function's source; for resume functions the generated source
};

struct Guard {
  std::string kind;    // TENSOR_MATCH, CONSTANT_MATCH, ID_MATCH, TYPE_MATCH, ...
  std::string source;  // L['x'], G['SCALE'], L['self'].training ...
  std::string text;    // printed like Dynamo's guard line
  int line = 0;        // user line that caused the guard (0 = none)
};

// One cache entry being compiled: compile id, backend, guards, the transformed code.
struct CompileEvent {
  std::string compileId;  // "0/0"
  int frameId = 0;
  int compileIndex = 0;
  std::string backend;  // inductor | aot_eager | eager
  std::vector<Guard> guards;
  std::string transformedCode;  // Python source of the frame's transformed code
  std::string status = "ok";    // ok | failed | skipped
  std::string message;          // why it failed or was skipped
  // Where a failed compile failed (fullgraph=True turns a graph break into an error): the
  // break's user line and Dynamo's explanation; empty / 0 otherwise.
  std::string file;
  int line = 0;
  int col = 0;
  std::string detail;
};

struct RuleHit {
  std::string rule;  // "exp(log(x)) -> x"
  int count = 0;
  std::vector<int> nodes;  // ids (in the pass's input graph) it fired on
};

// One firing of a rewrite rule (passes::applyRules), enough to show that single application:
// the affected subgraph before it (root, consumed interior nodes and their direct inputs, read
// from the pass's input graph) and its replacement after (read from the pass's output graph).
// Ids, not graphs: a 100k-node pass with thousands of firings stores a few ints per firing.
struct RuleApplication {
  std::string rule;           // the rule's name: "x * 1 -> x"
  std::string where;          // where it is defined: "engine/passes/simplify.cpp, rule 5 of 12"
  int root = -1;              // input graph: the node it fired on
  std::vector<int> consumed;  // input graph: the pattern's interior nodes (erased once unused)
  std::vector<int> added;     // output graph: the nodes the rewrite made
  int replacement = -1;       // output graph: the node the root's users use now
};

// A stage or pass snapshot of one compile. `stage` names: captured, aten, then one per pass
// ("pass:simplify" ...), fused; `order` is the position in the pipeline.
struct StageEvent {
  std::string compileId;
  std::string stage;
  int order = 0;
  std::string text;  // the stage's canonical IR text
  ir::Graph graph;   // structured nodes with provenance
  bool changed = true;
  std::vector<RuleHit> rules;
  std::vector<RuleApplication> applications = {};  // rule-table passes: each firing, in order
  double ms = 0.0;
};

// What the GPU runs for a CUDA kernel (engine/codegen/cuda/cuda_views.h): recorded for kernels
// that ran on a GPU, computed on demand for the others (kiln show --stage ptx, the studio).
struct KernelGpuInfo {
  std::string arch;    // "sm_90"; "" when there is nothing (a CPU kernel)
  std::string ptx;     // its PTX entry, `.loc` lines annotated "// cuda line N @node"
  std::string sass;    // nvdisasm's SASS, its `//## File` lines annotated the same; "" without nvdisasm
  std::string launch;  // "grid 16x1, block 256, thread"
  int registers = -1;  // -1: not known
  int64_t sharedBytes = -1, stackBytes = -1, spillStores = -1, spillLoads = -1;
  std::string notes;  // what is missing and why
};

struct KernelEvent {
  std::string compileId;
  std::string name;
  std::string kind;      // pointwise | reduction | extern
  std::string kernelIr;  // kernel IR text
  std::string source;    // generated source (CUDA C++), "" on CPU
  std::string llvmIr;
  std::string assembly;
  std::vector<int> nodeIds;      // ids of the fused-stage nodes it implements
  std::vector<int> sourceLines;  // user source lines of those nodes
  double compileMs = 0.0;
  KernelGpuInfo gpu;  // CUDA kernels only
};

// What the GPU runs for a compile's CUDA kernels, made after the compile reported them (their
// KernelEvents carry the launch and a note that PTX and SASS are pending; engine/driver/
// kernel_views.h makes these on a background thread): each kernel the compile reported under
// `name` now has this `source` (the CUDA lines its PTX and SASS point at) and `gpu`.
struct KernelViewsEvent {
  std::string compileId;
  struct Kernel {
    std::string name;
    std::string source;
    KernelGpuInfo gpu;
  };
  std::vector<Kernel> kernels;
};

// The compiled graph: ordered kernel launches, extern calls and buffer plan, as text.
struct WrapperEvent {
  std::string compileId;
  std::string text;
};

struct GraphBreakEvent {
  int frameId = 0;
  std::string compileId;
  std::string code;   // Kiln code: KB001 ...
  std::string title;  // Dynamo's gb_type ("Data-dependent branching")
  std::string explanation;
  std::vector<std::string> hints;
  std::string file;
  int line = 0;
  int col = 0;
  std::vector<ir::SourceLoc> userStack;
};

struct RecompileEvent {
  int frameId = 0;
  std::string compileId;             // the compile id being created
  std::vector<std::string> reasons;  // one line per failing cache entry ("0/0: n == 1")
  std::vector<int> lines;            // per reason: the user line of the guard that failed (0 = none)
};

struct TimingEvent {
  std::string compileId;  // "" for whole-session timings
  std::string phase;      // capture, lower, passes, schedule, codegen, run ...
  double ms = 0.0;
};

// mode="max-autotune": one matrix product of a compiled graph and every implementation that was
// timed for it (ops/gemm_algos.h) on inputs of its shapes and strides; the fastest is the one the
// graph runs. `cached`: the times are an earlier run's, read from the on-disk cache.
struct AutotuneEvent {
  std::string compileId;
  std::string node;     // the product's node in the fused graph: addmm_1, "mm_2 (backward)" ...
  std::string op;       // aten.addmm.default
  std::string problem;  // "[64, 1024] @ [1024, 1024] (column-major), float32"
  struct Candidate {
    std::string algo;     // openblas | few_rows | onednn
    double ms = -1.0;     // median time of one product; -1 when it did not run
    std::string note;     // why it did not run ("does not apply: ..."), or ""
    bool chosen = false;  // the implementation the graph runs
  };
  std::vector<Candidate> candidates;
  bool cached = false;
};

// What running a compiled graph costs (kiln run --profile, the studio's runs): on the inputs
// of its first call, the median of `repeat` runs after a warm-up, eager (the captured graph op
// by op) against compiled (the wrapper), and per generated kernel one launch's median time and
// the bytes of its buffers.
struct ProfileEvent {
  std::string compileId;
  double eagerMs = 0.0;
  double compiledMs = 0.0;
  int repeat = 0;
  struct Kernel {
    std::string name;
    double ms = 0.0;
    int64_t bytes = 0;
  };
  std::vector<Kernel> kernels;
};

// kiln run --verify: a compiled graph's outputs against the captured graph run eagerly on the
// same inputs. Reported once when a graph first agrees and once when it first differs.
struct VerifyEvent {
  std::string compileId;
  int call = 0;  // which call of the graph (1-based) this is about
  bool matched = true;
  int output = -1;     // the first output that differs
  std::string detail;  // "output 0 [2, 3] at [1, 0]: 2.5 compiled vs 1.5 eager (max abs diff 1)"
  // What introduced the difference, found by recompiling with passes disabled one by one and
  // then with fewer fusion decisions: "pass simplify", "fusion decision 3 of 7: ...", or
  // "kernel code generation (...)"; empty when matched.
  std::string culprit;
  std::vector<std::string> bisection;  // each trial: "without simplify: matches" ...
};

// A record the session keeps as it came, for what has no structured form in Kiln: what an
// importer read but did not turn into frames, stages or kernels (TORCH_TRACE's
// describe_tensor, symbolic-shape records, fw metadata, ...) and the problems it met (name
// "import problem": a garbled line, a graph that did not parse). Listed, searchable, never
// dropped.
struct ArtifactEvent {
  std::string compileId;  // "" when the record belongs to no compile
  std::string name;       // the record's name in its source (dynamo_cpp_guards_str, ...)
  std::string text;       // its body as it came (JSON or text)
  int line = 0;           // where it starts in the source file (0 = unknown)
};

// One torch.distributed collective the script issued (all_reduce, broadcast, barrier), as the
// rank that recorded it saw it. Reported once its time is known: when the script waited for it
// and it had completed, else when the process group was destroyed or the script ended (the host
// is never blocked to learn a duration; one still running then has durationMs < 0).
struct CollectiveEvent {
  int64_t seq = 0;       // issue order in this process's group, from 0 (every rank issues the same sequence)
  std::string op;        // all_reduce | broadcast | barrier
  std::string reduceOp;  // all_reduce: sum | product | min | max | avg; "" otherwise
  int root = -1;         // broadcast: the source rank; -1 otherwise
  std::string backend;   // gloo | nccl
  int64_t bytes = 0;     // the tensor's bytes (0 for barrier)
  std::string dtype;     // float32 ... ("" for barrier)
  std::vector<int64_t> shape;
  double issuedAtMs = 0.0;  // host clock, ms since the session started
  // The collective itself (gloo: on the communication thread, so a late peer's time is in it;
  // nccl: between CUDA events on the stream); < 0 unknown.
  double durationMs = -1.0;
  double waitedAtMs = -1.0;  // when the script's wait() returned, ms since the session started; < 0 never waited
  int rank = 0;
  int worldSize = 1;
  std::string label;  // who issued it, when the caller says: DDP's "bucket 0"; "" for plain calls
};

// The phases of one compile in pipeline order, as TimingEvent::phase names them (what kiln
// bench, kiln diff and the studio's timings list and chart, in this order).
inline const std::vector<std::string>& compilePhases() {
  static const std::vector<std::string> phases = {"capture", "lower", "passes", "schedule", "codegen"};
  return phases;
}

struct SessionEnd {
  std::string status;   // ok | error
  std::string error{};  // formatted error (traceback) when status == error
  double totalMs = 0.0;
  std::string outputsJson{};  // the out* variables, in the oracle's outs.json form
  std::string stopReason{};   // error only: "" | interrupted | timed out | out of memory
};

}  // namespace kiln::session
