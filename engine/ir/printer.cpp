#include "engine/ir/text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace kiln::ir {

// CPython's repr(float): the fewest digits that read back to the same double, fixed notation
// for decimal exponents in [-4, 16) and scientific (two-digit exponent) outside, and always a
// decimal point or exponent ("2.0", "1e-05", "1e+16"). The one float repr of the engine: FX
// text, the interpreter's repr/str/format, unparsed code and guards all print through it.
std::string pyFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The fewest significant digits that read back, in scientific form: d.ddde+XX.
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  const std::string s = buf;
  const auto e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  if (exp >= -4 && exp < 16) {
    // Fixed notation of the same digits ("0.0001", "1000000000000000.0", "0.007151831521436534").
    const bool neg = s[0] == '-';
    std::string digits;
    for (size_t i = neg ? 1 : 0; i < e; ++i)
      if (s[i] != '.') digits += s[i];
    std::string f = neg ? "-" : "";
    if (exp < 0) return f + "0." + std::string(-exp - 1, '0') + digits;
    if (digits.size() <= static_cast<size_t>(exp) + 1) return f + digits + std::string(exp + 1 - digits.size(), '0') + ".0";
    return f + digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
  }
  std::string digits = std::to_string(exp < 0 ? -exp : exp);
  if (digits.size() < 2) digits = "0" + digits;
  return s.substr(0, e) + "e" + (exp < 0 ? '-' : '+') + digits;
}

namespace {

const std::map<std::string, std::string> kInfix = {
    {"_operator.add", "+"},       {"_operator.sub", "-"}, {"_operator.mul", "*"},  {"_operator.truediv", "/"},
    {"_operator.floordiv", "//"}, {"_operator.mod", "%"}, {"_operator.pow", "**"}, {"_operator.matmul", "@"},
    {"_operator.lt", "<"},        {"_operator.le", "<="}, {"_operator.gt", ">"},   {"_operator.ge", ">="},
    {"_operator.eq", "=="},       {"_operator.ne", "!="}, {"_operator.and_", "&"}, {"_operator.or_", "|"}};

const std::map<std::string, std::string> kAugmented = {
    {"_operator.iadd", "+="},       {"_operator.isub", "-="}, {"_operator.imul", "*="},  {"_operator.itruediv", "/="},
    {"_operator.ifloordiv", "//="}, {"_operator.imod", "%="}, {"_operator.ipow", "**="}, {"_operator.imatmul", "@="},
    {"_operator.iand", "&="},       {"_operator.ior", "|="}};

std::string callTarget(const std::string& t) {
  if (t.rfind("aten.", 0) == 0 || t.rfind("prims.", 0) == 0) return "torch.ops." + t;
  return t;
}

std::string stringRepr(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "'";
}

}  // namespace

std::string printArg(const Graph& g, const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Node: {
      const Node* n = g.find(a.node);
      return n ? n->name : "%" + std::to_string(a.node);
    }
    case Arg::Kind::None: return "None";
    case Arg::Kind::Bool: return a.b ? "True" : "False";
    case Arg::Kind::Int: return std::to_string(a.i);
    case Arg::Kind::Float: return pyFloat(a.f);
    case Arg::Kind::String: return stringRepr(a.s);
    case Arg::Kind::DType: return std::string(torchName(a.dtype));
    case Arg::Kind::Expr: return a.s;
    case Arg::Kind::List: {
      std::string out = "[";
      for (size_t i = 0; i < a.list.size(); ++i) out += (i ? ", " : "") + printArg(g, a.list[i]);
      return out + "]";
    }
  }
  return "?";
}

std::string printIndex(const Graph& g, const Arg& a, bool top) {
  if (a.kind == Arg::Kind::String && a.s == "...") return "...";
  if (a.kind == Arg::Kind::List && a.list.size() == 4 && a.list[0].kind == Arg::Kind::String && a.list[0].s == "slice")
    return "slice(" + printArg(g, a.list[1]) + ", " + printArg(g, a.list[2]) + ", " + printArg(g, a.list[3]) + ")";
  if (top && a.kind == Arg::Kind::List) {
    std::string out = "(";
    for (size_t i = 0; i < a.list.size(); ++i) out += (i ? ", " : "") + printIndex(g, a.list[i], false);
    return out + (a.list.size() == 1 ? ",)" : ")");
  }
  return printArg(g, a);
}

