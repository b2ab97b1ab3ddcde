#include "engine/driver/explain.h"

#include "engine/ops/op_table.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace kiln::driver {

namespace {
bool isView(const std::string& t) {
  const ops::OpDef* op = ops::findOp(t);
  return op && op->kind == ops::OpKind::View;
}
bool isLibrary(const std::string& t) {
  return t == "aten.mm.default" || t == "aten.addmm.default" || t == "aten.bmm.default" || t == "aten.convolution.default";
}
}  // namespace

void ExplainReport::wrapper(const WrapperEvent& e) {
  static const std::string kPrefix = "# memory plan: ";
  if (e.text.rfind(kPrefix, 0) != 0) return;
  static const std::string kDynamic = "# dynamic shapes: ";
  const size_t second = e.text.find('\n') + 1;
  for (auto& g : graphs_) {
    if (g.compileId != e.compileId) continue;
    g.memoryPlan = e.text.substr(kPrefix.size(), second - 1 - kPrefix.size());
    if (e.text.compare(second, kDynamic.size(), kDynamic) == 0)
      g.dynamicShapes = e.text.substr(second + kDynamic.size(), e.text.find('\n', second) - second - kDynamic.size());
  }
}

void ExplainReport::stage(const StageEvent& e) {
  if (e.stage == "fused") {
    for (auto& g : graphs_) {
      if (g.compileId != e.compileId) continue;
      for (const auto& n : e.graph.nodes) {
        if (!n.isCall()) continue;
        if (!n.kernel.empty()) ++g.generated;
        else if (isView(n.target)) ++g.views;
        else if (isLibrary(n.target)) ++g.library;
        else {
          ++g.fallback;
          g.fallbackOps.push_back(n.target);
        }
      }
    }
    return;
  }
  if (e.stage != "captured") return;
  GraphInfo g;
  g.compileId = e.compileId;
  int frameId = std::stoi(e.compileId.substr(0, e.compileId.find('/')));
  auto f = frames_.find(frameId);
  g.frameName = f == frames_.end() ? e.graph.name : f->second.name;
  g.opCount = e.graph.opCount();
  for (const auto& n : e.graph.nodes)
    if (n.isCall()) g.ops.push_back(n.target);
  g.readable = e.text;
  graphs_.push_back(std::move(g));
}

