// A frame in Dynamo's sense: one compiled function (or module forward) with its cache of
// compiled entries, looked up newest first.
#pragma once

#include "engine/capture/compile_context.h"
#include "engine/capture/guards.h"
#include "engine/capture/tracer.h"
#include "engine/ir/graph.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::capture {

// Runs a compiled graph on real tensors.
using GraphRunner = std::function<std::vector<tensor::Tensor>(const std::vector<tensor::Tensor>&)>;

// Where each part of the function's return value comes from: a graph output or a constant.
struct OutputTemplate {
  enum class Kind { GraphOutput, Constant, Tuple, List } kind = Kind::Constant;
  int index = -1;               // GraphOutput
  py::Value constant;           // Constant
  std::vector<OutputTemplate> items;
};

struct CacheEntry {
  std::string compileId;
  std::vector<Guard> guards;
  std::vector<InputSource> inputs;
  GraphRunner run;              // null when the graph was empty (nothing to run)
  OutputTemplate output;
  std::string transformedCode;  // Python source of what the entry runs
};

struct Frame {
  int id = 0;
  std::string name;
  py::Value fn;                 // the FunctionObj (forward for modules)
  CompileOptions opts;
  std::vector<CacheEntry> cache;
  int compiles = 0;
  bool skip = false;            // run eagerly from now on (unsupported construct, recompile limit)
  std::string skipReason;
};

}  // namespace kiln::capture
