#include "storage/session_writer.h"

#include "storage/graph_json.h"
#include "storage/process_liveness.h"

#include <sqlite3.h>

#include <algorithm>
#include <optional>

namespace kiln::storage {

namespace {
// Printed output reported during a compile's transaction commits with it (or at this size);
// output reported outside one commits at once.
constexpr size_t kOutputFlushBytes = 64 * 1024;

bool inMemory(const std::string& path) { return path.empty() || path == ":memory:"; }

std::string baseName(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

SessionWriter::SessionWriter(Store::Impl& store) : store_(store) {
  if (inMemory(store.path)) {
    db_ = &store.db;  // a second connection to ":memory:" would be a different database
  } else {
    own_ = std::make_unique<Db>(store.path);
    db_ = own_.get();
  }
}

SessionWriter::~SessionWriter() { stop("the run stopped before its session ended"); }

void SessionWriter::stop(const std::string& reason) noexcept {
  if (sessionId_ == 0 || ended_) return;
  ended_ = true;
  // Nothing here may throw. If even the status update fails (the disk is still full), readers
  // see a dead "running" session, which they report as incomplete once this process exits.
  auto markIncomplete = [&](bool withOutput) {
    Transaction tx(*db_);
    if (withOutput) flushOutput();
    Stmt(*db_, "UPDATE sessions SET status = 'incomplete', error = ? WHERE id = ?").bind(1, reason).bind(2, sessionId_).run();
    tx.commit();
  };
  try {
    if (db_->inTransaction()) db_->exec("ROLLBACK");
    markIncomplete(true);
  } catch (...) {
    try {
      if (db_->inTransaction()) db_->exec("ROLLBACK");
      markIncomplete(false);  // the buffered output may be what no longer fits
    } catch (...) {}
  }
}

void SessionWriter::sessionStart(const session::SessionStart& s) {
  if (sessionId_ != 0) throw StoreError("sessionStart called twice on one session sink");
  std::string name = baseName(s.scriptPath);
  if (name.empty()) name = "session";
  // Autocommit: the row must exist on disk before any event, so a crash is always visible.
  Stmt st(*db_,
          "INSERT INTO sessions (name, script_path, script_text, options_json, engine_version, status,"
          " started_at_ms, pid) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)");
  st.bind(1, name).bind(2, s.scriptPath).bind(3, s.scriptText);
  st.bind(4, s.optionsJson.empty() ? std::string("{}") : s.optionsJson).bind(5, s.engineVersion);
  st.bind(6, s.startedAtMs).bind(7, currentPid());
  st.run();
  sessionId_ = db_->lastInsertId();
  store_.lastSessionId = sessionId_;
  if (!s.scriptText.empty()) {
    beginEvent("sessionStart");
    index("script", "", s.scriptText, false);
    commit();
  }
}

void SessionWriter::beginEvent(const char* event) {
  if (sessionId_ == 0) throw StoreError(std::string(event) + " reported before sessionStart");
  if (ended_) throw StoreError(std::string(event) + " reported after sessionEnd");
  if (!db_->inTransaction()) db_->exec("BEGIN IMMEDIATE");
}

void SessionWriter::commit() {
  if (db_->inTransaction()) db_->exec("COMMIT");
}

// openCompiles_ also holds the frames reported ahead of their first compile, under this prefix
// (compile ids never start with it).
const std::string kFramePrefix = "frame ";

// A compile's events commit together at its compileDone, so a crash never leaves half a compile;
// any other event commits at once: the store's write lock is never held while the script runs.
// (The ranks of a distributed run share one store: a rank that kept the lock while it waits in a
// collective for another rank, itself waiting for the lock, would stall both.)
void SessionWriter::endEvent(const std::string& compileId) {
  if (!compileId.empty() && !doneCompiles_.count(compileId)) openCompiles_.insert(compileId);
  if (!openCompiles_.empty()) return;
  flushOutput();
  commit();
}

void SessionWriter::flushOutput() {
  if (pendingOutput_.empty()) return;
  Stmt(*db_, "UPDATE sessions SET stdout = stdout || ? WHERE id = ?").bind(1, pendingOutput_).bind(2, sessionId_).run();
  pendingOutput_.clear();
}

void SessionWriter::index(const std::string& kind, const std::string& ref, const std::string& text, bool replace) {
  std::string key = kind + '\n' + ref;
  if (replace && indexed_.count(key))
    Stmt(*db_, "DELETE FROM search_text WHERE session_id = ? AND kind = ? AND ref = ?")
        .bind(1, sessionId_)
        .bind(2, kind)
        .bind(3, ref)
        .run();
  if (text.empty()) return;
  Stmt(*db_, "INSERT INTO search_text (text, session_id, kind, ref) VALUES (?, ?, ?, ?)")
      .bind(1, text)
      .bind(2, sessionId_)
      .bind(3, kind)
      .bind(4, ref)
      .run();
  indexed_.insert(key);
}

void SessionWriter::frame(const session::FrameEvent& f) {
  beginEvent("frame");
  Stmt st(*db_,
          "INSERT INTO frames (session_id, frame_id, name, file, first_line, kind, source)"
          " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, frame_id) DO UPDATE SET"
          " name = excluded.name, file = excluded.file, first_line = excluded.first_line,"
          " kind = excluded.kind, source = excluded.source");
  st.bind(1, sessionId_).bind(2, f.frameId).bind(3, f.name).bind(4, f.file).bind(5, f.firstLine);
  st.bind(6, f.kind).bind(7, f.source).run();
  index("frame", std::to_string(f.frameId), f.source, true);
  // A frame is reported as its first compile starts: it commits with that compile.
  openCompiles_.insert(kFramePrefix + std::to_string(f.frameId));
  endEvent("");
}

void SessionWriter::compile(const session::CompileEvent& c) {
  beginEvent("compile");
  Stmt st(*db_,
          "INSERT INTO compiles (session_id, compile_id, frame_id, compile_index, backend, status, message,"
          " guards_json, transformed_code, file, line, col, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          " ON CONFLICT (session_id, compile_id) DO UPDATE SET frame_id = excluded.frame_id,"
          " compile_index = excluded.compile_index, backend = excluded.backend, status = excluded.status,"
          " message = excluded.message, guards_json = excluded.guards_json,"
          " transformed_code = excluded.transformed_code, file = excluded.file, line = excluded.line,"
          " col = excluded.col, detail = excluded.detail");
  st.bind(1, sessionId_).bind(2, c.compileId).bind(3, c.frameId).bind(4, c.compileIndex);
  st.bind(5, c.backend).bind(6, c.status).bind(7, c.message).bindCompressed(8, guardsToJson(c.guards));
  st.bindCompressed(9, c.transformedCode).bind(10, c.file).bind(11, c.line).bind(12, c.col).bind(13, c.detail).run();
  index("transformed", c.compileId, c.transformedCode, true);
  endEvent(c.compileId);
}

int64_t SessionWriter::jsonId(const std::string& json) {
  auto it = jsonIds_.find(json);
  if (it != jsonIds_.end()) return it->second;
  Stmt(*db_, "INSERT INTO node_json (session_id, json) VALUES (?, ?)").bind(1, sessionId_).bind(2, json).run();
  int64_t id = db_->lastInsertId();
  jsonIds_.emplace(json, id);
  return id;
}

// Keys that spell a value's fields with their lengths: equal keys are equal values, so a value
// whose key was seen has the node_json id given then, and a new key makes the JSON once (two
// keys of equal JSON share its id through jsonId).
namespace {
void keyOf(std::string& key, const std::string& s) {
  key += std::to_string(s.size());
  key += ':';
  key += s;
}
void keyOf(std::string& key, int64_t v) {
  key += std::to_string(v);
  key += ';';
}
void keyOf(std::string& key, const std::vector<ir::Dim>& dims) {
  keyOf(key, static_cast<int64_t>(dims.size()));
  for (const auto& d : dims) {
    keyOf(key, d.value);
    keyOf(key, d.symbol);
  }
}
}  // namespace

int64_t SessionWriter::userStackId(const std::vector<ir::SourceLoc>& stack) {
  idKey_.clear();
  for (const auto& l : stack) {
    keyOf(idKey_, l.file);
    keyOf(idKey_, l.function);
    keyOf(idKey_, l.code);
    for (int v : {l.line, l.col, l.endLine, l.endCol}) keyOf(idKey_, v);
  }
  auto it = stackIds_.find(idKey_);
  if (it == stackIds_.end()) it = stackIds_.emplace(idKey_, jsonId(sourceLocsToJson(stack))).first;
  return it->second;
}

int64_t SessionWriter::typesJsonId(const std::vector<ir::TensorType>& types) {
  idKey_.clear();
  for (const auto& t : types) {
    keyOf(idKey_, static_cast<int64_t>(t.dtype));
    keyOf(idKey_, t.sizes);
    keyOf(idKey_, t.strides);
    keyOf(idKey_, t.device);
    keyOf(idKey_, t.requiresGrad ? 1 : 0);
  }
  auto it = typeIds_.find(idKey_);
  if (it == typeIds_.end()) it = typeIds_.emplace(idKey_, jsonId(typesToJson(types))).first;
  return it->second;
}

int64_t SessionWriter::siteId(const ir::Node& n) {
  const auto& loc = n.prov.loc;
  idKey_.clear();
  for (const auto* field : {&loc.file, &loc.function, &loc.code, &n.prov.modulePath}) keyOf(idKey_, *field);
  auto it = siteIds_.find(idKey_);
  if (it == siteIds_.end())
    it = siteIds_.emplace(idKey_, jsonId(stringsToJson({loc.file, loc.function, loc.code, n.prov.modulePath}))).first;
  return it->second;
}

// intsToJson's compact form, for a node's `from`.
namespace {
void fromJson(std::string& out, const std::vector<int>& from) {
  out = "[";
  for (size_t i = 0; i < from.size(); ++i) out += (i ? "," : "") + std::to_string(from[i]);
  out += "]";
}
}  // namespace

void SessionWriter::addRow(Digest& d, const ir::Node& n, int64_t stackId, int64_t typesId, const std::string& args,
                           const std::string& kwargs, const std::string& from) {
  const auto& loc = n.prov.loc;
  d.add(n.id);
  d.add(n.name);
  d.add(nodeKindName(n.kind));
  d.add(n.target);
  d.add(typesId);
  d.add(args);
  d.add(kwargs);
  d.add(loc.file);
  for (int v : {loc.line, loc.col, loc.endLine, loc.endCol}) d.add(v);
  d.add(loc.function);
  d.add(loc.code);
  d.add(n.prov.modulePath);
  d.add(from);
  d.add(stackId);
  d.add(n.kernel);
}

Digest SessionWriter::rowsDigest(const ir::Graph& g) {
  Digest d;
  std::string from;
  for (const auto& n : g.nodes) {
    const int64_t stackId = userStackId(n.prov.userStack);
    const int64_t typesId = typesJsonId(n.types);
    siteId(n);  // made in storing's order; the row's digest has the site's fields themselves
    fromJson(from, n.prov.from);
    addRow(d, n, stackId, typesId, argsToJson(n.args), n.kwargs.empty() ? std::string("[]") : kwargsToJson(n.kwargs), from);
  }
  return d;
}

void SessionWriter::stage(const session::StageEvent& s) {
  beginEvent("stage");
  // A stage equal to the compile's last stored one (a pass that changed nothing) points at it:
  // the same text and rows (StoredStage says how they are compared).
  auto last = lastStage_.find(s.compileId);
  std::optional<Digest> fields;
  bool repeats = false;
  if (last != lastStage_.end() && last->second.nodes == s.graph.nodes.size() && last->second.text == s.text) {
    fields = nodeFieldsDigest(s.graph);
    repeats = *fields == last->second.fields || rowsDigest(s.graph) == last->second.rows;
  }

  Stmt st(*db_,
          "INSERT INTO stages (session_id, compile_id, stage, ord, text, changed, ms, rules_json, graph_name,"
          " next_node_id, same_as, applications_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, sessionId_).bind(2, s.compileId).bind(3, s.stage).bind(4, s.order);
  if (repeats) {
    st.bind(5, "").bind(11, last->second.id);
  } else {
    st.bindCompressed(5, s.text);  // same_as stays NULL: the stage holds its own nodes and text
  }
  st.bind(6, s.changed).bind(7, s.ms).bind(8, rulesToJson(s.rules)).bind(9, s.graph.name);
  st.bind(10, s.graph.nextId()).bindCompressed(12, applicationsToJson(s.applications)).run();
  int64_t stageId = db_->lastInsertId();
  if (repeats) {
    endEvent(s.compileId);
    return;
  }

  Stmt node(*db_,
            "INSERT INTO stage_nodes (stage_id, session_id, pos, node_id, name, kind, target, types_json,"
            " args_json, kwargs_json, file, line, col, end_line, end_col, function, code, module_path,"
            " from_json, user_stack_json, kernel, user_stack_id, types_id, site_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  // Node by node, the row bound from the node's fields (the rows of a 17,000-node stage held at
  // once were some 20 MB at the run's peak).
  std::string from, args, kwargs;
  Digest rows;
  int pos = 0;
  for (const auto& n : s.graph.nodes) {
    // Stacks, types and sites live in node_json (their ids made in this order, as always: the
    // digest of the rows made for a repeat check makes them so too).
    const int64_t stackId = userStackId(n.prov.userStack);
    const int64_t typesId = typesJsonId(n.types);
    const int64_t site = siteId(n);
    const auto& loc = n.prov.loc;
    args = argsToJson(n.args);
    kwargs = n.kwargs.empty() ? std::string("[]") : kwargsToJson(n.kwargs);
    fromJson(from, n.prov.from);
    node.bind(1, stageId).bind(2, sessionId_).bind(3, pos++).bind(4, n.id).bind(5, n.name);
    node.bind(6, nodeKindName(n.kind)).bind(7, n.target).bind(8, "").bind(9, args).bind(10, kwargs);
    // The site's columns and the JSON columns keep '' (NOT NULL since schema 1).
    node.bind(11, "").bind(12, loc.line).bind(13, loc.col).bind(14, loc.endLine).bind(15, loc.endCol);
    node.bind(16, "").bind(17, "").bind(18, "").bind(19, from);
    node.bind(20, "").bind(21, n.kernel).bind(22, stackId).bind(23, typesId).bind(24, site);
    node.run();
    addRow(rows, n, stackId, typesId, args, kwargs, from);
  }
  index("stage", std::to_string(stageId), s.text, false);
  lastStage_[s.compileId] = StoredStage{stageId, s.text, s.graph.nodes.size(), fields ? *fields : nodeFieldsDigest(s.graph), rows};
  endEvent(s.compileId);
}

void SessionWriter::kernel(const session::KernelEvent& k) {
  beginEvent("kernel");
  // A compile reports its kernels after its stages; a stage reported after them (a training
  // graph's backward, compiled when backward first runs) starts from other inputs and never
  // equals the forward's last stage. So the last stage's graph (a 17,000-node copy) is let go
  // here rather than held through code generation, the run and compileDone.
  lastStage_.erase(k.compileId);
  Stmt st(*db_,
          "INSERT INTO kernels (session_id, compile_id, name, kind, kernel_ir, source, llvm_ir, assembly,"
          " node_ids_json, source_lines_json, compile_ms, ptx, sass, gpu_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, sessionId_).bind(2, k.compileId).bind(3, k.name).bind(4, k.kind).bindCompressed(5, k.kernelIr);
  st.bindCompressed(6, k.source).bindCompressed(7, k.llvmIr).bindCompressed(8, k.assembly).bind(9, intsToJson(k.nodeIds));
  st.bind(10, intsToJson(k.sourceLines)).bind(11, k.compileMs).bindCompressed(12, k.gpu.ptx).bindCompressed(13, k.gpu.sass);
  st.bind(14, gpuInfoToJson(k.gpu)).run();
  int64_t kernelId = db_->lastInsertId();
  index("kernel", std::to_string(kernelId), kernelSearchText(k.name, k.kernelIr, k.source), false);
  endEvent(k.compileId);
}

std::string SessionWriter::kernelSearchText(const std::string& name, const std::string& kernelIr, const std::string& source) {
  // Kernel IR and generated source are what users search; LLVM IR and assembly are too large and
  // too repetitive to be worth indexing.
  std::string text = name + "\n" + kernelIr;
  if (!source.empty()) text += "\n" + source;
  return text;
}

void SessionWriter::wrapper(const session::WrapperEvent& w) {
  beginEvent("wrapper");
  Stmt(*db_,
       "INSERT INTO wrappers (session_id, compile_id, text) VALUES (?, ?, ?)"
       " ON CONFLICT (session_id, compile_id) DO UPDATE SET text = excluded.text")
      .bind(1, sessionId_)
      .bind(2, w.compileId)
      .bindCompressed(3, w.text)
      .run();
  index("wrapper", w.compileId, w.text, true);
  endEvent(w.compileId);
}

void SessionWriter::graphBreak(const session::GraphBreakEvent& b) {
  beginEvent("graphBreak");
  Stmt st(*db_,
          "INSERT INTO graph_breaks (session_id, frame_id, compile_id, code, title, explanation, hints_json,"
          " file, line, col, user_stack_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, sessionId_).bind(2, b.frameId).bind(3, b.compileId).bind(4, b.code).bind(5, b.title);
  st.bind(6, b.explanation).bind(7, stringsToJson(b.hints)).bind(8, b.file).bind(9, b.line);
  st.bind(10, b.col).bind(11, sourceLocsToJson(b.userStack)).run();
  endEvent(b.compileId);
}

void SessionWriter::recompile(const session::RecompileEvent& r) {
  beginEvent("recompile");
  Stmt(*db_, "INSERT INTO recompiles (session_id, frame_id, compile_id, reasons_json, lines_json) VALUES (?, ?, ?, ?, ?)")
      .bind(1, sessionId_)
      .bind(2, r.frameId)
      .bind(3, r.compileId)
      .bind(4, stringsToJson(r.reasons))
      .bind(5, intsToJson(r.lines))
      .run();
  endEvent(r.compileId);
}

void SessionWriter::timing(const session::TimingEvent& t) {
  beginEvent("timing");
  Stmt(*db_, "INSERT INTO timings (session_id, compile_id, phase, ms) VALUES (?, ?, ?, ?)")
      .bind(1, sessionId_)
      .bind(2, t.compileId)
      .bind(3, t.phase)
      .bind(4, t.ms)
      .run();
  endEvent(t.compileId);
}

void SessionWriter::profile(const session::ProfileEvent& p) {
  beginEvent("profile");
  Stmt(*db_, "INSERT INTO frame_profiles (session_id, compile_id, eager_ms, compiled_ms, repeat) VALUES (?, ?, ?, ?, ?)")
      .bind(1, sessionId_)
      .bind(2, p.compileId)
      .bind(3, p.eagerMs)
      .bind(4, p.compiledMs)
      .bind(5, p.repeat)
      .run();
  for (const auto& k : p.kernels)
    Stmt(*db_, "INSERT INTO kernel_profiles (session_id, compile_id, kernel, ms, bytes) VALUES (?, ?, ?, ?, ?)")
        .bind(1, sessionId_)
        .bind(2, p.compileId)
        .bind(3, k.name)
        .bind(4, k.ms)
        .bind(5, k.bytes)
        .run();
  endEvent(p.compileId);
}

void SessionWriter::autotune(const session::AutotuneEvent& a) {
  beginEvent("autotune");
  for (const auto& c : a.candidates)
    Stmt(*db_,
         "INSERT INTO autotune_choices (session_id, compile_id, node, op, problem, algo, ms, note, chosen, cached)"
         " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(1, sessionId_)
        .bind(2, a.compileId)
        .bind(3, a.node)
        .bind(4, a.op)
        .bind(5, a.problem)
        .bind(6, c.algo)
        .bind(7, c.ms)
        .bind(8, c.note)
        .bind(9, c.chosen ? 1 : 0)
        .bind(10, a.cached ? 1 : 0)
        .run();
  endEvent(a.compileId);
}

void SessionWriter::verify(const session::VerifyEvent& v) {
  beginEvent("verify");
  Stmt(*db_,
       "INSERT INTO verifications (session_id, compile_id, call, matched, output, detail, culprit, bisection_json)"
       " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, sessionId_)
      .bind(2, v.compileId)
      .bind(3, v.call)
      .bind(4, v.matched ? 1 : 0)
      .bind(5, v.output)
      .bind(6, v.detail)
      .bind(7, v.culprit)
      .bind(8, stringsToJson(v.bisection))
      .run();
  endEvent(v.compileId);
}

void SessionWriter::artifact(const session::ArtifactEvent& a) {
  beginEvent("artifact");
  Stmt(*db_, "INSERT INTO artifacts (session_id, compile_id, name, text, line) VALUES (?, ?, ?, ?, ?)")
      .bind(1, sessionId_)
      .bind(2, a.compileId)
      .bind(3, a.name)
      .bind(4, a.text)
      .bind(5, a.line)
      .run();
  index("artifact", a.compileId + "/" + a.name + "/" + std::to_string(a.line), a.name + "\n" + a.text, false);
  endEvent(a.compileId);
}

void SessionWriter::collective(const session::CollectiveEvent& c) {
  // Outside a compile it commits at once, as output does: a training loop's collectives come
  // between compiles, and an open transaction would also hold back the output that follows.
  bool ownTransaction = !db_->inTransaction();
  beginEvent("collective");
  Stmt(*db_,
       "INSERT INTO collectives (session_id, seq, op, reduce_op, root, backend, bytes, dtype, shape_json, issued_at_ms,"
       " duration_ms, waited_at_ms, rank, world_size, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, sessionId_)
      .bind(2, c.seq)
      .bind(3, c.op)
      .bind(4, c.reduceOp)
      .bind(5, c.root)
      .bind(6, c.backend)
      .bind(7, c.bytes)
      .bind(8, c.dtype)
      .bind(9, int64sToJson(c.shape))
      .bind(10, c.issuedAtMs)
      .bind(11, c.durationMs)
      .bind(12, c.waitedAtMs)
      .bind(13, c.rank)
      .bind(14, c.worldSize)
      .bind(15, c.label)
      .run();
  if (ownTransaction) commit();
}

void SessionWriter::output(const std::string& text) {
  if (sessionId_ == 0) throw StoreError("output reported before sessionStart");
  if (ended_) throw StoreError("output reported after sessionEnd");
  pendingOutput_ += text;
  // Outside a compile the text is committed at once: the driver batches it (a quarter second
  // or 4 KiB), and a run that is killed must keep what it printed.
  if (db_->inTransaction() && pendingOutput_.size() < kOutputFlushBytes) return;
  // Inside a compile's transaction the text commits with it; otherwise it commits now.
  bool ownTransaction = !db_->inTransaction();
  beginEvent("output");
  flushOutput();
  if (ownTransaction) commit();
}

void SessionWriter::compileDone(const std::string& compileId) {
  // Everything pending belongs to it (or to no compile, or to a compile it is nested in, such
  // as DDPOptimizer's submodules): commit it all.
  openCompiles_.erase(compileId);
  lastStage_.erase(compileId);
  std::erase_if(openCompiles_, [](const std::string& k) { return k.rfind(kFramePrefix, 0) == 0; });
  doneCompiles_.insert(compileId);
  beginEvent("compileDone");
  flushOutput();
  commit();
}

void SessionWriter::sessionEnd(const session::SessionEnd& e) {
  if (e.status != "ok" && e.status != "error") throw StoreError("sessionEnd status must be 'ok' or 'error', not '" + e.status + "'");
  if (!e.stopReason.empty() && e.stopReason != "interrupted" && e.stopReason != "timed out" && e.stopReason != "out of memory")
    throw StoreError("sessionEnd stop reason must be interrupted, timed out or out of memory, not '" + e.stopReason + "'");
  beginEvent("sessionEnd");
  flushOutput();
  Stmt(*db_, "UPDATE sessions SET status = ?, error = ?, total_ms = ?, outputs_json = ?, stop_reason = ? WHERE id = ?")
      .bind(1, e.status)
      .bind(2, e.error)
      .bind(3, e.totalMs)
      .bind(4, e.outputsJson)
      .bind(5, e.stopReason)
      .bind(6, sessionId_)
      .run();
  commit();
  ended_ = true;
}

}  // namespace kiln::storage
