#include "importers/torch_trace/dynamo_text.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace kiln::importers::torch_trace {

namespace {

std::string trimmed(std::string s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// `  File "/x/y.py", line 19, in f` -> file, line, function; false for other lines.
bool traceFrame(const std::string& line, ir::SourceLoc& loc) {
  std::string t = trimmed(line);
  if (t.rfind("File \"", 0) != 0) return false;
  size_t q = t.find('"', 6);
  if (q == std::string::npos) return false;
  size_t l = t.find(", line ", q);
  if (l == std::string::npos) return false;
  loc.file = t.substr(6, q - 6);
  loc.line = std::atoi(t.c_str() + l + 7);
  size_t in = t.find(", in ", l);
  loc.function = in == std::string::npos ? "" : t.substr(in + 5);
  return loc.line > 0;
}

}  // namespace

session::GraphBreakEvent parseGraphBreak(const std::string& payload, const PathMap& mapPath) {
  session::GraphBreakEvent b;
  std::vector<std::string> lines = linesOf(payload);
  const std::string at = "Graph break in user code at ";
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    if (lines[i].rfind(at, 0) == 0) {
      std::string where = lines[i].substr(at.size());
      size_t colon = where.rfind(':');
      if (colon != std::string::npos) {
        b.file = mapPath(where.substr(0, colon));
        b.line = std::atoi(where.c_str() + colon + 1);
      }
      ++i;
      break;
    }
  }
  // "Graph Break Reason: <context>:" then, after a blank line, the title, "  Explanation:",
  // "  Hint:" lines and "  Developer debug context:".
  bool sawReason = false;
  for (; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    std::string t = trimmed(l);
    if (l.rfind("Graph Break Reason: ", 0) == 0) {
      sawReason = true;
      // Older forms put the whole reason on this line.
      b.title = trimmed(l.substr(20));
      continue;
    }
    if (l.rfind("User code traceback:", 0) == 0) break;
    if (!sawReason || t.empty()) continue;
    if (t.rfind("Explanation: ", 0) == 0) b.explanation = t.substr(13);
    else if (t.rfind("Hint: ", 0) == 0) b.hints.push_back(t.substr(6));
    else if (t.rfind("Developer debug context:", 0) == 0) continue;
    else if (t.rfind("For more details about this graph break", 0) == 0) {
      size_t gb = t.find("/gb/");
      if (gb != std::string::npos) b.code = t.substr(gb + 4, t.find('.', gb + 4) - gb - 4);
    } else if (b.explanation.empty() && b.hints.empty() && l[0] != ' ') {
      b.title = t;  // the gb_type line (the most specific title)
    }
  }
  // The user code traceback: `  File "...", line N, in fn` / `    code`, up to a blank line.
  for (++i; i < lines.size(); ++i) {
    if (trimmed(lines[i]).empty()) break;
    ir::SourceLoc loc, next;
    if (!traceFrame(lines[i], loc)) continue;
    if (i + 1 < lines.size() && !traceFrame(lines[i + 1], next)) loc.code = trimmed(lines[i + 1]);
    loc.file = mapPath(loc.file);
    b.userStack.push_back(loc);
  }
  if (b.file.empty() && !b.userStack.empty()) {
    b.file = b.userStack.back().file;
    b.line = b.userStack.back().line;
  }
  if (b.title.empty()) b.title = "graph break";
  return b;
}

std::vector<session::Guard> parseGuardTree(const std::string& payload) {
  std::vector<session::Guard> out;
  for (const std::string& l : linesOf(payload)) {
    size_t plus = l.find("+- ");
    if (plus == std::string::npos) continue;
    std::string body = l.substr(plus + 3);
    size_t colon = body.find(": ");
    if (colon == std::string::npos) continue;
    std::string kind = body.substr(0, colon);
    if (kind.empty() || kind == "GuardManager" || kind == "DictGuardManager" || kind == "RootGuardManager") continue;
    bool upper = true;
    for (char c : kind)
      upper = upper && (std::isupper(static_cast<unsigned char>(c)) || c == '_' || std::isdigit(static_cast<unsigned char>(c)));
    if (!upper) continue;
    session::Guard g;
    g.kind = kind;
    std::string rest = body.substr(colon + 2);
    // "text  # user code  # file:line in fn": the guard is before the first "  # ".
    size_t hash = rest.find("  # ");
    g.text = trimmed(hash == std::string::npos ? rest : rest.substr(0, hash));
    if (hash != std::string::npos) {
      size_t last = rest.rfind("  # ");
      std::string where = rest.substr(last + 4);
      size_t in = where.find(" in ");
      size_t c = where.rfind(':', in);
      if (in != std::string::npos && c != std::string::npos) g.line = std::atoi(where.c_str() + c + 1);
    }
    // The source: the first argument of check functions, or what precedes an operator.
    size_t paren = g.text.find('(');
    if (paren != std::string::npos && g.text.find("L[") != std::string::npos) {
      size_t a = g.text.find("L[");
      size_t e = g.text.find_first_of(",)", a);
      g.source = g.text.substr(a, e == std::string::npos ? std::string::npos : e - a);
    } else {
      size_t sp = g.text.find(' ');
      g.source = g.text.substr(0, sp);
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::string> parseRecompileReasons(const std::string& payload) {
  std::vector<std::string> out;
  auto j = nlohmann::json::parse(payload, nullptr, false);
  if (!j.is_discarded() && j.is_array()) {
    for (const auto& r : j)
      if (r.is_string()) out.push_back(trimmed(linesOf(r.get<std::string>()).empty() ? "" : linesOf(r.get<std::string>())[0]));
    return out;
  }
  for (const std::string& l : linesOf(payload)) {
    // "1/0: ___stack0 == 0.99   # code  # file:line in fn"
    size_t slash = l.find('/');
    size_t colon = l.find(": ");
    if (slash == std::string::npos || colon == std::string::npos || slash > colon || l.empty() ||
        !std::isdigit(static_cast<unsigned char>(l[0])))
      continue;
    bool ok = true;
    for (size_t k = 0; k < colon; ++k) ok = ok && (std::isdigit(static_cast<unsigned char>(l[k])) || l[k] == '/' || l[k] == '_');
    if (!ok) continue;
    std::string r = l;
    size_t hash = r.find("  # ");
    if (hash != std::string::npos) r = r.substr(0, hash);
    out.push_back(trimmed(r));
  }
  return out;
}

}  // namespace kiln::importers::torch_trace
