// The read side of the store: every query the studio and the CLI make.
#include "storage/graph_json.h"
#include "storage/process_liveness.h"
#include "storage/store.h"
#include "storage/store_impl.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <unordered_map>

namespace kiln::storage {

namespace {

constexpr const char* kSummaryColumns =
    // An error run that was stopped reports why as its status (timed out, interrupted ...).
    "s.id, s.name, s.script_path, CASE WHEN s.status = 'error' AND s.stop_reason != '' THEN s.stop_reason ELSE s.status END, s.pid, s.started_at_ms, s.total_ms,"
    " (SELECT count(*) FROM frames f WHERE f.session_id = s.id),"
    " (SELECT count(*) FROM compiles c WHERE c.session_id = s.id AND c.status = 'ok'),"
    " (SELECT count(*) FROM graph_breaks b WHERE b.session_id = s.id),"
    " (SELECT count(*) FROM recompiles r WHERE r.session_id = s.id),"
    " (SELECT count(*) FROM compiles c WHERE c.session_id = s.id AND c.status = 'failed')";
constexpr int kSummaryColumnCount = 12;  // what readSummary() reads

SessionSummary readSummary(const Stmt& s) {
  SessionSummary r;
  r.id = s.int64(0);
  r.name = s.text(1);
  r.scriptPath = s.text(2);
  r.status = effectiveStatus(s.text(3), s.int64(4));
  r.startedAtMs = s.int64(5);
  r.totalMs = s.real(6);
  r.frameCount = s.integer(7);
  r.graphCount = s.integer(8);
  r.breakCount = s.integer(9);
  r.recompileCount = s.integer(10);
  r.failedCount = s.integer(11);
  return r;
}

// FTS5 query syntax treats '.', '(' and friends as operators; quoting each word makes any
// user text a plain all-words query ("aten.exp" becomes the phrase "aten exp").
std::string ftsQuery(const std::string& text) {
  std::istringstream in(text);
  std::string word, q;
  while (in >> word) {
    std::string quoted = "\"";
    for (char c : word) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    q += (q.empty() ? "" : " ") + quoted + "\"";
  }
  return q;
}

}  // namespace

std::vector<SessionSummary> Store::sessions() {
  Stmt s(impl_->db, std::string("SELECT ") + kSummaryColumns + " FROM sessions s ORDER BY s.started_at_ms DESC, s.id DESC");
  std::vector<SessionSummary> out;
  while (s.step()) out.push_back(readSummary(s));
  return out;
}

std::optional<SessionDetail> Store::session(int64_t id) {
  Stmt s(impl_->db, std::string("SELECT ") + kSummaryColumns +
                        ", s.script_text, s.options_json, s.engine_version, s.stdout, s.error, s.outputs_json"
                        " FROM sessions s WHERE s.id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  SessionDetail d;
  d.summary = readSummary(s);
  const int after = kSummaryColumnCount;  // the detail columns follow the summary's
  d.scriptText = s.text(after);
  d.optionsJson = s.text(after + 1);
  d.engineVersion = s.text(after + 2);
  d.stdoutText = s.text(after + 3);
  d.error = s.text(after + 4);
  d.outputsJson = s.text(after + 5);
  return d;
}

std::vector<FrameRow> Store::frames(int64_t sessionId) {
  Stmt s(impl_->db,
         "SELECT frame_id, name, file, kind, source, first_line FROM frames WHERE session_id = ?"
         " ORDER BY frame_id");
  s.bind(1, sessionId);
  std::vector<FrameRow> out;
  while (s.step()) out.push_back(FrameRow{s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), s.integer(5)});
  return out;
}

namespace {

// The guards in guards_json without parsing it: each guard is an object whose first key is
// "kind" (guardsToJson, compact and key-sorted); the text `"kind":` cannot occur inside a JSON
// string, whose quotes are escaped. Checked against the parsed count in tests/storage.
int countGuards(const std::string& json) {
  int n = 0;
  for (size_t at = json.find("\"kind\":"); at != std::string::npos; at = json.find("\"kind\":", at + 7)) ++n;
  return n;
}

}  // namespace

std::vector<session::Guard> Store::compileGuards(int64_t sessionId, const std::string& compileId) {
  Stmt s(impl_->db, "SELECT guards_json FROM compiles WHERE session_id = ? AND compile_id = ?");
  s.bind(1, sessionId).bind(2, compileId);
  return s.step() ? guardsFromJson(s.text(0)) : std::vector<session::Guard>{};
}

std::vector<CompileRow> Store::compiles(int64_t sessionId, GuardRead guards) {
  Stmt s(impl_->db,
         "SELECT compile_id, frame_id, compile_index, backend, status, message, transformed_code, guards_json,"
         " file, line, col, detail FROM compiles WHERE session_id = ? ORDER BY frame_id, compile_index, compile_id");
  s.bind(1, sessionId);
  std::vector<CompileRow> out;
  while (s.step()) {
    CompileRow c;
    c.compileId = s.text(0);
    c.frameId = s.integer(1);
    c.compileIndex = s.integer(2);
    c.backend = s.text(3);
    c.status = s.text(4);
    c.message = s.text(5);
    c.transformedCode = s.text(6);
    if (guards == GuardRead::Parsed) {
      c.guards = guardsFromJson(s.text(7));
      c.guardCount = static_cast<int>(c.guards.size());
    } else {
      c.guardCount = countGuards(s.text(7));
    }
    c.file = s.text(8);
    c.line = s.integer(9);
    c.col = s.integer(10);
    c.detail = s.text(11);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<StageRow> Store::stages(int64_t sessionId, const std::string& compileId) {
  Stmt s(impl_->db,
         "SELECT id, compile_id, stage, ord, changed, ms, rules_json, same_as FROM stages"
         " WHERE session_id = ? AND compile_id = ? ORDER BY ord, id");
  s.bind(1, sessionId).bind(2, compileId);
  std::vector<StageRow> out;
  while (s.step()) {
    StageRow r;
    r.id = s.int64(0);
    r.compileId = s.text(1);
    r.stage = s.text(2);
    r.order = s.integer(3);
    r.changed = s.int64(4) != 0;
    r.ms = s.real(5);
    r.rules = rulesFromJson(s.text(6));
    if (!s.isNull(7)) r.sameAs = s.int64(7);
    out.push_back(std::move(r));
  }
  return out;
}

std::string Store::stageText(int64_t stageId) {
  // A stage that repeats an earlier one (same_as, schema 9) shows that stage's text.
  Stmt s(impl_->db,
         "SELECT CASE WHEN a.same_as IS NULL THEN a.text ELSE b.text END"
         " FROM stages a LEFT JOIN stages b ON b.id = a.same_as WHERE a.id = ?");
  s.bind(1, stageId);
  if (!s.step()) throw StoreError("no stage " + std::to_string(stageId) + " in '" + impl_->path + "'");
  return s.text(0);
}

std::vector<session::RuleApplication> Store::ruleApplications(int64_t stageId) {
  Stmt s(impl_->db, "SELECT applications_json FROM stages WHERE id = ?");
  s.bind(1, stageId);
  if (!s.step()) throw StoreError("no stage " + std::to_string(stageId) + " in '" + impl_->path + "'");
  return applicationsFromJson(s.text(0));
}

ir::Graph Store::stageGraph(int64_t stageId) {
  ir::Graph g;
  int nextId = 0;
  int64_t nodesOf = stageId;  // the stage whose rows hold the nodes (same_as, schema 9)
  {
    Stmt s(impl_->db, "SELECT graph_name, next_node_id, same_as FROM stages WHERE id = ?");
    s.bind(1, stageId);
    if (!s.step()) throw StoreError("no stage " + std::to_string(stageId) + " in '" + impl_->path + "'");
    g.name = s.text(0);
    nextId = s.integer(1);
    if (!s.isNull(2)) nodesOf = s.int64(2);
  }
  // The user stack and types are in node_json (schema 9) or, in rows written before, in the row;
  // so is the site (file, function, code, module path: schema 12).
  Stmt s(impl_->db,
         "SELECT n.node_id, n.name, n.kind, n.target,"
         " CASE WHEN n.types_id IS NULL THEN n.types_json ELSE t.json END, n.args_json, n.kwargs_json, n.file,"
         " n.line, n.col, n.end_line, n.end_col, n.function, n.code, n.module_path, n.from_json,"
         " CASE WHEN n.user_stack_id IS NULL THEN n.user_stack_json ELSE k.json END, n.kernel, n.types_id,"
         " n.user_stack_id, n.site_id, p.json FROM stage_nodes n LEFT JOIN node_json k ON k.id = n.user_stack_id"
         " LEFT JOIN node_json t ON t.id = n.types_id LEFT JOIN node_json p ON p.id = n.site_id"
         " WHERE n.stage_id = ? ORDER BY n.pos");
  s.bind(1, nodesOf);
  // node_json values are shared by many nodes: each is parsed once (parsing them per node was
  // most of the studio's read of a 17,000-node stage).
  std::unordered_map<int64_t, std::vector<ir::TensorType>> typesById;
  std::unordered_map<int64_t, std::vector<ir::SourceLoc>> stacksById;
  std::unordered_map<int64_t, std::vector<std::string>> sitesById;
  while (s.step()) {
    ir::Node n;
    n.id = s.integer(0);
    n.name = s.text(1);
    n.kind = nodeKindFromName(s.text(2));
    n.target = s.text(3);
    auto parsed = [&](auto& cache, int col, int idCol, auto parse) {
      using Value = typename std::decay_t<decltype(cache)>::mapped_type;
      if (s.isNull(idCol)) {
        std::string json = s.text(col);
        return json.empty() ? Value{} : parse(json);
      }
      auto it = cache.find(s.int64(idCol));
      if (it == cache.end()) {
        std::string json = s.text(col);  // '' when a repaired store lost the node_json row
        it = cache.emplace(s.int64(idCol), json.empty() ? Value{} : parse(json)).first;
      }
      return it->second;
    };
    n.types = parsed(typesById, 4, 18, [](const std::string& j) { return typesFromJson(j); });
    n.args = argsFromJson(s.text(5));
    n.kwargs = kwargsFromJson(s.text(6));
    auto& loc = n.prov.loc;
    loc.line = s.integer(8);
    loc.col = s.integer(9);
    loc.endLine = s.integer(10);
    loc.endCol = s.integer(11);
    if (s.isNull(20)) {
      loc.file = s.text(7);
      loc.function = s.text(12);
      loc.code = s.text(13);
      n.prov.modulePath = s.text(14);
    } else {
      auto site = sitesById.find(s.int64(20));
      if (site == sitesById.end()) {
        std::string json = s.text(21);  // '' when a repaired store lost the node_json row
        const std::string where = "node site " + std::to_string(s.int64(20)) + " in '" + impl_->path + "'";
        std::vector<std::string> fields;
        try {
          if (!json.empty()) fields = stringsFromJson(json);
        } catch (const StoreError& e) { throw StoreError(where + ": " + e.what()); }
        if (fields.size() != 4 && !json.empty())
          throw StoreError(where + " has " + std::to_string(fields.size()) + " fields, not 4 (file, function, code, module path)");
        fields.resize(4);
        site = sitesById.emplace(s.int64(20), std::move(fields)).first;
      }
      loc.file = site->second[0];
      loc.function = site->second[1];
      loc.code = site->second[2];
      n.prov.modulePath = site->second[3];
    }
    n.prov.from = intsFromJson(s.text(15));
    n.prov.userStack = parsed(stacksById, 16, 19, [](const std::string& j) { return sourceLocsFromJson(j); });
    n.kernel = s.text(17);
    // Appended directly: Graph::add would rename a node whose name it considers taken, and
    // the stored graph must come back exactly as it was recorded.
    g.nodes.push_back(std::move(n));
  }
  // Graph's id counter is private and only add() advances it. Adding and dropping a
  // placeholder with the last id restores it, so new nodes get the ids they would have had.
  if (nextId > 0) {
    ir::Node probe;
    probe.id = nextId - 1;
    g.add(std::move(probe));
    g.nodes.pop_back();
  }
  return g;
}

std::vector<KernelRow> Store::kernels(int64_t sessionId, const std::string& compileId) {
  Stmt s(impl_->db,
         "SELECT id, compile_id, name, kind, kernel_ir, source, llvm_ir, assembly, node_ids_json,"
         " source_lines_json, compile_ms, ptx, sass, gpu_json FROM kernels WHERE session_id = ? AND compile_id = ? ORDER BY id");
  s.bind(1, sessionId).bind(2, compileId);
  std::vector<KernelRow> out;
  while (s.step()) {
    KernelRow k;
    k.id = s.int64(0);
    k.compileId = s.text(1);
    k.name = s.text(2);
    k.kind = s.text(3);
    k.kernelIr = s.text(4);
    k.source = s.text(5);
    k.llvmIr = s.text(6);
    k.assembly = s.text(7);
    k.nodeIds = intsFromJson(s.text(8));
    k.sourceLines = intsFromJson(s.text(9));
    k.compileMs = s.real(10);
    k.gpu = gpuInfoFromJson(s.text(13));
    k.gpu.ptx = s.text(11);
    k.gpu.sass = s.text(12);
    out.push_back(std::move(k));
  }
  return out;
}

std::string Store::wrapperText(int64_t sessionId, const std::string& compileId) {
  Stmt s(impl_->db, "SELECT text FROM wrappers WHERE session_id = ? AND compile_id = ?");
  s.bind(1, sessionId).bind(2, compileId);
  return s.step() ? s.text(0) : std::string();  // eager and failed compiles have no wrapper
}

std::vector<session::GraphBreakEvent> Store::graphBreaks(int64_t sessionId) {
  Stmt s(impl_->db,
         "SELECT frame_id, compile_id, code, title, explanation, hints_json, file, line, col, user_stack_json"
         " FROM graph_breaks WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  std::vector<session::GraphBreakEvent> out;
  while (s.step()) {
    session::GraphBreakEvent b;
    b.frameId = s.integer(0);
    b.compileId = s.text(1);
    b.code = s.text(2);
    b.title = s.text(3);
    b.explanation = s.text(4);
    b.hints = stringsFromJson(s.text(5));
    b.file = s.text(6);
    b.line = s.integer(7);
    b.col = s.integer(8);
    b.userStack = sourceLocsFromJson(s.text(9));
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<session::RecompileEvent> Store::recompiles(int64_t sessionId) {
  Stmt s(impl_->db, "SELECT frame_id, compile_id, reasons_json, lines_json FROM recompiles WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  std::vector<session::RecompileEvent> out;
  while (s.step()) out.push_back({s.integer(0), s.text(1), stringsFromJson(s.text(2)), intsFromJson(s.text(3))});
  return out;
}

std::vector<session::TimingEvent> Store::timings(int64_t sessionId) {
  Stmt s(impl_->db, "SELECT compile_id, phase, ms FROM timings WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  std::vector<session::TimingEvent> out;
  while (s.step()) out.push_back({s.text(0), s.text(1), s.real(2)});
  return out;
}

std::vector<session::ProfileEvent> Store::profiles(int64_t sessionId) {
  std::vector<session::ProfileEvent> out;
  Stmt f(impl_->db, "SELECT compile_id, eager_ms, compiled_ms, repeat FROM frame_profiles WHERE session_id = ? ORDER BY id");
  f.bind(1, sessionId);
  while (f.step()) {
    session::ProfileEvent p;
    p.compileId = f.text(0);
    p.eagerMs = f.real(1);
    p.compiledMs = f.real(2);
    p.repeat = f.integer(3);
    out.push_back(std::move(p));
  }
  Stmt k(impl_->db, "SELECT compile_id, kernel, ms, bytes FROM kernel_profiles WHERE session_id = ? ORDER BY id");
  k.bind(1, sessionId);
  while (k.step())
    for (auto& p : out)
      if (p.compileId == k.text(0)) p.kernels.push_back({k.text(1), k.real(2), k.int64(3)});
  return out;
}

std::vector<session::AutotuneEvent> Store::autotuneChoices(int64_t sessionId) {
  std::vector<session::AutotuneEvent> out;
  Stmt s(impl_->db,
         "SELECT compile_id, node, op, problem, algo, ms, note, chosen, cached FROM autotune_choices WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  while (s.step()) {
    // A product's rows are consecutive (one event writes them together).
    if (out.empty() || out.back().compileId != s.text(0) || out.back().node != s.text(1)) {
      session::AutotuneEvent e;
      e.compileId = s.text(0);
      e.node = s.text(1);
      e.op = s.text(2);
      e.problem = s.text(3);
      e.cached = s.integer(8) != 0;
      out.push_back(std::move(e));
    }
    out.back().candidates.push_back({s.text(4), s.real(5), s.text(6), s.integer(7) != 0});
  }
  return out;
}

std::vector<session::VerifyEvent> Store::verifications(int64_t sessionId) {
  std::vector<session::VerifyEvent> out;
  Stmt s(impl_->db,
         "SELECT compile_id, call, matched, output, detail, culprit, bisection_json FROM verifications"
         " WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  while (s.step()) {
    session::VerifyEvent v;
    v.compileId = s.text(0);
    v.call = s.integer(1);
    v.matched = s.integer(2) != 0;
    v.output = s.integer(3);
    v.detail = s.text(4);
    v.culprit = s.text(5);
    v.bisection = stringsFromJson(s.text(6));
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<session::ArtifactEvent> Store::artifacts(int64_t sessionId) {
  std::vector<session::ArtifactEvent> out;
  Stmt s(impl_->db, "SELECT compile_id, name, text, line FROM artifacts WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.integer(3)});
  return out;
}

std::vector<session::CollectiveEvent> Store::collectives(int64_t sessionId) {
  std::vector<session::CollectiveEvent> out;
  Stmt s(impl_->db,
         "SELECT seq, op, reduce_op, root, backend, bytes, dtype, shape_json, issued_at_ms, duration_ms, waited_at_ms, rank,"
         " world_size, label FROM collectives WHERE session_id = ? ORDER BY seq, id");
  s.bind(1, sessionId);
  while (s.step()) {
    session::CollectiveEvent c;
    c.seq = s.int64(0);
    c.op = s.text(1);
    c.reduceOp = s.text(2);
    c.root = s.integer(3);
    c.backend = s.text(4);
    c.bytes = s.int64(5);
    c.dtype = s.text(6);
    c.shape = int64sFromJson(s.text(7));
    c.issuedAtMs = s.real(8);
    c.durationMs = s.real(9);
    c.waitedAtMs = s.real(10);
    c.rank = s.integer(11);
    c.worldSize = s.integer(12);
    c.label = s.text(13);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<ArtifactRow> Store::artifactIndex(int64_t sessionId) {
  std::vector<ArtifactRow> out;
  Stmt s(impl_->db, "SELECT id, compile_id, name, line, length(CAST(text AS BLOB)) FROM artifacts WHERE session_id = ? ORDER BY id");
  s.bind(1, sessionId);
  while (s.step()) out.push_back({s.int64(0), s.text(1), s.text(2), s.integer(3), s.int64(4)});
  return out;
}

std::string Store::artifactText(int64_t artifactId) {
  Stmt s(impl_->db, "SELECT text FROM artifacts WHERE id = ?");
  s.bind(1, artifactId);
  return s.step() ? s.text(0) : std::string();
}

std::vector<SearchHit> Store::search(const std::string& text, int limit) {
  std::string q = ftsQuery(text);
  if (q.empty()) return {};
  Stmt s(impl_->db,
         "SELECT t.session_id, t.kind, t.ref, snippet(search_text, 0, '[', ']', '...', 12)"
         " FROM search_text t JOIN sessions s ON s.id = t.session_id"
         " WHERE search_text MATCH ? ORDER BY s.started_at_ms DESC, s.id DESC, t.rank LIMIT ?");
  s.bind(1, q).bind(2, limit);
  std::vector<SearchHit> out;
  while (s.step()) out.push_back({s.int64(0), s.text(1), s.text(2), s.text(3)});
  return out;
}

std::vector<LineNode> Store::nodesAtLine(int64_t sessionId, int line) {
  // Stages stored as same_as another (schema 9) have no rows of their own: they list the
  // nodes of the stage they repeat, under their own id.
  std::map<int64_t, std::vector<int64_t>> repeats;  // stage with rows -> stages repeating it
  {
    Stmt r(impl_->db, "SELECT id, same_as FROM stages WHERE session_id = ? AND same_as IS NOT NULL");
    r.bind(1, sessionId);
    while (r.step()) repeats[r.int64(1)].push_back(r.int64(0));
  }
  Stmt s(impl_->db, "SELECT stage_id, pos, node_id FROM stage_nodes WHERE session_id = ? AND line = ? ORDER BY stage_id, pos");
  s.bind(1, sessionId).bind(2, line);
  std::vector<std::tuple<int64_t, int, int>> rows;
  while (s.step()) {
    int64_t stage = s.int64(0);
    rows.emplace_back(stage, s.integer(1), s.integer(2));
    if (auto it = repeats.find(stage); it != repeats.end())
      for (int64_t other : it->second) rows.emplace_back(other, s.integer(1), s.integer(2));
  }
  std::sort(rows.begin(), rows.end());
  std::vector<LineNode> out;
  out.reserve(rows.size());
  for (const auto& [stage, pos, node] : rows) out.push_back({stage, node});
  return out;
}

}  // namespace kiln::storage
