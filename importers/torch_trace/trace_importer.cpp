#include "importers/torch_trace/trace_importer.h"

#include "engine/ir/text.h"
#include "engine/support/error.h"
#include "importers/torch_trace/dynamo_text.h"
#include "importers/torch_trace/inductor_code.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

namespace kiln::importers::torch_trace {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Graph records and the stage each becomes ("" = kept as an artifact: forms that repeat
// another stage, such as before_pre_grad_graph = the Dynamo graph).
const std::map<std::string, std::string> kGraphStages = {{"dynamo_output_graph", "captured"},      {"aot_joint_graph", "aot_joint"},
                                                         {"aot_forward_graph", "aot_forward"},     {"aot_backward_graph", "aot_backward"},
                                                         {"aot_inference_graph", "aot_inference"}, {"after_pre_grad_graph", "pre_grad"},
                                                         {"inductor_post_grad_graph", "post_grad"}};

// Field access that never throws or asserts, whatever the log holds: a missing key or a value of
// another type reads as the default.
const json& at(const json& o, const char* key) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}
std::string str(const json& o, const char* key, const std::string& dflt = "") {
  const json& v = at(o, key);
  return v.is_string() ? v.get<std::string>() : dflt;
}
int64_t integer(const json& o, const char* key, int64_t dflt = 0) {
  const json& v = at(o, key);
  return v.is_number_integer() ? v.get<int64_t>() : dflt;
}
double number(const json& o, const char* key, double dflt) {
  const json& v = at(o, key);
  return v.is_number() ? v.get<double>() : dflt;
}
int clampInt(int64_t v) { return static_cast<int>(std::clamp<int64_t>(v, -1000000000, 1000000000)); }

struct PendingStage {
  std::string name;
  int attempt = 0;
  std::string text;
  int line = 0;
  ir::Graph graph;         // parsed once, when the record is read
  std::string parseError;  // "" when it parsed
};

// Everything of one compile id, held until its compilation_metrics record (or the log's end)
// so that a restarted attempt's stages can be named as such and the compile stored whole.
struct CompileState {
  std::string id;
  int frameId = 0, compileIndex = 0, attempt = 0;
  int firstLine = 0;
  bool graphInLastAttempt = false;
  std::vector<PendingStage> stages;
  std::vector<session::KernelEvent> kernels;
  std::string wrapper;
  int postGrads = 0, outputCodes = 0;
  bool sawBackward = false;
  ir::Graph lastPostGrad;  // for tying kernels to nodes
  ir::Graph lastPreGrad;   // the graph Inductor's "source nodes" name (pre-grad, else Dynamo's)
  std::vector<session::Guard> guards;
  std::vector<session::GraphBreakEvent> breaks;
  std::set<std::string> breakKeys;
  std::vector<session::RecompileEvent> recompiles;
  std::vector<session::ArtifactEvent> artifacts;
  std::string stack;  // the user stack of dynamo_start, resolved
  json metrics;
  // Stored already (its compilation_metrics came): what follows is AOTAutograd's lazily
  // compiled backward, stored when bwd_compilation_metrics (or the log's end) comes.
  bool finished = false;
  int nextOrder = 0;
  size_t wrapperSent = 0;
  bool hasPending() const { return !stages.empty() || !kernels.empty() || !artifacts.empty() || !breaks.empty(); }
};

class SessionImport {
 public:
  SessionImport(std::string log, int64_t pid, const SinkFactory& sinks, const ImportOptions& opts)
      : log_(std::move(log)), pid_(pid), sinks_(sinks), opts_(opts) {
    stats_.log = log_;
    stats_.pid = pid_;
  }

