#include "viewers/stage_reader.h"

#include <algorithm>
#include <set>

namespace kiln::viewers {

std::string captureReport(storage::Store& store, int64_t sessionId, const std::string& compileId,
                          const std::vector<storage::CompileRow>* given) {
  std::string out;
  auto has = [&](const std::vector<storage::CompileRow>& cs) {
    return std::any_of(cs.begin(), cs.end(), [&](const auto& c) { return c.compileId == compileId; });
  };
  const bool useGiven = given && has(*given);  // else not given, or given before this compile was
  std::vector<storage::CompileRow> read;
  if (!useGiven) read = store.compiles(sessionId);
  const auto& compiles = useGiven ? *given : read;
  const auto compile = std::find_if(compiles.begin(), compiles.end(), [&](const auto& c) { return c.compileId == compileId; });
  for (const auto& f : store.frames(sessionId))
    if (compile != compiles.end() && f.frameId == compile->frameId)
      out +=
          "Frame " + std::to_string(f.frameId) + ": " + f.name + " (" + f.file + ":" + std::to_string(f.firstLine) + ", " + f.kind + ")\n";
  for (const auto& r : store.recompiles(sessionId)) {
    if (r.compileId != compileId) continue;
    out += "\nRecompiled [" + r.compileId + "], triggered by the following guard failure(s):\n";
    for (const auto& reason : r.reasons) out += "    - " + reason + "\n";
  }
  for (const auto& b : store.graphBreaks(sessionId)) {
    if (b.compileId != compileId) continue;
    out += "\nGraph break [" + b.code + "] at " + b.file + ":" + std::to_string(b.line) + ": " + b.title +
           "\n  Explanation: " + b.explanation + "\n";
    for (const auto& h : b.hints) out += "  Hint: " + h + "\n";
    out += "  User stack:\n";
    for (const auto& s : b.userStack) out += "    File \"" + s.file + "\", line " + std::to_string(s.line) + ", in " + s.function + "\n";
  }
  if (compile != compiles.end()) {
    const auto& c = *compile;
    out += "\nGuards [" + c.compileId + "] (" + c.backend + ", " + c.status + (c.message.empty() ? "" : ": " + c.message) + "):\n";
    // Rows read with their guards counted, not parsed (the window's): this compile's are read here.
    const std::vector<session::Guard> read =
        c.guards.empty() && c.guardCount > 0 ? store.compileGuards(sessionId, compileId) : std::vector<session::Guard>{};
    for (const auto& g : read.empty() ? c.guards : read) out += "  " + g.kind + ": " + g.text + "\n";
    out += "\nTransformed code:\n" + c.transformedCode;
  }
  return out;
}

StepDiff stepDiff(const ir::Graph& before, const ir::Graph& after, bool kernelMembership) {
  StepDiff d{ir::diffGraphs(before, after, kernelMembership), {}};
  const std::set<std::string> gone(d.changes.removed.begin(), d.changes.removed.end());
  for (const auto& n : before.nodes)
    if (gone.count(n.name)) d.removed.push_back(n);
  return d;
}

StageGraphs::Graph StageGraphs::get(storage::Store& store, int64_t stageId) {
  std::promise<Graph> promise;
  std::shared_future<Graph> graph;
  bool mine = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, added] = graphs_.try_emplace(stageId);
    if (added) it->second = promise.get_future().share();
    graph = it->second;
    mine = added;
  }
  if (mine) {  // read outside the lock: the other reader goes on with stages of its own
    try {
      promise.set_value(std::make_shared<const ir::Graph>(store.stageGraph(stageId)));
    } catch (...) { promise.set_exception(std::current_exception()); }
  }
  return graph.get();
}

StageContent readStageContent(storage::Store& store, const StageRequest& r, StageGraphs* graphs) {
  StageContent c;
  const storage::StageRow& stage = r.stage;
  auto graphOf = [&](int64_t id) { return graphs ? *graphs->get(store, id) : store.stageGraph(id); };
  auto sharedGraphOf = [&](int64_t id) {
    return graphs ? graphs->get(store, id) : std::make_shared<const ir::Graph>(store.stageGraph(id));
  };
  c.graph = graphOf(stage.id);
  c.text = store.stageText(stage.id);
  // A pass that changed nothing is stored as the stage it repeats (sameAs): read that graph once.
  auto same = [](const storage::StageRow& a, const storage::StageRow& b) {
    return (a.sameAs ? a.sameAs : a.id) == (b.sameAs ? b.sameAs : b.id);
  };
  if (r.previous) c.previous = same(*r.previous, stage) ? c.graph : graphOf(r.previous->id);
  if (r.withStepDiff && c.previous) c.step = stepDiff(*c.previous, c.graph, r.kernelMembership);
  c.applications = store.ruleApplications(stage.id);
  if (r.diffBase > 0)
    for (const auto& other : store.stages(r.diffBase, stage.compileId))
      if (other.stage == stage.stage) c.base = store.stageGraph(other.id);
  if (!r.withCompile) return c;
  c.withCompile = true;
  c.kernels = std::make_shared<const std::vector<storage::KernelRow>>(store.kernels(r.sessionId, stage.compileId));
  c.wrapper = store.wrapperText(r.sessionId, stage.compileId);
  if (r.withCapture) c.capture = captureReport(store, r.sessionId, stage.compileId, r.compiles.get());
  for (const auto& p : store.profiles(r.sessionId)) {
    if (p.compileId != stage.compileId) continue;
    c.profiled = true;
    for (const auto& k : p.kernels) {
      c.runMs[k.name] = k.ms;
      c.runBytes[k.name] = k.bytes;
    }
  }
  // Kernel IR names fused-graph nodes (@N): their source lines, from the fused stage.
  StageGraphs::Graph fusedRead;
  const ir::Graph* fused = stage.stage == "fused" ? &c.graph : nullptr;
  if (!fused)
    for (const auto& st : store.stages(r.sessionId, stage.compileId))
      if (st.stage == "fused") {
        fusedRead = sharedGraphOf(st.id);
        fused = fusedRead.get();
      }
  if (fused)
    for (const auto& n : fused->nodes)
      if (n.prov.loc.line > 0) c.nodeLines[n.id] = n.prov.loc.line;
  // The backward's kernels (bw_*) name nodes of the backward:fused stage: keyed -1 - id.
  for (const auto& st : store.stages(r.sessionId, stage.compileId))
    if (st.stage == "backward:fused")
      for (const auto& n : (stage.stage == st.stage ? c.graph : store.stageGraph(st.id)).nodes)
        if (n.prov.loc.line > 0) c.nodeLines[-1 - n.id] = n.prov.loc.line;
  return c;
}

}  // namespace kiln::viewers
