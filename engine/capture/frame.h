// A frame in Dynamo's sense: one compiled function (or module forward, or resume function)
// with its cache of compiled entries, looked up most recently used first.
#pragma once

#include "engine/capture/backend.h"
#include "engine/capture/compile_context.h"
#include "engine/capture/global_state.h"
#include "engine/capture/guards.h"
#include "engine/capture/source.h"
#include "engine/ir/graph.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::capture {

// How the compiled code rebuilds a Python value: from a graph output, a constant, a source
// (an argument, a parameter, a global), or a container/method of those.
struct ValueTemplate {
  // Object: an instance of a user class the function created (a dataclass it returns), made
  // again after the graph with its attributes (`keys` names, `items` values); `constant` is
  // the traced instance, for its class.
  // Closure: a function the trace defined (`def g(): return scaled + 1`), made again each call
  // with its default values (`items`, one per parameter) and its closure scope (`index` in the
  // entry's `scopes`; -1 keeps the traced function's closure); `constant` is the traced function.
  // Tuple, List, Dict, Object and Closure values are made once per call (keyed by `constant`, the
  // traced object): a list handed both to the call at a break and to the resume function is
  // one list, as in the program.
  enum class Kind { GraphOutput, Constant, FromSource, Tuple, List, Dict, Method, Object, Closure } kind = Kind::Constant;
  int index = -1;                    // GraphOutput; Closure: its scope
  py::Value constant;                // Constant; Tuple/List/Dict/Object/Closure: the traced object
  Source source;                     // FromSource
  std::vector<ValueTemplate> items;  // Tuple/List/Dict values; Method: items[0] is the receiver
  std::vector<py::Value> keys;       // Dict keys (constants); GraphOutput: attribute names set on it (values in items)
  std::string method;                // Method: attribute name
};

// A function scope the trace made (the compiled frame's own variables, or a callee's) that a
// function the trace defined closes over: made again each call with the variables such
// functions read (`names`, `values`). Its parent is another such scope, the compiled function's
// closure when it runs, or a scope that existed before capture.
struct ScopeTemplate {
  int parent = -1;                        // index in the entry's scopes, or -1:
  bool parentIsClosure = false;           //   the running function's closure
  std::shared_ptr<py::Scope> realParent;  //   else this scope (null: module level)
  std::vector<std::string> names;
  std::vector<ValueTemplate> values;
};

// A list, dict or set that existed before the call, as the function left it: the entry gives it
// these contents after its graph (items that were already in it are read from where they were).
struct ContainerWrite {
  Source source;
  py::VK kind = py::VK::List;               // List, Dict, or Instance (a set)
  std::vector<ValueTemplate> items;         // list items, set members
  std::vector<ValueTemplate> keys, values;  // dict items
};

// A global or closure cell the function stored (`global n; n += 1`, nonlocal).
struct VarWrite {
  bool global = true;
  std::string name;
  std::weak_ptr<py::Scope> scope;  // the cell's scope at capture (used when the function's own closure lacks it)
  int depth = -1;                  // its place in the function's closure chain (0: the closure itself), -1: not in it
  bool deleted = false;
  ValueTemplate value;
};

// What an entry does after its graph when the capture hit a graph break.
struct BreakPlan {
  enum class Kind { None, Call, Branch } kind = Kind::None;
  ValueTemplate callee;  // Call: the unsupported call, run eagerly
  std::vector<ValueTemplate> args;
  std::vector<std::pair<std::string, ValueTemplate>> kwargs;
  std::vector<ValueTemplate> stack;  // Call: values already evaluated in the statement
  bool resultUsed = true;
  bool gradEnabled = true;          // Call: the grad mode the call runs under (a `with no_grad()` around it)
  bool inferenceMode = false;       // Call: and whether it runs in inference mode
  GlobalState globalState;          // Call: and the autocast state it runs under
  ValueTemplate test;               // Branch: the tensor branched on
  std::vector<ValueTemplate> live;  // live locals passed on
  // Branch: which of `live` each resume function takes (empty: all). Each branch's function
  // takes the locals live at its own target, as Dynamo's resume functions do.
  std::vector<bool> liveTrue, liveElse;
  py::Value resume, resumeElse;        // the resume functions (FunctionObj)
  int cellScope = -1;                  // the frame's shared cells (scopes index): the resume
                                       // functions are made each call with it as their closure
  py::StmtP resumeDef, resumeElseDef;  // their ASTs (owned here)
};