  void add(Record& r) {
    if (r.key == "str") return intern(r);
    if (r.key == "chromium_event") return chromium(r);
    const std::string cid = compileIdOf(r.value);
    if (r.key == "dynamo_start") return dynamoStart(r, cid);
    CompileState* c = cid.empty() ? nullptr : findCompile(cid);
    if (!c && !cid.empty()) c = &compileFor(r, cid);  // a record of a compile whose start is missing
    // Dynamo logs dynamo_start once per compile id; a restarted analysis shows only as a higher
    // `attempt` on the records that follow.
    if (c && attemptOf(r.value) > c->attempt) {
      c->attempt = attemptOf(r.value);
      c->graphInLastAttempt = false;
    }
    std::string name = r.key;
    if (r.key == "artifact") name = str(at(r.value, "artifact"), "name", name);
    if (c && kGraphStages.count(name)) return graph(*c, r, name);
    if (c && name == "inductor_output_code") return outputCode(*c, r);
    if (c && name == "dynamo_cpp_guards_str") {
      c->guards = parseGuardTree(r.payload);
      return;
    }
    if (c && name == "dynamo_graph_break_reason") return graphBreak(*c, r);
    if (c && name == "recompile_reasons") return recompile(*c, r);
    if (c && name == "compilation_metrics") {
      c->metrics = at(r.value, "compilation_metrics");
      return finish(*c, false);
    }
    if (c && c->finished && name == "bwd_compilation_metrics") {
      artifact(c, name, r);
      return finish(*c, false);
    }
    artifact(c, name, r);
  }

  void problem(int line, const std::string& message) {
    pendingArtifacts_.push_back({"", "import problem", "line " + std::to_string(line) + ": " + message, line});
  }

  ImportedSession end() {
    // Compiles still open: the log ended before Dynamo finished them.
    for (auto& [id, c] : compiles_)
      if (!c->finished || c->hasPending()) finish(*c, !c->finished);
    start();
    if (!chromium_.empty()) {
      json j = json::object();
      for (const auto& [key, ms] : chromium_) j[key.first][key.second] = ms;
      emitArtifact({"", "chromium_events (total ms per compile id and event)", j.dump(1), 0});
    }
    for (auto& a : pendingArtifacts_) emitArtifact(a);
    pendingArtifacts_.clear();
    session::SessionEnd e;
    e.status = "ok";
    if (firstTs_ > 0) e.totalMs = (lastTs_ - firstTs_) / 1000.0;
    sink_->sessionEnd(e);
    return stats_;
  }

 private:
  static std::string compileIdOf(const json& v) {
    if (!v.contains("frame_id") || !v.contains("frame_compile_id")) return "";
    const json& f = at(v, "frame_id");
    const json& c = at(v, "frame_compile_id");
    if (!f.is_number_integer() || !c.is_number_integer()) return "";
    return std::to_string(clampInt(f.get<int64_t>())) + "/" + std::to_string(clampInt(c.get<int64_t>()));
  }
  static int attemptOf(const json& v) { return clampInt(integer(v, "attempt", 0)); }

  std::string mapPath(const std::string& original) const {
    std::error_code ec;
    if (original.empty() || fs::exists(original, ec)) return original;
    fs::path p(original);
    for (const auto& root : opts_.sourceRoots) {
      // The longest suffix of the recorded path that exists under the root.
      std::vector<fs::path> parts(p.begin(), p.end());
      for (size_t i = 0; i < parts.size(); ++i) {
        fs::path candidate(root);
        for (size_t k = i; k < parts.size(); ++k)
          if (parts[k] != "/") candidate /= parts[k];
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
      }
    }
    return original;
  }

  std::string fileOf(const json& index) const {
    if (index.is_number_integer()) {
      auto it = strings_.find(index.get<int64_t>());
      return it == strings_.end() ? "<interned file " + std::to_string(index.get<int64_t>()) + ">" : mapPath(it->second);
    }
    return index.is_string() ? mapPath(index.get<std::string>()) : "";
  }

  void intern(const Record& r) {
    const json& v = at(r.value, "str");
    if (v.is_array() && v.size() == 2 && v[0].is_string() && v[1].is_number_integer())
      strings_[v[1].get<int64_t>()] = v[0].get<std::string>();
    else problem(r.line, "a 'str' record that is not [text, index]");
  }

