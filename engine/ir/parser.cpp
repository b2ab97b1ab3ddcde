// Parser for the FX readable text form (see text.h). Line oriented: each statement is one
// line; expressions are the small subset printGraph emits.
#include "engine/ir/sym.h"
#include "engine/ir/text.h"

#include "engine/support/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace kiln::ir {

namespace {

const std::map<std::string, std::string> kInfixToTarget = {
    {"+", "_operator.add"},       {"-", "_operator.sub"}, {"*", "_operator.mul"},  {"/", "_operator.truediv"},
    {"//", "_operator.floordiv"}, {"%", "_operator.mod"}, {"**", "_operator.pow"}, {"@", "_operator.matmul"},
    {"<", "_operator.lt"},        {"<=", "_operator.le"}, {">", "_operator.gt"},   {">=", "_operator.ge"},
    {"==", "_operator.eq"},       {"!=", "_operator.ne"}, {"&", "_operator.and_"}, {"|", "_operator.or_"}};

std::string_view trim(std::string_view s);

// FX's in-place operators (`x += y;  iadd = x`), longest spelling first.
const std::vector<std::pair<std::string, std::string>> kAugmentedToTarget = {
    {"**=", "_operator.ipow"}, {"//=", "_operator.ifloordiv"}, {"+=", "_operator.iadd"}, {"-=", "_operator.isub"},
    {"*=", "_operator.imul"},  {"/=", "_operator.itruediv"},   {"%=", "_operator.imod"}, {"@=", "_operator.imatmul"},
    {"&=", "_operator.iand"},  {"|=", "_operator.ior"}};

class LineParser {
 public:
  LineParser(std::string_view s, int line, std::string file, const std::map<std::string, int>& names)
      : s_(s), line_(line), file_(std::move(file)), names_(names) {}

  static constexpr int kMaxDepth = 200;
  int depth_ = 0;

  [[noreturn]] void fail(const std::string& msg) {
    throw ParseError("graph text: " + msg, Location{file_, line_, static_cast<int>(p_) + 1});
  }
  void ws() {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
  }
  bool eat(std::string_view t) {
    ws();
    if (s_.substr(p_, t.size()) == t) {
      p_ += t.size();
      return true;
    }
    return false;
  }
  void expect(std::string_view t) {
    if (!eat(t)) fail("expected '" + std::string(t) + "'");
  }
  bool atEnd() {
    ws();
    return p_ >= s_.size();
  }
  char peek() {
    ws();
    return p_ < s_.size() ? s_[p_] : '\0';
  }
  size_t pos() const { return p_; }
  void setPos(size_t p) { p_ = p; }
  std::string_view rest() {
    ws();
    return s_.substr(p_);
  }

  std::string ident() {
    ws();
    size_t st = p_;
    // A Python name: not starting with a digit (found by tests/fuzz: `1x = y` read as a node
    // named 1x, which then did not read back as an argument).
    if (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) fail("expected a name");
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
    if (st == p_) fail("expected a name");
    return std::string(s_.substr(st, p_ - st));
  }
  // A name a line binds (an input or a node). The words an argument reads as a literal cannot be
  // one: a node named `nan` would print as `f(nan)` and read back as a float (found by
  // tests/fuzz, `nan = x` renaming an input).
  std::string valueName() {
    std::string n = ident();
    static constexpr std::string_view kLiterals[] = {"None", "True", "False", "inf", "nan"};
    for (std::string_view w : kLiterals)
      if (n == w) fail("'" + n + "' cannot name a value");
    return n;
  }
  std::string dotted() {
    std::string n = ident();
    while (p_ + 1 < s_.size() && s_[p_] == '.' && (std::isalpha(static_cast<unsigned char>(s_[p_ + 1])) || s_[p_ + 1] == '_')) {
      ++p_;
      n += "." + ident();
    }
    return n;
  }
  std::string quoted() {
    ws();
    if (p_ >= s_.size() || (s_[p_] != '"' && s_[p_] != '\'')) fail("expected a string");
    char q = s_[p_++];
    std::string out;
    while (p_ < s_.size() && s_[p_] != q) {
      if (s_[p_] == '\\' && p_ + 1 < s_.size()) {
        ++p_;
        out += s_[p_] == 'n' ? '\n' : s_[p_];
        ++p_;
        continue;
      }
      out += s_[p_++];
    }
    if (p_ >= s_.size()) fail("unterminated string");
    ++p_;
    return out;
  }

