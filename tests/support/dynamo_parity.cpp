#include "tests/support/dynamo_parity.h"

#include "engine/driver/script_runner.h"
#include "tests/support/outs_compare.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace kiln::test {

nlohmann::json expectedCompiledOuts(const nlohmann::json& oracle, const nlohmann::json& eagerOuts, std::vector<std::string>* unrecorded,
                                    const nlohmann::json& compiledOuts) {
  nlohmann::json outs = eagerOuts;
  if (!oracle.contains("outs")) return outs;
  for (auto it = oracle["outs"].begin(); it != oracle["outs"].end(); ++it) {
    const auto& o = it.value();
    if (o.value("match", true)) continue;
    const nlohmann::json& c = o.contains("compiled") ? o["compiled"] : nlohmann::json();
    if (c.is_null()) {
      outs.erase(it.key());  // the compiled run did not produce it (a shorter list, say)
      continue;
    }
    const std::string kind = c.value("kind", "");
    if (kind == "str") {
      outs[it.key()] = o.contains("compiled_value") ? o["compiled_value"] : c["value"];
    } else if (kind == "int" || kind == "float" || kind == "bool") {
      // A Python scalar: stored like the eager file stores one (a 0-d entry).
      nlohmann::json e;
      e["dtype"] = kind == "bool" ? "bool" : kind == "int" ? "int64" : "float64";
      e["shape"] = nlohmann::json::array();
      e["data"] = nlohmann::json::array({o.contains("compiled_value") ? o["compiled_value"] : c["value"]});
      outs[it.key()] = e;
    } else if (compiledOuts.is_object() && compiledOuts.contains(it.key())) {
      outs[it.key()] = compiledOuts[it.key()];
    } else if (unrecorded) {
      unrecorded->push_back(it.key());
    }
  }
  return outs;
}

std::string normaliseIds(const std::string& guardText) {
  // The id argument ends the call: `, 140100930934096)` followed by `, type=` or the end.
  static const std::regex id(R"((___check_(?:obj|type)_id\(.*?, )\d+\)(?=, type=|$))");
  static const std::regex address(R"(\bat 0x[0-9a-fA-F]+\b)");
  return std::regex_replace(std::regex_replace(guardText, id, "$1<id>)"), address, "at 0x<address>");
}

std::vector<std::string> countDifferences(const driver::ExplainReport& rep, const nlohmann::json& oracle) {
  std::vector<std::string> out;
  auto want = [&](const char* key) { return oracle.value(key, 0); };
  auto differ = [&](const char* what, size_t ours, int theirs) {
    if (static_cast<int>(ours) != theirs) out.push_back(std::string(what) + " " + std::to_string(ours) + " vs " + std::to_string(theirs));
  };
  differ("graph_count", rep.graphs().size(), want("graph_count"));
  differ("graph_break_count", rep.breaks().size(), want("graph_break_count"));
  differ("recompile_count", rep.recompiles().size(), want("recompile_count"));
  // Recompile reasons: the failing guard of every cache entry, per recompile ("0/0: n == 1").
  // The code comments after '#' name library files for guards read inside nn layers, which
  // differ between PyTorch's and Kiln's sources, so they are not compared. Object identities
  // cannot agree between two processes, so they are wildcards (normaliseIds): the number in
  // `___check_obj_id(SRC, N)` / `___check_type_id(SRC, N)` and the hex address of a repr
  // (`<code object f at 0x7f6bca389550, ...>`, `<built-in method sin of type object at 0x...>`).
  // Everything else, the repr after `type=` included, must match.
  auto guardLines = [](const nlohmann::json& records) {
    std::vector<std::vector<std::string>> lines;
    for (const auto& rec : records) {
      std::vector<std::string> one;
      for (const auto& l : rec) {
        std::string s = l.get<std::string>();
        if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) continue;
        s = s.substr(0, s.find(" #"));
        while (!s.empty() && s.back() == ' ') s.pop_back();
        one.push_back(normaliseIds(s));
      }
      lines.push_back(one);
    }
    return lines;
  };
  auto ours = guardLines(nlohmann::json::parse(rep.json())["recompile_reasons"]);
  auto theirs = guardLines(oracle.value("recompile_reasons", nlohmann::json::array()));
  if (ours != theirs) out.push_back("recompile reasons " + nlohmann::json(ours).dump() + " vs " + nlohmann::json(theirs).dump());
  return out;
}

namespace {
// The exception a failed run ended with, and where: "NameError: ... (prog.py, line 12)".
std::string failure(const std::string& s, size_t n = 300) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);)
    if (l.find_first_not_of(' ') != std::string::npos) lines.push_back(l);
  if (lines.empty()) return "(no message)";
  std::string out = lines.back(), where;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->rfind("  File \"", 0) == 0) {
      size_t b = it->rfind('/', it->find("\", line"));
      where = it->substr(b == std::string::npos ? 8 : b + 1);
      break;
    }
  if (!where.empty()) {
    size_t q = where.find('"');
    if (q != std::string::npos) where.erase(q, 1);
    out += " (" + where + ")";
  }
  return out.size() > n ? out.substr(0, n) + "..." : out;
}
}  // namespace

ParityResult checkParity(const std::string& script, const nlohmann::json& oracle, const nlohmann::json& eagerOuts,
                         const nlohmann::json& compiledOuts) {
  ParityResult r;
  {
    session::NullSink sink;
    std::ostringstream out;
    driver::RunOptions ro;
    ro.scriptPath = script;
    ro.eager = true;
    driver::RunResult run = driver::runScript(ro, sink, out);
    r.eager = run.exitCode != 0 ? "run failed: " + failure(run.error) : compareOuts(nlohmann::json::parse(run.outputsJson), eagerOuts);
  }
  driver::ExplainReport rep;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = script;
  driver::RunResult run = driver::runScript(ro, rep, out);
  if (run.exitCode != 0) {
    r.compiled = r.counts = r.compiledVsEager = r.countsWithoutOutputs = "run failed: " + failure(run.error);
    return r;
  }
  const nlohmann::json outs = nlohmann::json::parse(run.outputsJson);
  r.compiled = compareOuts(outs, expectedCompiledOuts(oracle, eagerOuts, &r.unrecorded, compiledOuts));
  r.compiledVsEager = compareOuts(outs, eagerOuts);
  std::vector<std::string> diffs = countDifferences(rep, oracle);
  for (const auto& d : diffs) r.countsWithoutOutputs += (r.countsWithoutOutputs.empty() ? "" : "; ") + d;
  r.counts = r.countsWithoutOutputs;
  if (r.counts.empty() && !r.compiled.empty()) r.counts = "outputs: " + r.compiled;
  return r;
}

}  // namespace kiln::test