  void chromium(const Record& r) {
    json e = json::parse(r.payload, nullptr, false);
    if (e.is_discarded() || !e.is_object()) return problem(r.line, "a chromium_event whose payload is not JSON");
    std::string name = str(e, "name");
    std::string cid = str(at(e, "args"), "compile_id");
    std::string ph = str(e, "ph");
    double ts = number(e, "ts", 0.0);
    if (ts > 0) {  // microseconds since the epoch: when the session ran
      firstTs_ = firstTs_ > 0 ? std::min(firstTs_, ts) : ts;
      lastTs_ = std::max(lastTs_, ts);
    }
    if (ph == "B") {
      open_[{cid, name}].push_back(ts);
    } else if (ph == "E") {
      auto it = open_.find({cid, name});
      // An end without its begin (other forms put the compile id on only one of them).
      if (it == open_.end() && !cid.empty()) it = open_.find({"", name});
      if (it == open_.end() || it->second.empty()) return;
      double start = it->second.back();
      it->second.pop_back();
      chromium_[{it->first.first.empty() ? cid : it->first.first, name}] += (ts - start) / 1000.0;
    } else if (ph == "X" && at(e, "dur").is_number()) {
      chromium_[{cid, name}] += number(e, "dur", 0.0) / 1000.0;
    }
  }

  CompileState* findCompile(const std::string& cid) {
    auto it = compiles_.find(cid);
    return it == compiles_.end() ? nullptr : it->second.get();
  }

  CompileState& compileFor(const Record& r, const std::string& cid) {
    auto& slot = compiles_[cid];
    if (!slot) {
      slot = std::make_unique<CompileState>();
      slot->id = cid;
      slot->frameId = clampInt(integer(r.value, "frame_id"));
      slot->compileIndex = clampInt(integer(r.value, "frame_compile_id"));
      slot->firstLine = r.line;
    }
    return *slot;
  }

  void dynamoStart(const Record& r, const std::string& cid) {
    if (cid.empty()) return problem(r.line, "dynamo_start without frame_id / frame_compile_id");
    CompileState& c = compileFor(r, cid);
    int attempt = attemptOf(r.value);
    if (attempt > c.attempt) {
      c.attempt = attempt;
      c.graphInLastAttempt = false;
    }
    const json& stack = at(at(r.value, "dynamo_start"), "stack");
    if (!stack.is_array() || stack.empty()) return;
    std::ostringstream text;
    for (const auto& f : stack)
      if (f.is_object())
        text << "  File \"" << fileOf(at(f, "filename")) << "\", line " << integer(f, "line") << ", in " << str(f, "name") << "\n"
             << (at(f, "loc").is_string() ? "    " + str(f, "loc") + "\n" : "");
    c.stack = text.str();
    // The frame being compiled is the last entry of the stack.
    const json& top = stack.back();
    if (!top.is_object()) return;
    session::FrameEvent fe;
    fe.frameId = c.frameId;
    fe.name = str(top, "name", "?");
    fe.file = fileOf(at(top, "filename"));
    fe.firstLine = clampInt(integer(top, "line"));
    fe.kind = fe.name.rfind("torch_dynamo_resume_in_", 0) == 0 ? "resume" : "function";
    if (scriptPath_.empty()) {
      // The user's script: the innermost frame of the stack outside PyTorch and installed
      // packages (a compiled nn.Module's frame is PyTorch's own wrapper).
      for (auto it = stack.rbegin(); it != stack.rend() && scriptPath_.empty(); ++it) {
        if (!it->is_object()) continue;
        std::string f = fileOf(at(*it, "filename"));
        if (f.find("site-packages/") == std::string::npos && f.find("dist-packages/") == std::string::npos &&
            f.find("/torch/") == std::string::npos && f.rfind("<", 0) != 0)
          scriptPath_ = f;
      }
      if (scriptPath_.empty()) scriptPath_ = fe.file;
    }
    if (!frames_.count(fe.frameId)) {
      fe.source = functionSource(fe.file, fe.firstLine);
      frames_[fe.frameId] = fe;
    }
  }