  // A node's type annotation. Kiln prints `f32[16, 16]`; PyTorch's structured logs print
  // `f32[16, 16][16, 1]cuda:0` (strides and device) and `Sym(s0)` for symbolic ints. Those and
  // dtypes Kiln's graphs never hold (u8, c64, f8...) read as "no type" (nullopt) rather than
  // failing, so a real PyTorch graph imports node for node.
  std::optional<TensorType> type(const std::string& text) {
    if (text.rfind("Sym(", 0) == 0 && text.back() == ')') return std::nullopt;
    size_t b = text.find('[');
    if (b == std::string::npos) fail("bad tensor type '" + text + "'");
    size_t close = text.find(']', b);
    if (close == std::string::npos) fail("bad tensor type '" + text + "'");
    TensorType t = sizesOf(text, b, close);
    std::string tail = text.substr(close + 1);
    if (!tail.empty() && tail[0] == '[') {
      size_t c2 = tail.find(']');
      if (c2 == std::string::npos) fail("bad strides in '" + text + "'");
      t.strides = sizesOf(text, close + 1, close + 1 + c2).sizes;
      tail = tail.substr(c2 + 1);
    }
    if (!tail.empty()) {
      for (char c : tail)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != ':') fail("bad device in '" + text + "'");
      t.device = tail;
    }
    auto dt = dtypeFromShort(text.substr(0, b));
    if (!dt) {
      // FX's abbreviations (torch/fx/graph.py) of dtypes Kiln's graphs do not hold.
      static const std::set<std::string> kOtherTorchDtypes = {
          "i8",         "i16",        "u8",        "u16",         "u32", "u64", "c32", "c64",  "c128",  "f8e4m3fn", "f8e5m2",
          "f8e4m3fnuz", "f8e5m2fnuz", "f8e8m0fnu", "f4e2m1fn_x2", "b16", "qi8", "qu8", "qi32", "qu4x2", "qu2x4"};
      if (!kOtherTorchDtypes.count(text.substr(0, b))) fail("unknown dtype in '" + text + "'");
      return std::nullopt;
    }
    t.dtype = *dt;
    return t;
  }

  // The sizes between text[b] == '[' and text[close] == ']'.
  TensorType sizesOf(const std::string& text, size_t b, size_t close) {
    TensorType t;
    std::string dims = text.substr(b + 1, close - b - 1);
    // Split at the commas outside parentheses: PyTorch prints sizes such as `Max(1, s0)`.
    std::vector<std::string> parts(1);
    int depth = 0;
    for (char c : dims) {
      if (c == '(') ++depth;
      if (c == ')' && --depth < 0) fail("unbalanced parentheses in '" + text + "'");
      if (c == ',' && depth == 0) parts.emplace_back();
      else parts.back() += c;
    }
    if (depth != 0) fail("unbalanced parentheses in '" + text + "'");
    if (parts.size() == 1 && trim(parts[0]).empty()) return t;  // f32[]
    for (const std::string& part : parts) {
      std::string d(trim(part));
      if (d.empty()) fail("bad dimension in '" + text + "'");
      if (auto p = parseSym(d); p && !p->syms.empty()) {
        t.sizes.push_back(Dim::sym(symText(*p)));  // a size expression of dynamic shapes: 16*s0
      } else if (d.find_first_not_of("0123456789") == std::string::npos) {
        char* end = nullptr;
        errno = 0;
        long long v = std::strtoll(d.c_str(), &end, 10);
        if (*end || errno == ERANGE) fail("bad dimension '" + d + "'");
        t.sizes.emplace_back(static_cast<int64_t>(v));
      } else {
        // A symbol, or a size expression Kiln's own size arithmetic does not form but PyTorch
        // prints (s0**2, Max(1, s0), FloorDiv(s0, 2)): kept verbatim.
        for (char c : d)
          if (!std::isalnum(static_cast<unsigned char>(c)) && (c == '\0' || !std::strchr("_*+-/%(), ", c)))
            fail("bad dimension '" + d + "'");
        t.sizes.push_back(Dim::sym(d));
      }
    }
    return t;
  }

