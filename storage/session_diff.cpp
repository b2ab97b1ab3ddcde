#include "storage/session_diff.h"

#include "engine/ir/graph_pairing.h"
#include "engine/ir/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace kiln::storage {

namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string l;
  while (std::getline(is, l)) out.push_back(l);
  return out;
}

struct Side {
  std::map<std::string, std::string> captured;  // compile id -> captured stage text
  std::map<std::string, int> ops;
  std::map<std::string, ir::Graph> graphs;     // compile id -> captured graph
  std::map<std::string, std::string> kernels;  // compile id -> all kernel IR
  std::map<std::string, int> kernelCount;
  std::map<std::string, std::set<std::string>> guards;
  std::map<std::string, std::string> frames;  // compile id -> frame name
};

std::string baseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A captured graph's text as the diff compares it: types without the strides and device that
// PyTorch's logs add (`"f32[5, 9][9, 1]cpu"` reads `"f32[5, 9]"`) and `# File:` paths cut to
// their base name, so an imported PyTorch graph differs from Kiln's capture of the same script
// (run from another folder) only where the graphs do.
std::string comparableGraphText(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (size_t f = line.find("# File: "); f != std::string::npos) {
      size_t at = line.find(" in ", f);
      size_t colon = at == std::string::npos ? std::string::npos : line.rfind(':', at);
      size_t slash = colon == std::string::npos ? std::string::npos : line.rfind('/', colon);
      if (slash != std::string::npos && slash > f) line.erase(f + 8, slash + 1 - (f + 8));
    } else {
      for (size_t q = line.find(": \""); q != std::string::npos; q = line.find(": \"", q + 3)) {
        size_t end = line.find('"', q + 3);
        size_t close = line.find(']', q + 3);
        if (end == std::string::npos || close == std::string::npos || close > end) continue;
        line.erase(close + 1, end - close - 1);  // the strides and device after the sizes
      }
    }
    out += line + "\n";
  }
  return out;
}

Side load(Store& store, int64_t id) {
  Side s;
  std::map<int, std::string> frameNames;
  for (const auto& f : store.frames(id)) frameNames[f.frameId] = f.name;
  for (const auto& c : store.compiles(id)) {
    s.frames[c.compileId] = frameNames[c.frameId];
    for (const auto& g : c.guards) s.guards[c.compileId].insert(g.kind + ": " + g.text);
    for (const auto& st : store.stages(id, c.compileId)) {
      if (st.stage != "captured") continue;
      s.captured[c.compileId] = comparableGraphText(store.stageText(st.id));
      ir::Graph& g = s.graphs[c.compileId] = store.stageGraph(st.id);
      s.ops[c.compileId] = g.opCount();
    }
    for (const auto& k : store.kernels(id, c.compileId)) {
      s.kernels[c.compileId] += k.kernelIr;
      ++s.kernelCount[c.compileId];
    }
  }
  return s;
}

void pairNodes(const ir::Graph& a, const ir::Graph& b, CompileDiff& c) {
  const ir::GraphPairing p = ir::pairGraphs(a, b);
  c.nodesPaired = true;
  for (const auto& q : p.pairs) c.nodePairs.push_back({ir::describeNode(*a.find(q.a)), ir::describeNode(*b.find(q.b)), q.differences});
  for (int id : p.onlyA) c.nodesOnlyA.push_back(ir::describeNode(*a.find(id)));
  for (int id : p.onlyB) c.nodesOnlyB.push_back(ir::describeNode(*b.find(id)));
}

}  // namespace

int CompileDiff::nodePairsDiffering() const {
  return static_cast<int>(std::count_if(nodePairs.begin(), nodePairs.end(), [](const NodePair& p) { return !p.differences.empty(); }));
}