  // The function's source: from its first line to the end of its indented block.
  static std::string functionSource(const std::string& file, int firstLine) {
    std::ifstream in(file);
    if (!in || firstLine <= 0) return "";
    std::string line, out;
    int n = 0;
    size_t indent = std::string::npos;
    while (std::getline(in, line) && out.size() < (1u << 20)) {
      if (++n < firstLine) continue;
      size_t ind = line.find_first_not_of(" \t");
      if (indent == std::string::npos) {
        if (ind == std::string::npos) continue;
        if (line.compare(ind, 1, "@") != 0) indent = ind;  // decorators precede the def
      } else if (ind != std::string::npos && ind <= indent && line.compare(ind, 1, "#") != 0 && line.compare(ind, 1, ")") != 0) {
        break;
      }
      out += line + "\n";
    }
    return out;
  }

  void graph(CompileState& c, const Record& r, const std::string& name) {
    PendingStage st{kGraphStages.at(name), attemptOf(r.value), r.payload, r.line, {}, {}};
    try {
      st.graph = ir::parseGraph(r.payload, log_);
      for (auto& n : st.graph.nodes)
        if (!n.prov.loc.file.empty()) n.prov.loc.file = mapPath(n.prov.loc.file);
    } catch (const ParseError& err) {
      st.parseError =
          "line " + std::to_string(r.line + err.where().line) + ": the " + st.name + " graph did not parse (kept as text): " + err.what();
    }
    if (st.name == "captured" && st.attempt >= c.attempt) c.graphInLastAttempt = true;
    if (st.name == "captured" || st.name == "pre_grad") c.lastPreGrad = st.graph;
    if (st.name == "aot_backward") c.sawBackward = true;
    if (st.name == "post_grad") {
      ++c.postGrads;
      if (c.sawBackward) st.name = c.postGrads == 1 ? "post_grad:forward" : "post_grad:backward";
      c.lastPostGrad = st.graph;
    }
    c.stages.push_back(std::move(st));
  }

  void outputCode(CompileState& c, const Record& r) {
    ++c.outputCodes;
    std::string which = c.sawBackward ? (c.outputCodes == 1 ? "forward" : "backward") : "";
    c.wrapper += (c.wrapper.empty() ? "" : "\n\n") + std::string("# ---- Inductor output code") +
                 (which.empty() ? "" : " (" + which + ")") + ", log line " + std::to_string(r.line) + " ----\n" + r.payload;
    std::map<std::string, const ir::Node*> byName;
    for (const auto& n : c.lastPostGrad.nodes) byName[n.name] = &n;
    for (auto& k : inductorKernels(r.payload)) {
      session::KernelEvent e;
      e.compileId = c.id;
      e.name = which.empty() ? k.name : k.name + " (" + which + ")";
      e.kind = k.kind;
      e.source = k.source;
      std::set<int> lines;
      for (const auto& n : k.atenNodes) {
        auto it = byName.find(n);
        if (it == byName.end()) continue;
        e.nodeIds.push_back(it->second->id);
        if (it->second->prov.loc.line > 0) lines.insert(it->second->prov.loc.line);
      }
      // Without an ATen mapping (C++ kernels), the lines of the source nodes.
      if (lines.empty())
        for (const auto& n : k.sourceNodes)
          for (const auto& node : c.lastPreGrad.nodes)
            if (node.name == n && node.prov.loc.line > 0) lines.insert(node.prov.loc.line);
      e.sourceLines.assign(lines.begin(), lines.end());
      c.kernels.push_back(std::move(e));
    }
  }

  void graphBreak(CompileState& c, const Record& r) {
    session::GraphBreakEvent b = parseGraphBreak(r.payload, [this](const std::string& p) { return mapPath(p); });
    b.frameId = c.frameId;
    b.compileId = c.id;
    // A restarted attempt logs the same break again: one per (file, line, reason), as PyTorch
    // counts them.
    std::string key = b.file + ":" + std::to_string(b.line) + ":" + b.title;
    if (c.breakKeys.insert(key).second) c.breaks.push_back(std::move(b));
  }

  void recompile(CompileState& c, const Record& r) {
    session::RecompileEvent e;
    e.frameId = c.frameId;
    e.compileId = c.id;
    e.reasons = parseRecompileReasons(r.payload);
    e.lines.assign(e.reasons.size(), 0);
    if (e.reasons.empty()) return problem(r.line, "recompile_reasons with no reason in it");
    c.recompiles.push_back(std::move(e));
  }