std::string ExplainReport::json() const {
  nlohmann::ordered_json j;
  j["graph_count"] = graphs_.size();
  nlohmann::ordered_json graphs = nlohmann::ordered_json::array();
  for (const auto& g : graphs_) {
    nlohmann::ordered_json x;
    x["compile_id"] = g.compileId;
    x["frame"] = {{"name", g.frameName}};
    x["op_count"] = g.opCount;
    x["ops"] = g.ops;
    x["readable"] = g.readable;
    x["generated_nodes"] = g.generated;
    x["fallback_nodes"] = g.fallback;
    x["fallback_ops"] = g.fallbackOps;
    x["view_nodes"] = g.views;
    x["library_nodes"] = g.library;
    x["memory_plan"] = g.memoryPlan;
    if (!g.dynamicShapes.empty()) x["dynamic_shapes"] = g.dynamicShapes;
    graphs.push_back(x);
  }
  j["graphs"] = graphs;
  j["graph_break_count"] = breaks_.size();
  nlohmann::ordered_json breaks = nlohmann::ordered_json::array();
  for (const auto& b : breaks_) {
    nlohmann::ordered_json x;
    x["code"] = b.code;
    x["title"] = b.title;
    x["explanation"] = b.explanation;
    x["hints"] = b.hints;
    x["file"] = b.file;
    x["line"] = b.line;
    x["compile_id"] = b.compileId;
    breaks.push_back(x);
  }
  j["graph_breaks"] = breaks;
  j["recompile_count"] = recompiles_.size();
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  // As the recompiles log lists them: one entry per line (reason, then its user stack).
  for (const auto& r : recompiles_) {
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const auto& reason : r.reasons) {
      size_t start = 0;
      while (start <= reason.size()) {
        size_t nl = reason.find('\n', start);
        lines.push_back(reason.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    reasons.push_back(lines);
  }
  j["recompile_reasons"] = reasons;
  nlohmann::ordered_json guards = nlohmann::ordered_json::object();
  for (const auto& c : compiles_) {
    nlohmann::ordered_json gl = nlohmann::ordered_json::array();
    for (const auto& g : c.guards) gl.push_back(g.kind + ": " + g.text);
    guards[c.compileId] = gl;
  }
  j["guards"] = guards;
  // A guard or message may hold a string that is not UTF-8 (Kiln's strings are bytes): such
  // bytes are written as U+FFFD, as kiln run --dump-outputs does, instead of failing.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string ExplainReport::text() const {
  std::ostringstream o;
  o << "Graph Count: " << graphs_.size() << "\n";
  o << "Graph Break Count: " << breaks_.size() << "\n";
  int ops = 0;
  for (const auto& g : graphs_) ops += g.opCount;
  o << "Op Count: " << ops << "\n";
  o << "Recompile Count: " << recompiles_.size() << "\n";
  if (!breaks_.empty()) {
    o << "Break Reasons:\n";
    for (size_t i = 0; i < breaks_.size(); ++i) {
      const auto& b = breaks_[i];
      o << "  Break Reason " << i + 1 << ": [" << b.code << "] " << b.title << "\n    " << b.explanation << "\n";
      for (const auto& h : b.hints) o << "    Hint: " << h << "\n";
      o << "    User Stack:\n";
      for (const auto& s : b.userStack) o << "      <FrameSummary file " << s.file << ", line " << s.line << " in " << s.function << ">\n";
    }
  }
  if (!recompiles_.empty()) {
    o << "Recompiles:\n";
    for (const auto& r : recompiles_) {
      o << "  [" << r.compileId << "] triggered by the following guard failure(s):\n";
      for (const auto& reason : r.reasons) o << "    - " << reason << "\n";
    }
  }
  o << "Ops per Graph:\n";
  for (const auto& g : graphs_) {
    o << "  Ops " << g.compileId << " (" << g.frameName << "): ATen nodes in generated kernels " << g.generated << ", fallbacks "
      << g.fallback << ", BLAS " << g.library << ", views " << g.views << "\n";
    if (!g.memoryPlan.empty()) o << "    memory plan: " << g.memoryPlan << "\n";
    if (!g.dynamicShapes.empty()) o << "    dynamic shapes: " << g.dynamicShapes << "\n";
    for (const auto& op : g.ops) o << "    " << op << "\n";
  }
  return o.str();
}

const std::vector<std::string>& ExplainReport::logNames() {
  static const std::vector<std::string> names = {"graph_breaks", "recompiles", "recompiles_verbose", "guards", "graph_code"};
  return names;
}

std::string ExplainReport::logs(const std::string& names) const {
  auto want = [&](const std::string& n) { return ("," + names + ",").find("," + n + ",") != std::string::npos; };
  std::ostringstream o;
  if (want("graph_breaks"))
    for (const auto& b : breaks_) {
      o << "[" << b.compileId << "] [__graph_breaks] Graph break in user code at " << b.file << ":" << b.line << "\n";
      o << "[" << b.compileId << "] [__graph_breaks] Graph Break Reason: " << b.title << "\n";
      o << "  Explanation: " << b.explanation << "\n";
      for (const auto& h : b.hints) o << "  Hint: " << h << "\n";
      o << "\nUser code traceback:\n";
      for (const auto& s : b.userStack) o << "  File \"" << s.file << "\", line " << s.line << ", in " << s.function << "\n";
    }
  if (want("recompiles") || want("recompiles_verbose"))
    for (const auto& r : recompiles_) {
      // Dynamo's get_and_maybe_log_recompilation_reasons: the function and its def line, then
      // one reason per cache entry, most recent first.
      o << "[" << r.compileId << "] [__recompiles] Recompiling function";
      if (auto f = frames_.find(r.frameId); f != frames_.end())
        o << " " << f->second.name << " in " << f->second.file << ":" << f->second.firstLine;
      o << "\n    triggered by the following guard failure(s):\n";
      for (const auto& reason : r.reasons) o << "    - " << reason << "\n";
    }
  if (want("guards"))
    for (const auto& c : compiles_) {
      o << "[" << c.compileId << "] [__guards] GUARDS:\n";
      for (const auto& g : c.guards) o << "| +- " << g.kind << ": " << g.text << "\n";
    }
  if (want("graph_code"))
    for (const auto& g : graphs_)
      o << "[" << g.compileId << "] [__graph_code] TRACED GRAPH\n ===== __compiled_fn =====\n" << g.readable << "\n";
  return o.str();
}

}  // namespace kiln::driver
