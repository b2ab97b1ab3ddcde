// What the studio shows for one stage, read from the store in one go so it can be read off the
// UI thread (with a connection of its own): the stage's graph and IR text, the stage before it
// and the same stage of a diff's base session (for the step report and the graph diff), and,
// when the compile changes, the compile's kernels, wrapper and capture report.
#pragma once

#include "engine/ir/graph.h"
#include "storage/store.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::viewers {

struct StageRequest {
  int64_t sessionId = 0;
  storage::StageRow stage;
  std::optional<storage::StageRow> previous;  // the stage before it in the same compile
  int64_t diffBase = 0;                       // a session to compare the same stage with, or 0
  bool withCompile = false;                   // also read the compile's kernels and texts
};

struct StageContent {
  ir::Graph graph;
  std::string text;
  std::optional<ir::Graph> previous;
  std::optional<ir::Graph> base;                       // the diff base session's same stage, when it has one
  std::vector<session::RuleApplication> applications;  // a rule-table pass's, in order (schema 11)
  bool withCompile = false;                            // the fields below were read (the compile changed)
  // Shared, not copied, by the text pane and its GPU tabs (the 200-layer model's are ~26 MB of text).
  std::shared_ptr<const std::vector<storage::KernelRow>> kernels;
  std::map<int, int> nodeLines;             // fused-graph node id -> source line (kernel IR @N);
                                            // -1 - id for the backward's (kernels bw_*)
  std::map<std::string, double> runMs;      // kernel -> ms per launch, from the run profile
  std::map<std::string, int64_t> runBytes;  // kernel -> bytes of its buffers, from the run profile
  bool profiled = false;                    // the session has a run profile for the compile
  std::string wrapper, capture;
};

// Throws what the store throws (a damaged or missing stage).
StageContent readStageContent(storage::Store& store, const StageRequest& request);

// The Capture tab: the compile's frame, recompile reasons, graph breaks, guards and transformed code.
std::string captureReport(storage::Store& store, int64_t sessionId, const std::string& compileId);

}  // namespace kiln::viewers