  void artifact(CompileState* c, const std::string& name, const Record& r) {
    json v = r.value;
    for (const char* k : {"frame_id", "frame_compile_id", "attempt", "has_payload"}) v.erase(k);
    session::ArtifactEvent a{c ? c->id : "", name, v.dump(), r.line};
    if (!r.payload.empty()) a.text += "\n" + r.payload;
    if (c) c->artifacts.push_back(std::move(a));
    else pendingArtifacts_.push_back(std::move(a));
  }

  void start() {
    if (sink_) return;
    sink_ = &sinks_(log_, pid_);
    session::SessionStart s;
    s.scriptPath = scriptPath_.empty() ? log_ : scriptPath_;
    std::ifstream in(s.scriptPath);
    if (!scriptPath_.empty() && in) {
      std::ostringstream text;
      text << in.rdbuf();
      s.scriptText = text.str().substr(0, 8u << 20);
    }
    json opts = {{"imported", "TORCH_TRACE"}, {"log", log_}, {"pid", pid_}};
    s.optionsJson = opts.dump();
    s.engineVersion = "PyTorch (imported from TORCH_TRACE)";
    s.startedAtMs = static_cast<int64_t>(firstTs_ / 1000.0);
    sink_->sessionStart(s);
    stats_.scriptPath = s.scriptPath;
  }

  void emitArtifact(const session::ArtifactEvent& a) {
    sink_->artifact(a);
    ++stats_.artifacts;
  }

  void finish(CompileState& c, bool truncated) {
    start();
    if (c.finished) return flushLate(c);
    if (auto f = frames_.find(c.frameId); f != frames_.end() && !emittedFrames_.count(c.frameId)) {
      sink_->frame(f->second);
      emittedFrames_.insert(c.frameId);
      ++stats_.frames;
    }
    for (const auto& r : c.recompiles) {
      sink_->recompile(r);
      ++stats_.recompiles;
    }
    session::CompileEvent ce;
    ce.compileId = c.id;
    ce.frameId = c.frameId;
    ce.compileIndex = c.compileIndex;
    ce.backend = "inductor";
    ce.guards = c.guards;
    const json& m = c.metrics;
    std::vector<std::string> restarts;
    if (at(m, "restart_reasons").is_array())
      for (const auto& x : at(m, "restart_reasons"))
        if (x.is_string()) restarts.push_back(x.get<std::string>().substr(0, x.get<std::string>().find('\n')));
    if (truncated) {
      ce.status = "failed";
      ce.message = "the log ends before this compile finished (the process stopped or the log is cut)";
    } else if (!str(m, "fail_type").empty()) {
      ce.status = "failed";
      ce.message = str(m, "fail_type") + ": " + str(m, "fail_reason").substr(0, str(m, "fail_reason").find('\n'));
      // Where it failed, as Dynamo's compilation metrics record it (the studio marks the line).
      ce.file = str(m, "fail_user_frame_filename");
      ce.line = static_cast<int>(number(m, "fail_user_frame_lineno", 0));
      ce.detail = str(m, "fail_reason");
    } else if (c.graphInLastAttempt) {
      ce.status = "ok";
    } else {
      ce.status = "skipped";
      ce.message = "no graph: Dynamo compiled nothing for this frame";
    }
    if (!restarts.empty() || c.attempt > 0) {
      std::string why;
      for (const auto& r : restarts) why += (why.empty() ? "" : "; ") + r;
      ce.message += std::string(ce.message.empty() ? "" : "; ") + "restarted " + std::to_string(c.attempt) +
                    (c.attempt == 1 ? " time" : " times") + (why.empty() ? "" : ": " + why);
    }
    sink_->compile(ce);
    ++stats_.compiles;
    if (ce.status == "ok") ++stats_.graphs;
    flushStages(c);
    for (const auto& b : c.breaks) {
      sink_->graphBreak(b);
      ++stats_.breaks;
    }
    auto seconds = [&](const char* k) { return number(m, k, -1.0); };
    // Kiln's phase names for PyTorch's times: Dynamo's tracing is capture, AOTAutograd lower,
    // Inductor before code generation passes, code generation codegen.
    double frame = seconds("entire_frame_compile_time_s"), backend = seconds("backend_compile_time_s");
    double inductor = seconds("inductor_compile_time_s"), codegen = seconds("code_gen_time_s");
    if (frame >= 0) sink_->timing({c.id, "capture", 1000.0 * (frame - std::max(0.0, backend))});
    if (backend >= 0) sink_->timing({c.id, "lower", 1000.0 * (backend - std::max(0.0, inductor))});
    if (inductor >= 0) sink_->timing({c.id, "passes", 1000.0 * (inductor - std::max(0.0, codegen))});
    if (codegen >= 0) sink_->timing({c.id, "codegen", 1000.0 * codegen});
    if (!c.stack.empty()) emitArtifact({c.id, "stack (dynamo_start)", c.stack, c.firstLine});
    if (m.is_object()) emitArtifact({c.id, "compilation_metrics", m.dump(1), 0});
    flushArtifacts(c);
    sink_->compileDone(c.id);
    c.finished = true;
    c.metrics = json();
    c.guards.clear();
    c.recompiles.clear();
    c.breaks.clear();
  }

