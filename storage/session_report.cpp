#include "storage/session_report.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kiln::storage {

namespace {

namespace fs = std::filesystem;

// dot's layout grows worse than linearly and a page of thousands of boxes cannot be read anyway.
constexpr size_t kMaxSvgNodes = kReportMaxSvgNodes;

std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fmtMs(double ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(ms < 10 ? 3 : 1) << ms << " ms";
  return s.str();
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// The full path of `dot` when Graphviz is on PATH, else "".
std::string findDot() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / "dot";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

// Runs `dot -Tsvg` on `dotText` (through temporary files, so no pipe can deadlock); returns the
// <svg> element, or "" with `why` set.
std::string runDot(const std::string& dotExe, const std::string& dotText, std::string& why) {
  char tmpl[] = "/tmp/kiln-report-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    why = std::string("no temporary folder: ") + std::strerror(errno);
    return "";
  }
  const fs::path dir = tmpl, in = dir / "graph.dot", out = dir / "graph.svg", err = dir / "err.txt";
  {
    std::ofstream f(in);
    f << dotText;
  }
  std::vector<std::string> argv = {dotExe, "-Tsvg", in.string(), "-o", out.string()};
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  std::string svg;
  if (posix_spawn(&pid, dotExe.c_str(), &files, nullptr, cargv.data(), environ) != 0) {
    why = "could not start " + dotExe;
  } else {
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::ifstream f(out);
    std::stringstream ss;
    ss << f.rdbuf();
    svg = ss.str();
    const size_t at = svg.find("<svg");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || at == std::string::npos) {
      std::ifstream e(err);
      std::stringstream es;
      es << e.rdbuf();
      why = "dot failed: " + es.str().substr(0, 300);
      svg.clear();
    } else {
      svg = svg.substr(at);  // drop the XML prolog and doctype: the element goes inline
    }
  }
  posix_spawn_file_actions_destroy(&files);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return svg;
}

std::string dotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void collectRefs(const ir::Arg& a, std::vector<int>& refs) {
  if (a.kind == ir::Arg::Kind::Node) refs.push_back(a.node);
  for (const auto& e : a.list) collectRefs(e, refs);
}

// DOT for a graph: one box per node (its name and op), an edge per data-flow use. Cut at
// kMaxSvgNodes nodes; `cut` says how many were left out.
std::string graphDot(const ir::Graph& g, size_t& cut) {
  std::ostringstream d;
  d << "digraph G {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10, style=filled, fillcolor=\"#f4f4f4\"];\n";
  const size_t n = std::min(g.nodes.size(), kMaxSvgNodes);
  cut = g.nodes.size() - n;
  std::map<int, bool> shown;
  for (size_t i = 0; i < n; ++i) {
    const ir::Node& node = g.nodes[i];
    shown[node.id] = true;
    std::string op = node.kind == ir::NodeKind::Placeholder ? "input"
                     : node.kind == ir::NodeKind::Output    ? "output"
                     : node.kind == ir::NodeKind::GetAttr   ? "get_attr " + node.target
                                                            : node.target;
    std::string fill = node.kind == ir::NodeKind::Placeholder ? "#dbeafe" : node.kind == ir::NodeKind::Output ? "#dcfce7" : "#f4f4f4";
    d << "  n" << node.id << " [label=" << dotQuote(node.name + "\n" + op + (node.kernel.empty() ? "" : "\n[" + node.kernel + "]"))
      << ", fillcolor=\"" << fill << "\"];\n";
  }
  for (size_t i = 0; i < n; ++i) {
    const ir::Node& node = g.nodes[i];
    std::vector<int> refs;
    for (const auto& a : node.args) collectRefs(a, refs);
    for (const auto& [k, a] : node.kwargs) collectRefs(a, refs);
    for (int r : refs)
      if (shown.count(r)) d << "  n" << r << " -> n" << node.id << ";\n";
  }
  d << "}\n";
  return d.str();
}