std::string unifiedLineDiff(const std::string& a, const std::string& b, const std::string& renameA, const std::string& renameB) {
  const std::vector<std::string> da = lines(a), db = lines(b);  // what is shown
  std::vector<std::string> ka = da, kb = db;                    // what is compared
  if (!renameA.empty() && renameA != renameB)
    for (auto& l : ka)
      for (size_t p = l.find(renameA); p != std::string::npos; p = l.find(renameA, p + renameB.size()))
        l.replace(p, renameA.size(), renameB);
  const size_t n0 = ka.size(), m0 = kb.size();
  // Trim the common head and tail first: two runs of one script usually differ in a few lines.
  size_t head = 0;
  while (head < n0 && head < m0 && ka[head] == kb[head]) ++head;
  size_t tail = 0;
  while (tail < n0 - head && tail < m0 - head && ka[n0 - 1 - tail] == kb[m0 - 1 - tail]) ++tail;
  if (head == n0 && head == m0) return "";
  std::string out;
  for (size_t k = 0; k < head; ++k) out += "  " + db[k] + "\n";  // equal lines are shown as B has them
  const size_t n = n0 - head - tail, m = m0 - head - tail;
  auto x = [&](size_t i) -> const std::string& { return ka[head + i]; };
  auto y = [&](size_t j) -> const std::string& { return kb[head + j]; };
  if (n * m > 4'000'000) {  // the LCS table is n*m: past a few million cells replace the middle wholesale
    for (size_t i = 0; i < n; ++i) out += "- " + da[head + i] + "\n";
    for (size_t j = 0; j < m; ++j) out += "+ " + db[head + j] + "\n";
  } else {
    std::vector<std::vector<int>> L(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;) L[i][j] = x(i) == y(j) ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x(i) == y(j)) {
        out += "  " + db[head + j] + "\n";
        ++i;
        ++j;
      } else if (i < n && (j == m || L[i + 1][j] >= L[i][j + 1])) {
        out += "- " + da[head + i] + "\n";
        ++i;
      }  // removals first, as diff(1) does
      else {
        out += "+ " + db[head + j] + "\n";
        ++j;
      }
    }
  }
  for (size_t k = m0 - tail; k < m0; ++k) out += "  " + db[k] + "\n";
  return out;
}

SessionDiff diffSessions(Store& store, int64_t a, int64_t b) {
  auto da = store.session(a), db = store.session(b);
  if (!da) throw StoreError("no session " + std::to_string(a) + " in " + store.path());
  if (!db) throw StoreError("no session " + std::to_string(b) + " in " + store.path());
  SessionDiff d;
  d.a = a;
  d.b = b;
  d.scriptA = da->summary.scriptPath;
  d.scriptB = db->summary.scriptPath;
  d.sameScript = da->scriptText == db->scriptText;
  d.graphsA = da->summary.graphCount;
  d.graphsB = db->summary.graphCount;
  d.breaksA = da->summary.breakCount;
  d.breaksB = db->summary.breakCount;
  d.recompilesA = da->summary.recompileCount;
  d.recompilesB = db->summary.recompileCount;
  d.totalMsA = da->summary.totalMs;
  d.totalMsB = db->summary.totalMs;
  // Breaks match by file base name, line and title (an imported run names files by the paths
  // of the machine that recorded it); they are listed with the file as recorded.
  auto breaks = [&](int64_t id) {
    std::multimap<std::string, std::string> s;
    for (const auto& br : store.graphBreaks(id)) {
      std::string rest = ":" + std::to_string(br.line) + " " + br.title;
      s.emplace(baseName(br.file) + rest, br.file + rest);
    }
    return s;
  };
  auto onlyIn = [](const std::multimap<std::string, std::string>& x, const std::multimap<std::string, std::string>& y,
                   std::vector<std::string>& out) {
    std::map<std::string, size_t> seen;
    for (const auto& [key, shown] : x)
      if (++seen[key] > y.count(key)) out.push_back(shown);
  };
  auto ba = breaks(a), bb = breaks(b);
  onlyIn(ba, bb, d.breaksOnlyA);
  onlyIn(bb, ba, d.breaksOnlyB);
  Side sa = load(store, a), sb = load(store, b);
  auto phases = [&](int64_t id) {
    std::map<std::string, std::map<std::string, double>> ms;  // compile id -> phase -> ms
    for (const auto& t : store.timings(id))
      if (!t.compileId.empty()) ms[t.compileId][t.phase] += t.ms;
    return ms;
  };
  auto pa = phases(a), pb = phases(b);
  auto profiles = [&](int64_t id) {
    std::map<std::string, session::ProfileEvent> by;
    for (auto& p : store.profiles(id)) by[p.compileId] = std::move(p);
    return by;
  };
  auto prA = profiles(a), prB = profiles(b);
  std::set<std::string> ids;
  for (const auto& [k, v] : sa.captured) ids.insert(k);
  for (const auto& [k, v] : sb.captured) ids.insert(k);
  for (const auto& cid : ids) {
    CompileDiff c;
    c.compileId = cid;
    c.inA = sa.captured.count(cid) > 0;
    c.inB = sb.captured.count(cid) > 0;
    c.frame = c.inA ? sa.frames[cid] : sb.frames[cid];
    c.opsA = c.inA ? sa.ops[cid] : 0;
    c.opsB = c.inB ? sb.ops[cid] : 0;
    c.kernelsA = sa.kernelCount[cid];
    c.kernelsB = sb.kernelCount[cid];
    if (c.inA && c.inB) {
      // Two copies of one script differ in name only: "# File: a.py:9" vs "# File: b.py:9" is no change.
      c.capturedUnifiedDiff = unifiedLineDiff(sa.captured[cid], sb.captured[cid], baseName(d.scriptA), baseName(d.scriptB));
      c.capturedTextDiffers = !c.capturedUnifiedDiff.empty();
      c.kernelTextDiffers = sa.kernels[cid] != sb.kernels[cid];
      if (c.kernelTextDiffers) c.kernelUnifiedDiff = unifiedLineDiff(sa.kernels[cid], sb.kernels[cid]);
      pairNodes(sa.graphs[cid], sb.graphs[cid], c);
    }
    if (prA.count(cid) && prB.count(cid)) {
      c.profiled = true;
      c.eagerMsA = prA[cid].eagerMs;
      c.eagerMsB = prB[cid].eagerMs;
      c.compiledMsA = prA[cid].compiledMs;
      c.compiledMsB = prB[cid].compiledMs;
    }
    const auto& ga = sa.guards[cid];
    const auto& gb = sb.guards[cid];
    std::set_difference(ga.begin(), ga.end(), gb.begin(), gb.end(), std::back_inserter(c.guardsOnlyA));
    std::set_difference(gb.begin(), gb.end(), ga.begin(), ga.end(), std::back_inserter(c.guardsOnlyB));
    std::set<std::string> seen;
    auto addPhase = [&](const std::string& p) {
      if (!seen.insert(p).second) return;
      c.phaseMs.push_back({p, {pa[cid].count(p) ? pa[cid][p] : 0.0, pb[cid].count(p) ? pb[cid][p] : 0.0}});
    };
    for (const auto& p : session::compilePhases())
      if (pa[cid].count(p) || pb[cid].count(p)) addPhase(p);
    for (const auto& side : {pa[cid], pb[cid]})
      for (const auto& [p, ms] : side) addPhase(p);
    d.compiles.push_back(std::move(c));
  }
  return d;
}