  Arg arg() {
    ws();
    char c = peek();
    if (c == '[' || c == '(') {
      // Lists nest by recursion (here and wherever an Arg is walked): bounded, as the Python
      // parser bounds parentheses, so a deep text fails instead of overflowing the stack.
      if (++depth_ > kMaxDepth) fail("lists nested more than " + std::to_string(kMaxDepth) + " deep");
      char close = c == '[' ? ']' : ')';
      ++p_;
      std::vector<Arg> items;
      while (peek() != close) {
        items.push_back(arg());
        if (!eat(",")) break;
      }
      expect(std::string(1, close));
      --depth_;
      return Arg::listOf(std::move(items));
    }
    if (c == '\'' || c == '"') return Arg::string(quoted());
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t st = p_;
      if (s_[p_] == '-') ++p_;
      if (s_.substr(p_, 3) == "inf") {
        p_ += 3;
        return Arg::real(-INFINITY);
      }
      bool isFloat = false;
      while (p_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.' || s_[p_] == 'e' ||
                                ((s_[p_] == '-' || s_[p_] == '+') && (s_[p_ - 1] == 'e')))) {
        isFloat = isFloat || s_[p_] == '.' || s_[p_] == 'e';
        ++p_;
      }
      std::string num(s_.substr(st, p_ - st));
      if (num == "-" || num.empty()) fail("bad number");
      char* end = nullptr;
      if (isFloat) {
        double v = std::strtod(num.c_str(), &end);
        if (*end) fail("bad number '" + num + "'");
        return Arg::real(v);
      }
      long long v = std::strtoll(num.c_str(), &end, 10);
      if (*end) fail("bad number '" + num + "'");
      return Arg::integer(v);
    }
    std::string name = dotted();
    if (name == "None") return Arg::none();
    if (name == "True") return Arg::boolean(true);
    if (name == "False") return Arg::boolean(false);
    if (name == "inf") return Arg::real(INFINITY);
    if (name == "nan") return Arg::real(NAN);
    if (auto d = dtypeFromTorch(name); d && name.rfind("torch.", 0) == 0) return Arg::dtypeArg(*d);
    // What real PyTorch graphs also pass: layouts and memory formats (torch.strided,
    // torch.contiguous_format) and devices (device(type='cuda', index=0)), kept verbatim.
    if (name.rfind("torch.", 0) == 0 && !names_.count(name)) return Arg::expr(name);
    if (name == "Ellipsis" && !names_.count(name)) return Arg::expr(name);  // in index tuples
    if (name == "device" && peek() == '(') return Arg::expr(name + balanced());
    auto it = names_.find(name);
    if (it == names_.end()) fail("unknown value '" + name + "'");
    return Arg::ref(it->second);
  }

  // A parenthesised group, verbatim (quotes respected), from the '(' at the current position.
  std::string balanced() {
    ws();
    size_t st = p_;
    int depth = 0;
    char q = 0;
    for (; p_ < s_.size(); ++p_) {
      char c = s_[p_];
      if (q) {
        if (c == '\\') ++p_;
        else if (c == q) q = 0;
        continue;
      }
      if (c == '\'' || c == '"') q = c;
      else if (c == '(') ++depth;
      else if (c == ')' && --depth == 0) {
        ++p_;
        return std::string(s_.substr(st, p_ - st));
      }
    }
    fail("unbalanced parentheses");
  }

  // Arguments of a call up to the closing parenthesis: positional and `k = v`.
  void callArgs(Node& n) {
    expect("(");
    while (peek() != ')') {
      size_t save = p_;
      ws();
      if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
        std::string k = ident();
        if (eat("=") && peek() != '=') {
          n.kwargs.emplace_back(k, arg());
          if (!eat(",")) break;
          continue;
        }
        p_ = save;
      }
      if (!n.kwargs.empty()) fail("positional argument after keyword argument");
      n.args.push_back(arg());
      if (!eat(",")) break;
    }
    expect(")");
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
  int line_;
  std::string file_;
  const std::map<std::string, int>& names_;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool isDottedName(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  return s.back() != '.';
}

