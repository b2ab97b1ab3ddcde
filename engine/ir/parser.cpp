// Parser for the FX readable text form (see text.h). Line oriented: each statement is one
// line; expressions are the small subset printGraph emits.
#include "engine/ir/text.h"
#include "engine/ir/sym.h"

#include "engine/support/error.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace kiln::ir {

namespace {

const std::map<std::string, std::string> kInfixToTarget = {
    {"+", "_operator.add"}, {"-", "_operator.sub"}, {"*", "_operator.mul"}, {"/", "_operator.truediv"},
    {"//", "_operator.floordiv"}, {"%", "_operator.mod"}, {"**", "_operator.pow"}, {"@", "_operator.matmul"},
    {"<", "_operator.lt"}, {"<=", "_operator.le"}, {">", "_operator.gt"}, {">=", "_operator.ge"},
    {"==", "_operator.eq"}, {"!=", "_operator.ne"}, {"&", "_operator.and_"}, {"|", "_operator.or_"}};

class LineParser {
 public:
  LineParser(std::string_view s, int line, std::string file, const std::map<std::string, int>& names)
      : s_(s), line_(line), file_(std::move(file)), names_(names) {}

  static constexpr int kMaxDepth = 200;
  int depth_ = 0;

  [[noreturn]] void fail(const std::string& msg) { throw ParseError("graph text: " + msg, Location{file_, line_, static_cast<int>(p_) + 1}); }
  void ws() { while (p_ < s_.size() && s_[p_] == ' ') ++p_; }
  bool eat(std::string_view t) {
    ws();
    if (s_.substr(p_, t.size()) == t) { p_ += t.size(); return true; }
    return false;
  }
  void expect(std::string_view t) { if (!eat(t)) fail("expected '" + std::string(t) + "'"); }
  bool atEnd() { ws(); return p_ >= s_.size(); }
  char peek() { ws(); return p_ < s_.size() ? s_[p_] : '\0'; }
  size_t pos() const { return p_; }
  void setPos(size_t p) { p_ = p; }
  std::string_view rest() { ws(); return s_.substr(p_); }

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

  TensorType type(const std::string& text) {
    TensorType t;
    size_t b = text.find('[');
    if (b == std::string::npos || text.back() != ']') fail("bad tensor type '" + text + "'");
    auto dt = dtypeFromShort(text.substr(0, b));
    if (!dt) fail("unknown dtype in '" + text + "'");
    t.dtype = *dt;
    std::string dims = text.substr(b + 1, text.size() - b - 2);
    size_t i = 0;
    while (i < dims.size()) {
      size_t e = dims.find(',', i);
      std::string d = dims.substr(i, e == std::string::npos ? std::string::npos : e - i);
      while (!d.empty() && d[0] == ' ') d.erase(0, 1);
      if (d.empty()) fail("bad dimension in '" + text + "'");
      while (!d.empty() && d.back() == ' ') d.pop_back();
      if (auto p = parseSym(d); p && !p->syms.empty()) {
        t.sizes.push_back(Dim::sym(symText(*p)));  // a size expression of dynamic shapes: 16*s0
      } else if (std::isdigit(static_cast<unsigned char>(d[0]))) {
        char* end = nullptr;
        long long v = std::strtoll(d.c_str(), &end, 10);
        if (*end) fail("bad dimension '" + d + "'");
        t.sizes.emplace_back(static_cast<int64_t>(v));
      } else {
        for (char c : d)
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') fail("bad dimension '" + d + "'");
        t.sizes.push_back(Dim::sym(d));
      }
      if (e == std::string::npos) break;
      i = e + 1;
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
      if (s_.substr(p_, 3) == "inf") { p_ += 3; return Arg::real(-INFINITY); }
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
    auto it = names_.find(name);
    if (it == names_.end()) fail("unknown value '" + name + "'");
    return Arg::ref(it->second);
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

}  // namespace

Graph parseGraph(std::string_view text, const std::string& fileName) {
  Graph g;
  std::map<std::string, int> names;
  SourceLoc loc;
  int lineNo = 0;
  bool sawDef = false, sawReturn = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++lineNo;
    std::string_view line = trim(raw);
    if (line.empty()) { if (end == text.size()) break; continue; }
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
        n.target = p.ident();
        n.name = n.target;
        if (p.eat(":")) n.types.push_back(p.type(p.quoted()));
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
      Arg a = p.arg();
      if (a.kind != Arg::Kind::List) a = Arg::listOf({a});
      out.args.push_back(a);
      g.add(std::move(out));
      sawReturn = true;
      continue;
    }
    std::string name = p.ident();
    if (p.eat("=")) {
      // `l_x_ = L_x_`: a placeholder's local name
      std::string target = p.ident();
      auto it = names.find(target);
      Node* ph = it == names.end() ? nullptr : g.find(it->second);
      if (!ph || ph->kind != NodeKind::Placeholder) p.fail("'" + name + " = " + target + "' does not rename an input");
      names.erase(target);
      ph->name = name;
      names[name] = ph->id;
      continue;
    }
    Node n;
    n.name = name;
    // Nodes whose value is a tuple (chunk, split) print without a type, as FX prints them.
    if (p.eat(":")) n.types.push_back(p.type(p.quoted()));
    p.expect("=");
    // expression
    p.ws();
    if (p.peek() == '-' ) {
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
          if (p.eat(o)) { op = o; break; }
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
        if (p.rest().rfind("None", 0) == 0) { p.expect("None"); break; }
      }
    }
    if (p.eat("#")) n.kernel = std::string(trim(p.rest())), p.setPos(line.size());
    if (!p.atEnd()) p.fail("unexpected text '" + std::string(p.rest()) + "'");
    if (names.count(n.name)) p.fail("duplicate value name '" + n.name + "'");
    n.prov.loc = loc;
    std::string key = n.name;
    names[key] = g.add(std::move(n)).id;
  }
  if (!sawDef) throw ParseError("graph text: no 'def forward' found", Location{fileName, lineNo, 1});
  if (!sawReturn) throw ParseError("graph text: missing return", Location{fileName, lineNo, 1});
  return g;
}

}  // namespace kiln::ir