namespace {
constexpr int kKernelDiffLines = 24;
}  // namespace

std::string SessionDiff::text() const {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << "session " << a << " (" << scriptA << ") vs session " << b << " (" << scriptB << ")"
    << (sameScript ? ", same script" : ", different scripts") << "\n";
  o << "  graphs " << graphsA << " -> " << graphsB << ", graph breaks " << breaksA << " -> " << breaksB << ", recompiles " << recompilesA
    << " -> " << recompilesB << ", total " << totalMsA << " ms -> " << totalMsB << " ms\n";
  for (const auto& s : breaksOnlyA) o << "  - break only in " << a << ": " << s << "\n";
  for (const auto& s : breaksOnlyB) o << "  + break only in " << b << ": " << s << "\n";
  for (const auto& c : compiles) {
    o << "[" << c.compileId << "] " << c.frame << ": ";
    if (!c.inA) o << "only in " << b;
    else if (!c.inB) o << "only in " << a;
    else
      o << (c.capturedTextDiffers ? "captured graph differs" : "captured graph equal") << ", ops " << c.opsA << " -> " << c.opsB
        << ", kernels " << c.kernelsA << " -> " << c.kernelsB << (c.kernelTextDiffers ? " (kernel IR differs)" : "");
    o << "\n";
    if (!c.phaseMs.empty()) {
      o << "    compile ms:";
      for (const auto& [p, ms] : c.phaseMs) {
        o << " " << p << " " << ms.first << " -> " << ms.second;
        if (ms.first > 0.05)
          o << " (" << std::showpos << std::setprecision(0) << 100.0 * (ms.second - ms.first) / ms.first << "%" << std::noshowpos
            << std::setprecision(1) << ")";
        o << ";";
      }
      o << "\n";
    }
    if (c.profiled) {
      auto delta = [&](double x, double y) {
        std::ostringstream d;
        d.setf(std::ios::fixed);
        d.precision(3);
        d << x << " -> " << y;
        if (x > 0) d << " (" << std::showpos << std::setprecision(0) << 100.0 * (y - x) / x << "%)";
        return d.str();
      };
      o << "    run ms: compiled " << delta(c.compiledMsA, c.compiledMsB) << "; eager " << delta(c.eagerMsA, c.eagerMsB) << "\n";
    }
    if (c.nodesPaired) {
      o << "    nodes: " << c.nodePairs.size() << " paired by op and source line (" << c.nodePairs.size() - c.nodePairsDiffering()
        << " agree, " << c.nodePairsDiffering() << " differ), " << c.nodesOnlyA.size() << " only in " << a << ", " << c.nodesOnlyB.size()
        << " only in " << b << (c.pairsCompletely() ? ": the same graph node by node" : "") << "\n";
      for (const auto& p : c.nodePairs)
        if (!p.differences.empty()) {
          o << "    ~ node " << p.a << " <-> " << p.b << ":";
          for (size_t i = 0; i < p.differences.size(); ++i) o << (i ? "; " : " ") << p.differences[i];
          o << "\n";
        }
      for (const auto& n : c.nodesOnlyA) o << "    - node only in " << a << ": " << n << "\n";
      for (const auto& n : c.nodesOnlyB) o << "    + node only in " << b << ": " << n << "\n";
    }
    for (const auto& g : c.guardsOnlyA) o << "    - guard " << g << "\n";
    for (const auto& g : c.guardsOnlyB) o << "    + guard " << g << "\n";
    if (c.capturedTextDiffers)
      for (const auto& l : lines(c.capturedUnifiedDiff))
        if (l[0] != ' ') o << "    " << l << "\n";
    if (c.kernelTextDiffers) {
      // The changed kernel lines, at most kKernelDiffLines of them (the JSON has them all).
      int shown = 0, more = 0;
      for (const auto& l : lines(c.kernelUnifiedDiff))
        if (l[0] != ' ') (shown < kKernelDiffLines ? (o << "    kernels " << l << "\n", ++shown) : ++more);
      if (more) o << "    kernels ... " << more << " more changed lines (kiln diff --json)\n";
    }
  }
  return o.str();
}