// The text with a '#' comment cut off (a '#' inside quotes is kept).
std::string_view withoutComment(std::string_view s) {
  char q = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (q) {
      if (s[i] == '\\') ++i;
      else if (s[i] == q) q = 0;
    } else if (s[i] == '"' || s[i] == '\'') q = s[i];
    else if (s[i] == '#') return trim(s.substr(0, i));
  }
  return s;
}

struct LogicalLine {
  int lineNo;
  std::string text;
};

// Open brackets minus closed ones in a line of code (quotes and a trailing comment skipped).
int bracketBalance(std::string_view s) {
  int depth = 0;
  char q = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (q) {
      if (c == '\\') ++i;
      else if (c == q) q = 0;
      continue;
    }
    if (c == '"' || c == '\'') q = c;
    else if (c == '#') break;
    else if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
  }
  return depth;
}

// PyTorch prints a long `def forward(`, `return (` or `return pytree.tree_unflatten([` over
// several lines, one input or output per line with a comment (`primals_1: "f32[4]",  #
// PlainAOTInput(idx=0)`); Kiln prints them on one. Both read as one statement: a line that
// leaves brackets open is joined with the lines that close them (comments dropped) into one
// line numbered by its first.
std::vector<LogicalLine> logicalLines(std::string_view text) {
  std::vector<LogicalLine> out;
  int lineNo = 0;
  int open = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++lineNo;
    if (open > 0) {
      std::string_view part = withoutComment(line);
      if (!part.empty()) {
        const char last = out.back().text.back();
        out.back().text += (last == '(' || last == '[' ? "" : " ") + std::string(part);
      }
      open += bracketBalance(part);
    } else if (!line.empty() && line[0] != '#' && bracketBalance(line) > 0) {
      out.push_back({lineNo, std::string(withoutComment(line))});
      open = bracketBalance(line);
    } else {
      out.push_back({lineNo, std::string(line)});
    }
    if (end == text.size()) break;
  }
  return out;
}

}  // namespace