struct CacheEntry {
  std::string compileId;
  // The backend of the torch.compile'd callable that compiled it (name, mode, dynamic): a call
  // through a callable compiled otherwise fails Dynamo's BACKEND_MATCH and recompiles.
  std::string backendKey;
  std::vector<Guard> guards;
  // The order the guards are checked in: Dynamo's guard tree order, then the guards that failed
  // most first (empty: as listed).
  std::vector<size_t> checkOrder;
  std::vector<Source> inputs;  // graph inputs, in placeholder order
  GraphRunner run;             // null when the graph was empty (nothing to run)
  ValueTemplate output;        // the return value (no break)
  BreakPlan plan;
  // Attribute stores to replay after the graph runs: (object, attribute, value).
  std::vector<std::tuple<ValueTemplate, std::string, ValueTemplate>> sideEffects;
  std::vector<std::pair<Source, int>> mutations;            // inputs mutated in place: source, graph output
  std::vector<ContainerWrite> containerWrites;              // Python side effects on existing containers
  std::vector<VarWrite> varWrites;                          // and on globals / closure cells
  std::vector<std::pair<Source, size_t>> iteratorAdvances;  // tuple iterators the frame advanced: how far
  std::vector<ScopeTemplate> scopes;                        // closure scopes of the functions it makes again
  std::shared_ptr<ir::Graph> captured;                      // the captured graph (run eagerly when autograd must see it)
  bool gradMode = true;                                     // global grad mode at capture (Dynamo's GLOBAL_STATE guard)
  GlobalState globalState;                                  // default dtype, autocast: the rest of GLOBAL_STATE
  // The graph updates a tensor in place. Compiled code assumes its inputs do not overlap in
  // memory; a call whose inputs share storage then runs the captured graph eagerly, where the
  // aliasing behaves as in the program (AOTAutograd handles such inputs with a synthetic base).
  bool mutates = false;
  // (A grad mode the function set with torch.set_grad_enabled(False) does not outlive the
  // call: Dynamo restores global state after a compiled frame, and Kiln does as Dynamo does.)
  std::string transformedCode;  // Python source of what the entry runs
  bool dynamic = false;         // some input dims are symbolic (automatic dynamic shapes)
  // Some floats are dynamic (tracer_floats.cpp): each value is traced again, and its graph runs
  // eagerly unless the entry's kernels over size symbols serve it (code generated per float value
  // would cost a compile per call where a learning rate changes every step).
  bool floatDynamic = false;
  // Dynamic: the kernels over size symbols and their module (null when the graph's kernels had
  // to be specialized), and per concrete input shapes the entry serving it (the same module at
  // those sizes, or code compiled for that shape when the kernels differ there).
  std::shared_ptr<ReusableCode> dynamicCode;  // (Backend::reuse)
  std::shared_ptr<BackwardCode> backward;     // the compiled backward of a training graph
  // Under DistributedDataParallel: the graph split at bucket boundaries, each piece compiled and
  // run as its own autograd node (ddp_split.h); null when not split.
  std::shared_ptr<const struct DdpSplit> ddpSplit;
  std::map<std::string, std::shared_ptr<CacheEntry>> specialized;
};

struct Frame {
  int id = -1;  // numbered at first compile, as Dynamo numbers frames
  std::string name;
  py::Value fn;  // the FunctionObj (forward for modules)
  CompileOptions opts;
  // Held by pointer: an entry keeps running while the code it calls recompiles this frame.
  // Most recently used last: a new entry is appended, an entry that holds moves to the end.
  std::vector<std::shared_ptr<CacheEntry>> cache;
  int compiles = 0;
  bool skip = false;  // run eagerly from now on (a break it cannot resume after)
  // The recompile limit was hit (Dynamo's RUN_ONLY strategy on the code): cached entries still
  // serve the calls their guards pass, nothing new is compiled, and the frames it calls only use
  // the entries they already have (its recursive action is RUN_ONLY too).
  bool runOnly = false;
  // torch.compile was given this function (Dynamo's always_optimize_code_objects): it is compiled
  // whatever its arguments; other frames only when they hold a tensor (has_tensor_in_frame).
  bool alwaysOptimize = false;
  std::string skipReason;
  std::string kind = "function";                          // function | resume
  std::map<std::string, std::vector<int64_t>> seenSizes;  // per input source: sizes last compiled for
  std::map<std::string, std::set<size_t>> dynamicDims;    // per input source: dims made dynamic
  std::map<std::string, int64_t> seenInts;                // per int source: the value last compiled for
  std::set<std::string> dynamicInts;                      // int sources whose value changed: traced as symbols
  std::map<std::string, double> seenFloats;               // per float source: the value last compiled for
  std::set<std::string> dynamicFloats;                    // float sources that changed: dynamic (tracer_floats.cpp)
};

}  // namespace kiln::capture