  // What came for a compile after it was stored (the lazily compiled backward).
  void flushLate(CompileState& c) {
    flushStages(c);
    for (const auto& b : c.breaks) {
      sink_->graphBreak(b);
      ++stats_.breaks;
    }
    c.breaks.clear();
    flushArtifacts(c);
    sink_->compileDone(c.id);
  }

  void flushArtifacts(CompileState& c) {
    for (const auto& a : c.artifacts) emitArtifact(a);
    c.artifacts.clear();
  }

  // The compile's stages, kernels and output code received since the last flush.
  void flushStages(CompileState& c) {
    for (auto& s : c.stages) {
      session::StageEvent e;
      e.compileId = c.id;
      e.stage = s.attempt < c.attempt ? "restarted attempt " + std::to_string(s.attempt) + ": " + s.name : s.name;
      e.order = c.nextOrder++;
      e.text = std::move(s.text);
      e.graph = std::move(s.graph);
      if (!s.parseError.empty()) {
        // Kept as text: the stage reads in the text view; the problem is listed.
        c.artifacts.push_back({c.id, "import problem", s.parseError, s.line});
        ++stats_.stagesUnparsed;
      }
      sink_->stage(e);
      ++stats_.stages;
    }
    c.stages.clear();
    for (const auto& k : c.kernels) {
      sink_->kernel(k);
      ++stats_.kernels;
    }
    c.kernels.clear();
    if (!c.wrapper.empty() && c.wrapper.size() != c.wrapperSent) {
      sink_->wrapper({c.id, c.wrapper});  // the whole text again: a wrapper event replaces the last
      c.wrapperSent = c.wrapper.size();
    }
  }

  std::string log_;
  int64_t pid_;
  const SinkFactory& sinks_;
  const ImportOptions& opts_;
  session::SessionSink* sink_ = nullptr;
  ImportedSession stats_;
  std::string scriptPath_;
  std::map<int64_t, std::string> strings_;
  std::map<int, session::FrameEvent> frames_;
  std::set<int> emittedFrames_;
  std::map<std::string, std::unique_ptr<CompileState>> compiles_;
  std::vector<session::ArtifactEvent> pendingArtifacts_;
  std::map<std::pair<std::string, std::string>, std::vector<double>> open_;
  std::map<std::pair<std::string, std::string>, double> chromium_;
  double firstTs_ = 0.0, lastTs_ = 0.0;
};

}  // namespace

std::vector<std::string> logFilesOf(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::runtime_error("'" + path + "' does not exist");
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    std::string n = e.path().filename().string();
    auto ends = [&](const std::string& s) { return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0; };
    if (e.is_regular_file(ec) && (ends(".log") || ends(".log.gz"))) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) throw std::runtime_error("'" + path + "' holds no TORCH_TRACE log (*.log or *.log.gz)");
  return out;
}