Graph parseGraph(std::string_view text, const std::string& fileName) {
  Graph g;
  std::map<std::string, int> names;
  SourceLoc loc;
  int lineNo = 0;
  bool sawDef = false, sawReturn = false;
  std::map<std::string, TensorType> declared;  // `name: "type"` lines of AOT joint graphs
  const std::vector<LogicalLine> lines = logicalLines(text);
  for (const LogicalLine& logical : lines) {
    lineNo = logical.lineNo;
    std::string_view line = logical.text;
    if (line.empty()) continue;
    if (line.rfind("class ", 0) == 0) continue;
    if (line.rfind("# File: ", 0) == 0) {
      // # File: seed.py:9 in f, code: y = torch.exp(x)
      std::string_view body = line.substr(8);
      size_t in = body.find(" in ");
      size_t colon = in == std::string_view::npos ? std::string_view::npos : body.rfind(':', in);
      size_t comma = body.find(", code: ");
      if (in == std::string_view::npos || colon == std::string_view::npos || comma == std::string_view::npos || comma < in)
        throw ParseError("graph text: malformed '# File:' comment", Location{fileName, lineNo, 1});
      loc = SourceLoc{};
      loc.file = std::string(body.substr(0, colon));
      loc.line = std::atoi(std::string(body.substr(colon + 1, in - colon - 1)).c_str());
      loc.function = std::string(body.substr(in + 4, comma - in - 4));
      loc.code = std::string(body.substr(comma + 8));
      if (loc.line <= 0) throw ParseError("graph text: bad line number in '# File:' comment", Location{fileName, lineNo, 1});
      continue;
    }
    if (line[0] == '#') continue;
    if (sawReturn) throw ParseError("graph text: statement after return", Location{fileName, lineNo, 1});
    LineParser p(line, lineNo, fileName, names);
    if (line.rfind("def forward(", 0) == 0) {
      if (sawDef) p.fail("second 'def forward'");
      sawDef = true;
      p.expect("def forward(");
      p.expect("self");
      while (p.eat(",")) {
        if (p.peek() == ')') break;
        Node n;
        n.kind = NodeKind::Placeholder;
        n.target = p.valueName();
        n.name = n.target;
        if (p.eat(":"))
          if (auto t = p.type(p.quoted())) n.types.push_back(*t);
        if (names.count(n.name)) p.fail("duplicate input '" + n.name + "'");
        std::string key = n.name;  // (the assignment's right side runs first and moves n)
        names[key] = g.add(std::move(n)).id;
      }
      p.expect(")");
      p.expect(":");
      continue;
    }
    if (!sawDef) p.fail("expected 'def forward(self, ...):'");
    if (line.rfind("return", 0) == 0) {
      p.expect("return");
      Node out;
      out.kind = NodeKind::Output;
      out.name = "output";
      out.target = "output";
      // AOT joint graphs return `pytree.tree_unflatten([outs...], self._out_spec)`.
      const bool unflatten = p.eat("pytree.tree_unflatten(");
      Arg a = p.arg();
      if (unflatten) {
        p.expect(",");
        p.expect("self._out_spec");
        p.expect(")");
      }
      if (a.kind != Arg::Kind::List) a = Arg::listOf({a});
      out.args.push_back(a);
      g.add(std::move(out));
      sawReturn = true;
      continue;
    }
    if (const size_t flat = line.find(" = fx_pytree.tree_flatten_spec("); flat != std::string_view::npos) {
      // AOT joint graphs take `(self, primals, tangents)` and flatten them into the real inputs:
      // `primals_1, ..., tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)`.
      // Those become the graph's placeholders, typed by their declarations above.
      for (auto it = names.begin(); it != names.end();) {
        const Node* ph = g.find(it->second);
        if (ph && ph->kind == NodeKind::Placeholder && g.users(ph->id).empty()) {
          g.remove(it->second);
          it = names.erase(it);
        } else {
          ++it;
        }
      }
      LineParser lhs(line.substr(0, flat), lineNo, fileName, names);
      while (!lhs.atEnd()) {
        Node n;
        n.kind = NodeKind::Placeholder;
        n.name = n.target = lhs.valueName();
        if (auto d = declared.find(n.name); d != declared.end()) n.types.push_back(d->second);
        if (names.count(n.name)) lhs.fail("duplicate input '" + n.name + "'");
        std::string key = n.name;
        names[key] = g.add(std::move(n)).id;
        if (!lhs.eat(",")) break;
      }
      if (!lhs.atEnd()) lhs.fail("unexpected text '" + std::string(lhs.rest()) + "'");
      continue;
    }
    std::string name = p.valueName();
    const size_t afterName = p.pos();
    if (p.eat(":")) {
      // `primals_1: "f32[4]"` alone: a declaration of an input that a tree_flatten_spec line binds.
      std::string typeText = p.quoted();
      if (p.atEnd() || p.peek() == '#') {
        if (auto t = p.type(typeText)) declared[name] = *t;
        continue;
      }
      p.setPos(afterName);
    }
    // `name = other` with nothing after the name: a rename or get_attr; `name = call(...)` is an
    // untyped node (PyTorch prints tuple-valued nodes such as var_mean without a type).
    if (p.eat("=") && isDottedName(p.rest())) {
      // `l_x_ = L_x_`: a placeholder's local name
      std::string target = p.dotted();
      if (target.rfind("self.", 0) == 0) {
        // `wrap_body_0 = self.wrap_body_0`: FX's get_attr (a submodule or a constant tensor)
        if (!p.atEnd()) p.fail("unexpected text '" + std::string(p.rest()) + "'");
        if (names.count(name)) p.fail("duplicate value name '" + name + "'");
        Node n;
        n.kind = NodeKind::GetAttr;
        n.name = name;
        n.target = target.substr(5);
        n.prov.loc = loc;
        names[name] = g.add(std::move(n)).id;
        continue;
      }
      auto it = names.find(target);
      Node* ph = it == names.end() ? nullptr : g.find(it->second);
      if (!ph || ph->kind != NodeKind::Placeholder) p.fail("'" + name + " = " + target + "' does not rename an input");
      names.erase(target);
      g.rename(ph->id, name);
      names[name] = ph->id;
      continue;
    }
    p.setPos(afterName);
    Node n;
    n.name = name;
    // FX prints an in-place operator (operator.iadd) as `x += 1;  iadd: "i64[]" = x`.
    for (const auto& [op, target] : kAugmentedToTarget) {
      if (!p.eat(op)) continue;
      n.kind = NodeKind::CallFunction;
      n.target = target;
      n.args.push_back(p.arg());  // `name` is read below, once it is known to be a value
      p.expect(";");
      auto it = names.find(name);
      if (it == names.end()) p.fail("unknown value '" + name + "'");
      n.args.insert(n.args.begin(), Arg::ref(it->second));
      n.name = p.valueName();
      if (p.eat(":"))
        if (auto t = p.type(p.quoted())) n.types.push_back(*t);
      p.expect("=");
      if (p.ident() != name) p.fail("expected '" + name + "' after '" + op + "'");
      break;
    }
    if (n.target.empty()) {
      // Nodes whose value is a tuple (chunk, split) print without a type, as FX prints them.
      if (p.eat(":"))
        if (auto t = p.type(p.quoted())) n.types.push_back(*t);
      p.expect("=");
    }
    // expression
    p.ws();
    if (n.target.empty() && p.peek() == '-') {
      size_t save = p.pos();
      p.expect("-");
      if (std::isalpha(static_cast<unsigned char>(p.peek())) || p.peek() == '_') {
        n.kind = NodeKind::CallFunction;
        n.target = "_operator.neg";
        n.args.push_back(p.arg());
      } else {
        p.setPos(save);
      }
    }
    if (n.target.empty()) {
      size_t save = p.pos();
      bool handled = false;
      if (std::isalpha(static_cast<unsigned char>(p.peek())) || p.peek() == '_') {
        std::string callee = p.dotted();
        if (p.peek() == '[' && names.count(callee)) {
          // x[index]: _operator.getitem with a Python index
          p.expect("[");
          n.kind = NodeKind::CallFunction;
          n.target = "_operator.getitem";
          n.args.push_back(Arg::ref(names[callee]));
          auto elem = [&]() -> Arg {
            if (p.eat("...")) return Arg::string("...");
            size_t save = p.pos();
            if (p.eat("slice(")) {
              std::vector<Arg> parts{Arg::string("slice")};
              for (int i = 0; i < 3; ++i) {
                parts.push_back(p.arg());
                if (i < 2) p.expect(",");
              }
              p.expect(")");
              return Arg::listOf(std::move(parts));
            }
            p.setPos(save);
            return p.arg();
          };
          if (p.peek() == '(') {
            p.expect("(");
            std::vector<Arg> items;
            while (p.peek() != ')') {
              items.push_back(elem());
              if (!p.eat(",")) break;
            }
            p.expect(")");
            n.args.push_back(Arg::listOf(std::move(items)));
          } else {
            n.args.push_back(elem());
          }
          p.expect("]");
          handled = true;
        } else if (p.peek() == '(') {
          size_t dot = callee.rfind('.');
          std::string recv = dot == std::string::npos ? "" : callee.substr(0, dot);
          if (!recv.empty() && names.count(recv)) {
            n.kind = NodeKind::CallMethod;
            n.target = callee.substr(dot + 1);
            n.args.push_back(Arg::ref(names[recv]));
          } else {
            n.kind = NodeKind::CallFunction;
            // ATen and prims ops are stored without "torch.ops." (printer.cpp's callTarget adds it
            // back); other targets keep their full name, so every text reads back to itself.
            const bool aten = callee.rfind("torch.ops.aten.", 0) == 0 || callee.rfind("torch.ops.prims.", 0) == 0;
            n.target = aten ? callee.substr(10) : callee;
          }
          p.callArgs(n);
          handled = true;
        }
      }
      if (!handled) {
        p.setPos(save);
        Arg lhs = p.arg();
        p.ws();
        std::string op;
        for (const char* o : {"**", "//", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "@", "<", ">", "&", "|"})
          if (p.eat(o)) {
            op = o;
            break;
          }
        if (op.empty()) p.fail("expected an operator or a call");
        n.kind = NodeKind::CallFunction;
        n.target = kInfixToTarget.at(op);
        n.args.push_back(lhs);
        n.args.push_back(p.arg());
      }
    }
    // ";  a = b = None" and "# kernel"
    if (p.eat(";")) {
      while (true) {
        p.ident();
        p.expect("=");
        p.ws();
        if (p.rest().rfind("None", 0) == 0) {
          p.expect("None");
          break;
        }
      }
    }
    if (p.eat("#")) {
      const std::string comment(trim(p.rest()));
      const std::string tag = kCheckpointComment;
      if (comment.rfind(tag, 0) == 0 && comment.size() > tag.size() &&
          std::all_of(comment.begin() + static_cast<std::ptrdiff_t>(tag.size()), comment.end(),
                      [](char c) { return c >= '0' && c <= '9'; }))
        n.prov.checkpointRegion = std::stoi(comment.substr(tag.size()));
      else n.kernel = comment;
      p.setPos(line.size());
    }
    if (!p.atEnd()) p.fail("unexpected text '" + std::string(p.rest()) + "'");
    if (names.count(n.name)) p.fail("duplicate value name '" + n.name + "'");
    n.prov.loc = loc;
    std::string key = n.name;
    names[key] = g.add(std::move(n)).id;
  }
  if (!sawDef) throw ParseError("graph text: no 'def forward' found", Location{fileName, lineNo, 1});
  if (!sawReturn) throw ParseError("graph text: missing return", Location{fileName, lineNo, 1});
  // A call `add.Tensor(x)` reads as a method call when `add` names a value at that line, and as a
  // function call otherwise; a value of that name made later (or an input renamed to it) would
  // make the printed text read back as a method call. FX never names a value like the first part
  // of a call target (its namespace reserves the globals the code uses), so such a text is refused.
  for (const Node& n : g.nodes) {
    if (n.kind != NodeKind::CallFunction) continue;
    const bool aten = n.target.rfind("aten.", 0) == 0 || n.target.rfind("prims.", 0) == 0;  // printed as torch.ops.*
    const std::string head = aten ? "torch" : n.target.substr(0, n.target.find('.'));
    if (n.target.find('.') != std::string::npos && names.count(head))
      throw ParseError("graph text: the call target '" + n.target + "' of '" + n.name + "' begins with '" + head +
                           "', the name of a value; it would read back as a method call on it",
                       Location{fileName, lineNo, 1});
  }
  return g;
}

}  // namespace kiln::ir