std::string printGraph(const Graph& g, const PrintOptions& opts) {
  std::string out = "class GraphModule(torch.nn.Module):\n    def forward(self";
  for (const Node* p : g.placeholders()) {
    out += ", " + p->target;
    if (!p->types.empty()) out += ": \"" + p->types[0].str() + "\"";
  }
  out += "):\n";
  bool anyRename = false;
  for (const Node* p : g.placeholders())
    if (p->name != p->target) {
      out += "        " + p->name + " = " + p->target + "\n";
      anyRename = true;
    }
  // Last use of every value, for FX's "x = None" bookkeeping.
  // Hashed, not ordered (it is only looked up): the ordered map was a quarter of printing a
  // 17,000-node stage.
  std::unordered_map<int, int> lastUse;
  lastUse.reserve(g.nodes.size());
  for (const auto& n : g.nodes) forEachNodeArg(n, [&](int id) { lastUse[id] = n.id; });
  // The last provenance comment printed: none yet, a source line (`prevLoc`), or FX's "no
  // stacktrace" line. Compared by fields, not as the comment's text: building that text for
  // every node was a fifth of printing a 4,096-node stage.
  enum class Shown { Nothing, Line, NoStack } shown = Shown::Nothing;
  const SourceLoc* prevLoc = nullptr;
  bool first = true;
  for (const auto& n : g.nodes) {
    if (n.kind == NodeKind::Placeholder) continue;
    if (n.kind == NodeKind::Output) {
      out += "        return (";
      const auto& refs = n.args.empty() ? std::vector<Arg>{} : n.args[0].list;
      for (size_t i = 0; i < refs.size(); ++i) out += (i ? ", " : "") + printArg(g, refs[i]);
      out += refs.size() == 1 ? ",)\n" : ")\n";
      continue;
    }
    if (opts.provenanceComments && (n.prov.loc.valid() || shown != Shown::Nothing)) {
      // FX marks nodes without a stack trace (a grad-mode change) after ones that had one.
      const SourceLoc& l = n.prov.loc;
      const bool same = l.valid() ? shown == Shown::Line && l.line == prevLoc->line && l.file == prevLoc->file &&
                                        l.function == prevLoc->function && l.code == prevLoc->code
                                  : shown == Shown::NoStack;
      if (!same) {
        if (!first || anyRename) out += "\n";
        if (l.valid()) {
          out += "        # File: ";
          out += l.file;
          out += ':';
          out += std::to_string(l.line);
          out += " in ";
          out += l.function;
          out += ", code: ";
          out += l.code;
          out += '\n';
          shown = Shown::Line;
          prevLoc = &l;
        } else {
          out += "        # No stacktrace found for following nodes\n";
          shown = Shown::NoStack;
        }
      }
    }
    first = false;
    if (n.kind == NodeKind::GetAttr) {  // FX's get_attr: `_tensor_constant0 = self._tensor_constant0`
      out += "        " + n.name + " = self." + n.target + "\n";
      continue;
    }
    std::string expr, augmented;
    // Python operators are `_operator.NAME`; other targets skip the two lookups.
    const bool isOperator = n.target.rfind("_operator.", 0) == 0;
    auto infix = isOperator ? kInfix.find(n.target) : kInfix.end();
    auto inplace = isOperator ? kAugmented.find(n.target) : kAugmented.end();
    if (n.kind == NodeKind::CallFunction && inplace != kAugmented.end() && n.args.size() == 2 && n.kwargs.empty()) {
      // FX's form of an in-place operator: `x += 1;  iadd = x`
      expr = printArg(g, n.args[0]);
      augmented = expr + " " + inplace->second + " " + printArg(g, n.args[1]) + ";  ";
    } else if (n.kind == NodeKind::CallFunction && infix != kInfix.end() && n.args.size() == 2 && n.kwargs.empty()) {
      expr = printArg(g, n.args[0]) + " " + infix->second + " " + printArg(g, n.args[1]);
    } else if (n.kind == NodeKind::CallFunction && n.target == "_operator.setitem" && n.args.size() == 3) {
      // FX's form of a subscript assignment: `x[0] = v;  setitem = x` (no type: it is None)
      expr = printArg(g, n.args[0]);
      augmented = expr + "[" + printIndex(g, n.args[1], true) + "] = " + printArg(g, n.args[2]) + ";  ";
    } else if (n.kind == NodeKind::CallFunction && n.target == "_operator.getitem" && n.args.size() == 2) {
      expr = printArg(g, n.args[0]) + "[" + printIndex(g, n.args[1], true) + "]";
    } else if (n.kind == NodeKind::CallFunction && n.target == "_operator.neg" && n.args.size() == 1) {
      expr = "-" + printArg(g, n.args[0]);
    } else {
      std::vector<std::string> parts;
      size_t startArg = 0;
      if (n.kind == NodeKind::CallMethod) {
        expr = (n.args.empty() ? std::string("?") : printArg(g, n.args[0])) + "." + n.target + "(";
        startArg = 1;
      } else {
        expr = callTarget(n.target) + "(";
      }
      for (size_t i = startArg; i < n.args.size(); ++i) parts.push_back(printArg(g, n.args[i]));
      for (const auto& [k, v] : n.kwargs) parts.push_back(k + " = " + printArg(g, v));
      for (size_t i = 0; i < parts.size(); ++i) expr += (i ? ", " : "") + parts[i];
      expr += ")";
    }
    out += "        ";
    out += augmented;
    out += n.name;
    const bool setitem = n.kind == NodeKind::CallFunction && n.target == "_operator.setitem";
    if (n.types.size() == 1 && !setitem) out += ": \"" + n.types[0].str() + "\"";  // tuples print without a type, as in FX
    out += " = " + expr;
    if (opts.deadValues) {
      std::vector<std::string> dead;
      std::vector<int> seen;
      if (n.types.empty() && n.isCall() && !lastUse.count(n.id)) dead.push_back(n.name);  // a value nobody reads
      forEachNodeArg(n, [&](int id) {
        if (lastUse[id] != n.id || std::find(seen.begin(), seen.end(), id) != seen.end()) return;
        seen.push_back(id);
        if (const Node* d = g.find(id)) dead.push_back(d->name);
      });
      if (setitem && !lastUse.count(n.id)) dead.push_back(n.name);  // its value (None) is never read
      if (!dead.empty()) {
        out += ";  ";
        for (const auto& d : dead) out += d + " = ";
        out += "None";
      }
    }
    // A node of a torch.utils.checkpoint region says so (where FX shows the region as the body
    // of a tag_activation_checkpoint node); the fused stages name the kernel instead.
    if (!n.kernel.empty()) out += "  # " + n.kernel;
    else if (n.prov.checkpointRegion >= 0) out += "  # " + std::string(kCheckpointComment) + std::to_string(n.prov.checkpointRegion);
    out += "\n";
  }
  return out;
}

}  // namespace kiln::ir
