// The process state besides grad mode that Dynamo's GLOBAL_STATE guard compares
// (___check_global_state): the default dtype and the autocast state of each device. A change
// fails the guard with the first differing field named as Dynamo names it.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ir/types.h"

#include <string>

namespace kiln::capture {

struct GlobalState {
  ir::DType defaultDType = ir::DType::Float32;
  bool autocastCpu = false, autocastCuda = false;
  ir::DType autocastCpuDType = ir::DType::BFloat16, autocastCudaDType = ir::DType::Float16;
};

GlobalState currentGlobalState();
// "" when `now` equals `was`, else the field that changed ("default_dtype",
// "autocast(cpu)_enabled", "autocast(cpu)_dtype", ...), in Dynamo's order of checks.
std::string globalStateChange(const GlobalState& was, const GlobalState& now);
// Puts the autocast state back as `s` had it (tracing leaves global state as it found it).
void restoreAutocast(const GlobalState& s);

// Records Dynamo's _enter_autocast(device, dtype, enabled, None) node; returns its id.
int recordEnterAutocast(ir::Graph& g, const std::string& device, ir::DType dtype, bool enabled);
void recordExitAutocast(ir::Graph& g, int enterNode);
// A graph cut at a break inside autocast blocks ends them there (_exit_autocast for each block
// still open, innermost first), as Dynamo's graph does; the resume function enters them again.
void closeAutocastRegions(ir::Graph& g);

}  // namespace kiln::capture