ImportReport importTorchTrace(const std::vector<std::string>& paths, const SinkFactory& sinks, const ImportOptions& options) {
  std::vector<std::string> logs;
  for (const auto& p : paths)
    for (auto& f : logFilesOf(p)) logs.push_back(std::move(f));
  uint64_t total = 0, before = 0;
  for (const auto& l : logs) {
    std::error_code ec;
    total += fs::file_size(l, ec);
  }
  ImportReport report;
  for (const auto& log : logs) {
    RecordReader reader(log);
    std::map<int64_t, std::unique_ptr<SessionImport>> byPid;
    std::vector<int64_t> order;
    size_t problemsSeen = 0;
    Record r;
    int lastPercent = -1;
    while (reader.next(r)) {
      ++report.records;
      auto& s = byPid[r.pid];
      if (!s) {
        s = std::make_unique<SessionImport>(log, r.pid, sinks, options);
        order.push_back(r.pid);
      }
      // Problems met while reading belong to the process being read.
      for (; problemsSeen < reader.problems().size(); ++problemsSeen)
        s->problem(reader.problems()[problemsSeen].line, reader.problems()[problemsSeen].message);
      s->add(r);
      if (options.progress && total > 0) {
        int percent = static_cast<int>(100.0 * static_cast<double>(before + reader.bytesRead()) / static_cast<double>(total));
        if (percent != lastPercent) options.progress(std::min(percent, 100), log);
        lastPercent = percent;
      }
    }
    if (byPid.empty()) {
      // Nothing readable at all: still a session, holding the problems, so none is lost.
      byPid[0] = std::make_unique<SessionImport>(log, 0, sinks, options);
      order.push_back(0);
    }
    for (; problemsSeen < reader.problems().size(); ++problemsSeen)
      byPid[order.back()]->problem(reader.problems()[problemsSeen].line, reader.problems()[problemsSeen].message);
    if (reader.problemCount() > static_cast<int>(reader.problems().size()))
      byPid[order.back()]->problem(0, std::to_string(reader.problemCount() - reader.problems().size()) + " more problems not listed");
    for (int64_t pid : order) report.sessions.push_back(byPid[pid]->end());
    report.problemCount += reader.problemCount();
    for (const auto& p : reader.problems())
      if (report.problems.size() < 100) report.problems.push_back({p.line, log + ": " + p.message});
    std::error_code ec;
    before += fs::file_size(log, ec);
  }
  if (options.progress) options.progress(100, "done");
  return report;
}

bool recognises(const std::string& path) {
  std::error_code ec;
  auto ends = [&](const std::string& suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      const std::string n = e.path().filename().string();
      if (e.is_regular_file(ec) &&
          ((n.size() > 4 && n.compare(n.size() - 4, 4, ".log") == 0) || (n.size() > 7 && n.compare(n.size() - 7, 7, ".log.gz") == 0)))
        return true;
    }
    return false;
  }
  if (!fs::is_regular_file(path, ec)) return false;
  if (ends(".log") || ends(".log.gz")) return true;
  // glog's prefix: level letter, MMDD, a space, HH:MM:SS.micros
  std::ifstream f(path, std::ios::binary);
  char head[22] = {};
  f.read(head, sizeof head);
  if (f.gcount() < static_cast<std::streamsize>(sizeof head)) return false;
  const std::string h(head, sizeof head);
  auto digits = [&](size_t from, size_t n) {
    for (size_t i = from; i < from + n; ++i)
      if (h[i] < '0' || h[i] > '9') return false;
    return true;
  };
  return std::string("VIWEF").find(h[0]) != std::string::npos && digits(1, 4) && h[5] == ' ' && digits(6, 2) && h[8] == ':' &&
         digits(9, 2) && h[11] == ':' && digits(12, 2) && h[14] == '.' && digits(15, 6);
}

Importer importer() {
  Importer i;
  i.name = "torch_trace";
  i.description = "PyTorch's structured compile log (TORCH_TRACE=DIR, the input of tlparse): *.log or *.log.gz files or a folder of them";
  i.recognises = recognises;
  i.check = [](const std::string& path) { logFilesOf(path); };
  i.run = importTorchTrace;
  return i;
}

}  // namespace kiln::importers::torch_trace
