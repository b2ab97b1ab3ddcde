#include "storage/session_replay.h"

#include <algorithm>
#include <limits>
#include <map>

namespace kiln::storage {

void replaySession(Store& store, int64_t id, session::SessionSink& sink) {
  auto detail = store.session(id);
  if (!detail) throw StoreError("no session " + std::to_string(id) + " in " + store.path());
  session::SessionStart start;
  start.scriptPath = detail->summary.scriptPath;
  start.scriptText = detail->scriptText;
  start.optionsJson = detail->optionsJson;
  start.engineVersion = detail->engineVersion;
  start.startedAtMs = detail->summary.startedAtMs;
  sink.sessionStart(start);
  for (const auto& f : store.frames(id)) {
    session::FrameEvent e;
    e.frameId = f.frameId;
    e.name = f.name;
    e.file = f.file;
    e.firstLine = f.firstLine;
    e.kind = f.kind;
    e.source = f.source;
    sink.frame(e);
  }
  // Compiles in recording order: by their first stage's id (stage ids grow as they are stored);
  // a compile without stages keeps its place in the store's order after those.
  auto compiles = store.compiles(id);
  std::map<std::string, std::vector<StageRow>> stages;
  std::map<std::string, int64_t> firstStage;
  for (const auto& c : compiles) {
    stages[c.compileId] = store.stages(id, c.compileId);
    int64_t first = std::numeric_limits<int64_t>::max();
    for (const auto& s : stages[c.compileId]) first = std::min(first, s.id);
    firstStage[c.compileId] = first;
  }
  std::stable_sort(compiles.begin(), compiles.end(),
                   [&](const CompileRow& a, const CompileRow& b) { return firstStage[a.compileId] < firstStage[b.compileId]; });
  const auto recompiles = store.recompiles(id);
  for (const auto& c : compiles) {
    for (const auto& r : recompiles)
      if (r.compileId == c.compileId) sink.recompile(r);
    session::CompileEvent e;
    e.compileId = c.compileId;
    e.frameId = c.frameId;
    e.compileIndex = c.compileIndex;
    e.backend = c.backend;
    e.guards = c.guards;
    e.transformedCode = c.transformedCode;
    e.status = c.status;
    e.message = c.message;
    e.file = c.file;
    e.line = c.line;
    e.col = c.col;
    e.detail = c.detail;
    sink.compile(e);
    auto& ordered = stages[c.compileId];
    std::stable_sort(ordered.begin(), ordered.end(), [](const StageRow& a, const StageRow& b) { return a.order < b.order; });
    for (const auto& s : ordered) {
      session::StageEvent st;
      st.compileId = c.compileId;
      st.stage = s.stage;
      st.order = s.order;
      st.text = store.stageText(s.id);
      st.graph = store.stageGraph(s.id);
      st.changed = s.changed;
      st.rules = s.rules;
      st.applications = store.ruleApplications(s.id);
      st.ms = s.ms;
      sink.stage(st);
    }
    for (const auto& k : store.kernels(id, c.compileId)) {
      session::KernelEvent ke;
      ke.compileId = k.compileId;
      ke.name = k.name;
      ke.kind = k.kind;
      ke.kernelIr = k.kernelIr;
      ke.source = k.source;
      ke.llvmIr = k.llvmIr;
      ke.assembly = k.assembly;
      ke.nodeIds = k.nodeIds;
      ke.sourceLines = k.sourceLines;
      ke.compileMs = k.compileMs;
      ke.gpu = k.gpu;
      sink.kernel(ke);
    }
    if (std::string w = store.wrapperText(id, c.compileId); !w.empty()) sink.wrapper({c.compileId, w});
    sink.compileDone(c.compileId);
  }
  for (const auto& b : store.graphBreaks(id)) sink.graphBreak(b);
  for (const auto& t : store.timings(id)) sink.timing(t);
  for (const auto& c : store.collectives(id)) sink.collective(c);
  session::SessionEnd end;
  end.status = detail->summary.status == "error" ? "error" : "ok";
  end.error = detail->error;
  end.totalMs = detail->summary.totalMs;
  end.outputsJson = detail->outputsJson;
  sink.sessionEnd(end);
}

}  // namespace kiln::storage