const char* kStyle = R"(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;color:#1f2328}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}h3{font-size:1.05em}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.6em;overflow:auto;font-size:12px;line-height:1.35}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
.failed{color:#b91c1c}.failed pre{border-color:#fca5a5;background:#fef2f2}.box{border:1px solid #ddd;padding:.4em .8em;margin:.6em 0}
.break{border-left:4px solid #f59e0b}.recompile{border-left:4px solid #6366f1}.bad{border-left:4px solid #dc2626}
.hit{background:#fde68a}.muted{color:#666}.svg{overflow:auto;border:1px solid #ddd}code{font-size:12px}
details summary{cursor:pointer}nav a{margin-right:.8em}
</style>
)";

struct SourceFinder {
  const SessionDetail& s;
  const std::vector<FrameRow>& frames;
  // Lines around `line` of `file` (the script, or a frame's recorded source), the line marked.
  std::string excerpt(const std::string& file, int line) const {
    if (line <= 0) return "";
    std::vector<std::string> lines;
    int first = 1;
    auto sameFile = [](const std::string& a, const std::string& b) {
      return !a.empty() && !b.empty() && (a == b || fs::path(a).filename() == fs::path(b).filename());
    };
    if (sameFile(file, s.summary.scriptPath) && !s.scriptText.empty()) {
      lines = splitLines(s.scriptText);
    } else {
      for (const auto& f : frames)
        if (sameFile(file, f.file) && !f.source.empty() && line >= f.firstLine) {
          lines = splitLines(f.source);
          first = f.firstLine;
          break;
        }
    }
    const int at = line - first;
    if (at < 0 || at >= static_cast<int>(lines.size())) return "";
    std::ostringstream o;
    o << "<pre>";
    for (int i = std::max(0, at - 2); i <= std::min(static_cast<int>(lines.size()) - 1, at + 2); ++i) {
      const std::string row = std::to_string(i + first) + "  " + lines[static_cast<size_t>(i)];
      o << (i == at ? "<span class=\"hit\">" + esc(row) + "</span>" : esc(row)) << "\n";
    }
    o << "</pre>\n";
    return o.str();
  }
};

std::string where(const std::string& file, int line) {
  if (file.empty() && line <= 0) return "";
  return file + (line > 0 ? ":" + std::to_string(line) : "");
}

}  // namespace

std::string sessionReportHtml(Store& store, int64_t id) {
  auto s = store.session(id);
  if (!s) throw StoreError("no session " + std::to_string(id) + " in " + store.path());
  const auto frames = store.frames(id);
  const auto compiles = store.compiles(id);
  const auto breaks = store.graphBreaks(id);
  const auto recompiles = store.recompiles(id);
  const auto timings = store.timings(id);
  const auto profiles = store.profiles(id);
  const SourceFinder src{*s, frames};
  const std::string dotExe = findDot();
  const auto& sum = s->summary;

  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Kiln session " << id << ": "
    << esc(sum.name.empty() ? sum.scriptPath : sum.name) << "</title>\n"
    << kStyle << "</head><body>\n";
  h << "<h1>Kiln session " << id << ": " << esc(sum.scriptPath) << "</h1>\n<table>\n";
  auto row = [&](const std::string& k, const std::string& v) { h << "<tr><th>" << esc(k) << "</th><td>" << esc(v) << "</td></tr>\n"; };
  if (!sum.name.empty()) row("name", sum.name);
  row("script", sum.scriptPath);
  h << "<tr><th>status</th><td" << (sum.status == "ok" ? "" : " class=\"failed\"") << ">" << esc(sum.status) << "</td></tr>\n";
  row("wall time", fmtMs(sum.totalMs));
  row("frames", std::to_string(sum.frameCount));
  row("graphs", std::to_string(sum.graphCount));
  row("graph breaks", std::to_string(sum.breakCount));
  row("recompiles", std::to_string(sum.recompileCount));
  row("failed compiles", std::to_string(sum.failedCount));
  if (!s->engineVersion.empty()) row("engine", s->engineVersion);
  h << "</table>\n";
  if (!compiles.empty()) {
    h << "<nav><p>";
    for (const auto& c : compiles)
      h << "<a href=\"#c" << esc(c.compileId) << "\"" << (c.status == "failed" ? " class=\"failed\"" : "") << ">[" << esc(c.compileId)
        << "]</a>";
    h << "</p></nav>\n";
  }
  if (!s->error.empty()) h << "<div class=\"failed\"><h2>The script raised</h2><pre>" << esc(s->error) << "</pre></div>\n";

  std::map<std::string, bool> knownCompile;
  for (const auto& c : compiles) knownCompile[c.compileId] = true;
  auto breakBox = [&](const session::GraphBreakEvent& b) {
    h << "<div class=\"box break\"><b>Graph break" << (b.code.empty() ? "" : " " + esc(b.code)) << ": " << esc(b.title) << "</b>";
    if (!where(b.file, b.line).empty()) h << " <span class=\"muted\">at " << esc(where(b.file, b.line)) << "</span>";
    if (!b.explanation.empty()) h << "<p>" << esc(b.explanation) << "</p>";
    for (const auto& hint : b.hints) h << "<p class=\"muted\">Hint: " << esc(hint) << "</p>";
    h << src.excerpt(b.file, b.line) << "</div>\n";
  };

  for (const auto& c : compiles) {
    std::string frameName;
    for (const auto& f : frames)
      if (f.frameId == c.frameId) frameName = f.name + " (" + where(f.file, f.firstLine) + ")";
    const bool failed = c.status == "failed";
    h << "<section id=\"c" << esc(c.compileId) << "\"" << (failed ? " class=\"failed\"" : "") << ">\n<h2>[" << esc(c.compileId) << "] "
      << esc(frameName) << " <span class=\"muted\">" << esc(c.backend) << ", " << esc(c.status) << "</span></h2>\n";
    if (failed || !c.message.empty()) {
      h << "<div class=\"box bad\"><b>" << (failed ? "Compile failed" : esc(c.status)) << ":</b> " << esc(c.message);
      if (!where(c.file, c.line).empty()) h << " <span class=\"muted\">at " << esc(where(c.file, c.line)) << "</span>";
      if (!c.detail.empty()) h << "<pre>" << esc(c.detail) << "</pre>";
      h << src.excerpt(c.file, c.line) << "</div>\n";
    }
    for (const auto& r : recompiles) {
      if (r.compileId != c.compileId) continue;
      h << "<div class=\"box recompile\"><b>Recompile</b>: the cached entries' guards failed:<ul>";
      for (size_t i = 0; i < r.reasons.size(); ++i)
        h << "<li><code>" << esc(r.reasons[i]) << "</code>"
          << (i < r.lines.size() && r.lines[i] > 0 ? " <span class=\"muted\">(line " + std::to_string(r.lines[i]) + ")</span>" : "")
          << "</li>";
      h << "</ul></div>\n";
    }
    for (const auto& b : breaks)
      if (b.compileId == c.compileId) breakBox(b);
    if (!c.guards.empty()) {
      h << "<details><summary>Guards (" << c.guards.size()
        << ")</summary><table><tr><th>kind</th><th>source</th><th>guard</th><th>line</th></tr>\n";
      for (const auto& g : c.guards)
        h << "<tr><td>" << esc(g.kind) << "</td><td><code>" << esc(g.source) << "</code></td><td><code>" << esc(g.text)
          << "</code></td><td>" << (g.line > 0 ? std::to_string(g.line) : "") << "</td></tr>\n";
      h << "</table></details>\n";
    }
    const auto stages = store.stages(id, c.compileId);
    for (const auto& st : stages) {
      h << "<details><summary>Stage <b>" << esc(st.stage) << "</b>" << (st.changed ? "" : " (unchanged)")
        << (st.ms > 0 ? " <span class=\"muted\">" + fmtMs(st.ms) + "</span>" : "") << "</summary>";
      if (!st.rules.empty()) {
        h << "<p class=\"muted\">rules:";
        for (const auto& r : st.rules) h << " " << esc(r.rule) << " (x" << r.count << ")";
        h << "</p>";
      }
      h << "<pre>" << esc(store.stageText(st.id)) << "</pre></details>\n";
    }
    if (!stages.empty()) {  // the last stage that holds a graph, drawn
      std::string note;
      for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
        ir::Graph g;
        try {
          g = store.stageGraph(it->id);
        } catch (const std::exception&) { continue; }
        if (g.nodes.empty()) continue;
        h << "<h3>Final graph (stage " << esc(it->stage) << ", " << g.nodes.size() << " nodes)</h3>\n";
        if (dotExe.empty()) {
          h << "<p class=\"muted\">Not drawn: Graphviz <code>dot</code> is not on PATH.</p>\n";
          break;
        }
        size_t cut = 0;
        std::string why;
        std::string svg = runDot(dotExe, graphDot(g, cut), why);
        if (cut > 0)
          h << "<p class=\"muted\">Only the first " << kMaxSvgNodes << " nodes are drawn; " << cut << " more are left out.</p>\n";
        if (svg.empty()) h << "<p class=\"muted\">Not drawn: " << esc(why) << "</p>\n";
        else h << "<div class=\"svg\">" << svg << "</div>\n";
        break;
      }
    }
    const auto kernels = store.kernels(id, c.compileId);
    const session::ProfileEvent* prof = nullptr;
    for (const auto& p : profiles)
      if (p.compileId == c.compileId) prof = &p;
    for (const auto& k : kernels) {
      std::string ms;
      if (prof)
        for (const auto& pk : prof->kernels)
          if (pk.name == k.name) ms = ", " + fmtMs(pk.ms) + " per launch";
      h << "<details><summary>Kernel <b>" << esc(k.name) << "</b> <span class=\"muted\">" << esc(k.kind) << esc(ms)
        << "</span></summary><pre>" << esc(k.source.empty() ? k.kernelIr : k.source) << "</pre></details>\n";
    }
    std::string wrapper = store.wrapperText(id, c.compileId);
    if (!wrapper.empty()) h << "<details><summary>Wrapper</summary><pre>" << esc(wrapper) << "</pre></details>\n";
    std::vector<const session::TimingEvent*> ts;
    for (const auto& t : timings)
      if (t.compileId == c.compileId) ts.push_back(&t);
    if (!ts.empty() || prof) {
      h << "<h3>Timings</h3><table>";
      for (const auto* t : ts) h << "<tr><td>" << esc(t->phase) << "</td><td>" << fmtMs(t->ms) << "</td></tr>";
      if (prof)
        h << "<tr><td>run eager</td><td>" << fmtMs(prof->eagerMs) << "</td></tr><tr><td>run compiled</td><td>" << fmtMs(prof->compiledMs)
          << " (median of " << prof->repeat << ")</td></tr>";
      h << "</table>\n";
    }
    h << "</section>\n";
  }

  bool otherBreaks = false;
  for (const auto& b : breaks)
    if (!knownCompile.count(b.compileId)) {
      if (!otherBreaks) h << "<h2>Other graph breaks</h2>\n";
      otherBreaks = true;
      breakBox(b);
    }
  std::vector<const session::TimingEvent*> whole;
  for (const auto& t : timings)
    if (t.compileId.empty()) whole.push_back(&t);
  if (!whole.empty()) {
    h << "<h2>Session timings</h2><table>";
    for (const auto* t : whole) h << "<tr><td>" << esc(t->phase) << "</td><td>" << fmtMs(t->ms) << "</td></tr>";
    h << "</table>\n";
  }
  if (!s->scriptText.empty()) {
    h << "<h2>Script</h2><pre>";
    int n = 0;
    for (const auto& l : splitLines(s->scriptText)) h << std::setw(4) << ++n << "  " << esc(l) << "\n";
    h << "</pre>\n";
  }
  if (!s->stdoutText.empty()) h << "<details><summary>Output</summary><pre>" << esc(s->stdoutText) << "</pre></details>\n";
  const auto artifacts = store.artifactIndex(id);
  if (!artifacts.empty())
    h << "<p class=\"muted\">" << artifacts.size() << " imported records kept as they came (kiln show " << id
      << " --stage artifacts).</p>\n";
  h << "<p class=\"muted\">Written by Kiln (kiln report, or the studio's File &gt; Export Report) from " << esc(store.path())
    << ".</p>\n</body></html>\n";

  return h.str();
}

}  // namespace kiln::storage
