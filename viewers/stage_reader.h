// What the studio shows for one stage, read from the store in one go so it can be read off the
// UI thread (with a connection of its own): the stage's graph and IR text, the stage before it
// and the same stage of a diff's base session (for the step report and the graph diff), and,
// when the compile changes, the compile's kernels, wrapper and capture report.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ir/graph_diff.h"
#include "storage/store.h"

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kiln::viewers {

// Stage graphs read once for two readers on two pool threads: the stage's own read (its graph,
// the stage before it, the fused stage's node lines) and its compile's layout frame (every
// stage) read the same graphs, ~0.2 s of a core each for a 17,000-node stage. The first to ask
// for a stage reads it, with its own connection; another asking meanwhile waits for that read.
class StageGraphs {
 public:
  using Graph = std::shared_ptr<const ir::Graph>;
  Graph get(storage::Store& store, int64_t stageId);  // throws what the read threw

 private:
  std::mutex mutex_;
  std::map<int64_t, std::shared_future<Graph>> graphs_;
};

// What a step changed: ir::diffGraphs, and the nodes of `before` it removed (drawn as ghosts).
struct StepDiff {
  ir::GraphChanges changes;
  std::vector<ir::Node> removed;
};
StepDiff stepDiff(const ir::Graph& before, const ir::Graph& after, bool kernelMembership);

struct StageRequest {
  int64_t sessionId = 0;
  storage::StageRow stage;
  std::optional<storage::StageRow> previous;  // the stage before it in the same compile
  int64_t diffBase = 0;                       // a session to compare the same stage with, or 0
  bool withCompile = false;                   // also read the compile's kernels and texts
  // The step report's diff against `previous`, made with the read, off the UI thread (140-290 ms
  // for a 17,000-node stage); `kernelMembership` as ir::diffGraphs takes it.
  bool withStepDiff = false;
  bool withCapture = true;  // the Capture tab's text (the window makes it when the tab is shown)
  bool kernelMembership = true;
  // The session's compiles when read already (for the Capture tab's guards; else read here).
  std::shared_ptr<const std::vector<storage::CompileRow>> compiles;
};

struct StageContent {
  ir::Graph graph;
  std::string text;
  std::optional<ir::Graph> previous;
  std::optional<ir::Graph> base;                       // the diff base session's same stage, when it has one
  std::vector<session::RuleApplication> applications;  // a rule-table pass's, in order (schema 11)
  std::optional<StepDiff> step;                        // asked for (withStepDiff) and a previous stage read
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

// Throws what the store throws (a damaged or missing stage). `graphs`: where to get stage graphs
// another reader may read too (none: read here).
StageContent readStageContent(storage::Store& store, const StageRequest& request, StageGraphs* graphs = nullptr);

// The Capture tab: the compile's frame, recompile reasons, graph breaks, guards and transformed code.
// `compiles`: the session's, when read already.
std::string captureReport(storage::Store& store, int64_t sessionId, const std::string& compileId,
                          const std::vector<storage::CompileRow>* compiles = nullptr);

}  // namespace kiln::viewers