std::string SessionDiff::json() const {
  nlohmann::ordered_json j;
  j["a"] = a;
  j["b"] = b;
  j["same_script"] = sameScript;
  j["graph_count"] = {graphsA, graphsB};
  j["graph_break_count"] = {breaksA, breaksB};
  j["recompile_count"] = {recompilesA, recompilesB};
  j["total_ms"] = {totalMsA, totalMsB};
  j["breaks_only_a"] = breaksOnlyA;
  j["breaks_only_b"] = breaksOnlyB;
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  for (const auto& c : compiles) {
    nlohmann::ordered_json x;
    x["compile_id"] = c.compileId;
    x["frame"] = c.frame;
    x["in_a"] = c.inA;
    x["in_b"] = c.inB;
    x["op_count"] = {c.opsA, c.opsB};
    x["kernel_count"] = {c.kernelsA, c.kernelsB};
    x["captured_differs"] = c.capturedTextDiffers;
    x["kernels_differ"] = c.kernelTextDiffers;
    nlohmann::ordered_json ph = nlohmann::ordered_json::object();
    for (const auto& [p, ms] : c.phaseMs) ph[p] = {ms.first, ms.second};
    x["compile_ms"] = ph;
    x["guards_only_a"] = c.guardsOnlyA;
    x["guards_only_b"] = c.guardsOnlyB;
    if (c.nodesPaired) {
      nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
      for (const auto& p : c.nodePairs) pairs.push_back({{"a", p.a}, {"b", p.b}, {"differences", p.differences}});
      x["nodes"] = {
          {"complete", c.pairsCompletely()}, {"paired", c.nodePairs.size()}, {"differing", c.nodePairsDiffering()}, {"pairs", pairs},
          {"only_a", c.nodesOnlyA},          {"only_b", c.nodesOnlyB}};
    }
    x["captured_diff"] = c.capturedUnifiedDiff;
    x["kernel_diff"] = c.kernelUnifiedDiff;
    if (c.profiled) { x["run_ms"] = {{"eager", {c.eagerMsA, c.eagerMsB}}, {"compiled", {c.compiledMsA, c.compiledMsB}}}; }
    cs.push_back(x);
  }
  j["compiles"] = cs;
  // Stored text comes from user scripts and may hold invalid UTF-8: replaced, not thrown on.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace kiln::storage
