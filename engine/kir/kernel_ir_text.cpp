// The kernel IR text form (see kernel_ir.h for an example): a canonical printer and a parser.
//
// Printing is canonical, so print(parse(print(k))) == print(k) and parse(print(k)) == k.
// Result dtypes are implied by the op and operands (see impliedType) and printed as a
// trailing `: dtype` only when an instruction's dtype differs from the implied one, which keeps
// the common text short while every Instr field still round-trips. (A store has no result;
// its dtype is implied by its buffer and ignored by code generators, which convert the stored
// value to the buffer's dtype.) The parser is a flat,
// line-oriented recursive-descent parser: no recursion on input, every step consumes input,
// and every malformed input ends in kiln::ParseError with line:col.
#include "engine/ir/sym.h"
#include "engine/kir/kernel_ir.h"
#include "engine/support/error.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

namespace kiln::kir {

namespace {

using ir::DType;

bool isCompare(Op op) { return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne; }

// The dtype an instruction has unless its text says otherwise. Const and Cast always spell
// their type; nullopt means "cannot tell" (bad operands), which makes the printer spell it.
std::optional<DType> impliedType(const Kernel& k, const Instr& in, const std::unordered_map<int, DType>& types) {
  auto operand = [&](size_t i) -> std::optional<DType> {
    if (i >= in.operands.size()) return std::nullopt;
    auto it = types.find(in.operands[i]);
    if (it == types.end()) return std::nullopt;
    return it->second;
  };
  switch (in.op) {
    case Op::Load:
    case Op::Store:
      if (in.buffer < 0 || in.buffer >= static_cast<int>(k.buffers.size())) return std::nullopt;
      return k.buffers[in.buffer].dtype;
    case Op::Const:
    case Op::Cast: return std::nullopt;
    case Op::Where: return operand(1);
    default:
      if (isCompare(in.op)) return DType::Bool;
      return operand(0);
  }
}

// ---------------------------------------------------------------------------------------------
// Printer

// Shortest text that reads back to the same double; always looks like a float ("2.0").
std::string formatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string formatConst(double v, DType d) {
  // Integer-typed constants read better without ".0" when they are exact integers.
  if (!ir::isFloating(d) && std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.2e18) return std::to_string(static_cast<int64_t>(v));
  return formatFloat(v);
}

// |v| without overflow for INT64_MIN.
std::string magnitude(int64_t v) {
  uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return std::to_string(m);
}

void printIndex(std::string& out, const Kernel& k, const IndexExpr& e) {
  bool first = true;
  auto sign = [&](bool negative) {
    if (first) out += negative ? "-" : "";
    else out += negative ? " - " : " + ";
    first = false;
  };
  for (const auto& t : e.terms) {
    sign(t.coeff < 0);
    if (t.loop >= 0 && t.loop < static_cast<int>(k.loops.size())) out += k.loops[t.loop].var;
    else out += "<loop " + std::to_string(t.loop) + ">";
    if (!t.coeffSym.empty()) out += "*" + t.coeffSym;
    else if (t.coeff != 1 && t.coeff != -1) out += "*" + magnitude(t.coeff);
  }
  if (e.offset != 0 || first) {
    sign(e.offset < 0);
    out += magnitude(e.offset);
  }
}

std::string bufferName(const Kernel& k, int b) {
  if (b >= 0 && b < static_cast<int>(k.buffers.size())) return k.buffers[b].name;
  return "<buffer " + std::to_string(b) + ">";
}

}  // namespace

std::string print(const Kernel& k) {
  std::string out = "kernel " + k.name + " " + k.kind + "\n";
  if (!k.sourceNodes.empty()) {
    out += "  nodes ";
    for (size_t i = 0; i < k.sourceNodes.size(); ++i) out += (i ? ", " : "") + std::to_string(k.sourceNodes[i]);
    out += "\n";
  }
  for (const auto& b : k.buffers) {
    out += b.inOut ? "  inout " : b.output ? "  out " : "  in ";
    out += b.name + ": " + std::string(ir::shortName(b.dtype)) + "[";
    for (size_t i = 0; i < b.shape.size(); ++i)
      out += (i ? ", " : "") + (i < b.shapeSym.size() && !b.shapeSym[i].empty() ? b.shapeSym[i] : std::to_string(b.shape[i]));
    out += "]\n";
  }
  for (const auto& l : k.loops) {
    out += "  loop " + l.var + " in 0.." + (l.extentSym.empty() ? std::to_string(l.extent) : l.extentSym);
    out += l.reduction ? " reduce\n" : "\n";
  }
  std::unordered_map<int, DType> types;
  for (const auto& in : k.body) {
    out += "  ";
    if (in.op != Op::Store) out += "%" + std::to_string(in.id) + " = ";
    out += opName(in.op);
    if (in.op == Op::Load || in.op == Op::Store) {
      out += " " + bufferName(k, in.buffer) + "[";
      printIndex(out, k, in.index);
      out += "]";
      if (in.op == Op::Store) out += ",";
    }
    if (in.op == Op::Const) out += " " + (in.constSym.empty() ? formatConst(in.constant, in.dtype) : in.constSym);
    for (size_t i = 0; i < in.operands.size(); ++i) out += (i ? ", %" : " %") + std::to_string(in.operands[i]);
    if (impliedType(k, in, types) != in.dtype) out += " : " + std::string(ir::shortName(in.dtype));
    if (in.node >= 0) out += " @" + std::to_string(in.node);
    out += "\n";
    if (in.op != Op::Store) types[in.id] = in.dtype;
  }
  out += "end\n";
  return out;
}

std::string print(const std::vector<Kernel>& ks) {
  std::string out;
  for (size_t i = 0; i < ks.size(); ++i) {
    if (i) out += "\n";
    out += print(ks[i]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser

namespace {

enum class Tok { Ident, Int, Float, Value, Punct, Newline, Eof };

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;
  int line = 1, col = 1;
  int64_t value = 0;  // Value (%id)
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  [[noreturn]] void fail(int line, int col, const std::string& msg) const {
    throw ParseError(std::to_string(line) + ":" + std::to_string(col) + ": " + msg, Location{"", line, col});
  }

  Token next() {
    skipBlanks();
    Token t;
    t.line = line_;
    t.col = col_;
    if (pos_ >= s_.size()) return t;
    size_t start = pos_;
    char c = s_[pos_];
    if (c == '\n') {
      advance(1);
      t.kind = Tok::Newline;
    } else if (isIdentStart(c)) {
      while (pos_ < s_.size() && isIdentChar(s_[pos_])) advance(1);
      t.kind = Tok::Ident;
    } else if (isDigit(c)) {
      t.kind = Tok::Int;
      while (pos_ < s_.size() && isDigit(s_[pos_])) advance(1);
      // A '.' belongs to the number only when a digit follows, so "0..4096" lexes as 0 .. 4096.
      if (pos_ + 1 < s_.size() && s_[pos_] == '.' && isDigit(s_[pos_ + 1])) {
        t.kind = Tok::Float;
        advance(1);
        while (pos_ < s_.size() && isDigit(s_[pos_])) advance(1);
      }
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        size_t p = pos_ + 1;
        if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
        if (p < s_.size() && isDigit(s_[p])) {
          t.kind = Tok::Float;
          advance(p - pos_);
          while (pos_ < s_.size() && isDigit(s_[pos_])) advance(1);
        }
      }
    } else if (c == '%') {
      advance(1);
      size_t digits = pos_;
      while (pos_ < s_.size() && isDigit(s_[pos_])) advance(1);
      if (pos_ == digits) fail(t.line, t.col, "expected a value number after '%'");
      auto r = std::from_chars(s_.data() + digits, s_.data() + pos_, t.value);
      if (r.ec != std::errc() || t.value > std::numeric_limits<int>::max()) fail(t.line, t.col, "value number out of range");
      t.kind = Tok::Value;
    } else if (c == '.' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '.') {
      advance(2);
      t.kind = Tok::Punct;
    } else if (std::strchr(":,[]+-*=@", c) != nullptr && c != '\0') {
      advance(1);
      t.kind = Tok::Punct;
    } else {
      fail(t.line, t.col, "unexpected character '" + printable(c) + "'");
    }
    t.text = s_.substr(start, pos_ - start);
    return t;
  }

 private:
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
  static bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
  static std::string printable(char c) {
    if (c >= 32 && c < 127) return std::string(1, c);
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
    return buf;
  }

  void advance(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (s_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
      ++pos_;
    }
  }

  // Spaces, tabs, carriage returns and '#' comments; newlines are tokens.
  void skipBlanks() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        advance(1);
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance(1);
      } else {
        break;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lex_(text) { tok_ = lex_.next(); }

  std::vector<Kernel> parseAll() {
    std::vector<Kernel> out;
    skipNewlines();
    while (tok_.kind != Tok::Eof) {
      out.push_back(parseKernel());
      skipNewlines();
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& msg) const { lex_.fail(at.line, at.col, msg); }
  [[noreturn]] void unexpected(const std::string& what) const {
    std::string got = tok_.kind == Tok::Eof       ? "end of input"
                      : tok_.kind == Tok::Newline ? "end of line"
                                                  : "'" + std::string(tok_.text) + "'";
    fail(tok_, "expected " + what + ", got " + got);
  }

  void advance() { tok_ = lex_.next(); }
  bool isPunct(char c) const { return tok_.kind == Tok::Punct && tok_.text.size() == 1 && tok_.text[0] == c; }
  bool isWord(std::string_view w) const { return tok_.kind == Tok::Ident && tok_.text == w; }
  void expectPunct(char c) {
    if (!isPunct(c)) unexpected(std::string("'") + c + "'");
    advance();
  }
  void expectWord(std::string_view w) {
    if (!isWord(w)) unexpected("'" + std::string(w) + "'");
    advance();
  }
  std::string ident(const std::string& what) {
    if (tok_.kind != Tok::Ident) unexpected(what);
    std::string s(tok_.text);
    advance();
    return s;
  }
  void endOfLine() {
    if (tok_.kind == Tok::Eof) return;
    if (tok_.kind != Tok::Newline) unexpected("end of line");
    advance();
  }
  void skipNewlines() {
    while (tok_.kind == Tok::Newline) advance();
  }

  // A non-negative integer literal; `negate` accepts magnitudes up to 2^63 for INT64_MIN.
  int64_t integer(const std::string& what, bool negate = false) {
    if (tok_.kind != Tok::Int) unexpected(what);
    uint64_t m = 0;
    auto r = std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), m);
    uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negate ? 1 : 0);
    if (r.ec != std::errc() || m > limit) fail(tok_, "integer out of range");
    advance();
    return negate ? static_cast<int64_t>(0 - m) : static_cast<int64_t>(m);
  }

  // An integer, or a size expression of dynamic shapes (s0, 16*s0, s0*s1: `sym` gets its
  // canonical text and the result is 0, the hint being unknown in text).
  int64_t sizeExpr(const std::string& what, std::string& sym) {
    if (tok_.kind == Tok::Int) {
      Token at = tok_;
      int64_t v = integer(what);
      if (!isPunct('*')) return v;
      std::string text = std::to_string(v);
      while (isPunct('*')) {
        advance();
        text += "*" + symbolToken(what);
      }
      sym = ir::symText(*ir::parseSym(text));
      (void)at;
      return 0;
    }
    std::string text = symbolToken(what);
    while (isPunct('*')) {
      advance();
      if (tok_.kind == Tok::Int) text += "*" + std::to_string(integer(what));
      else text += "*" + symbolToken(what);
    }
    auto p = ir::parseSym(text);
    if (!p) fail(tok_, "bad size expression '" + text + "'");
    sym = ir::symText(*p);
    return 0;
  }

  // One size symbol s<N>.
  std::string symbolToken(const std::string& what) {
    if (tok_.kind != Tok::Ident) unexpected(what);
    std::string t(tok_.text);
    auto p = ir::parseSym(t);
    if (!p || p->syms.size() != 1 || p->coeff != 1 || names_.count(t)) fail(tok_, "'" + t + "' is not a size symbol (s0, s1, ...)");
    advance();
    return t;
  }

  int smallInt(const std::string& what) {
    Token at = tok_;
    int64_t v = integer(what);
    if (v > std::numeric_limits<int>::max()) fail(at, "integer out of range");
    return static_cast<int>(v);
  }

  DType dtype() {
    if (tok_.kind != Tok::Ident) unexpected("a dtype");
    auto d = ir::dtypeFromShort(tok_.text);
    if (!d) fail(tok_, "unknown dtype '" + std::string(tok_.text) + "'");
    advance();
    return *d;
  }

  // Optional trailing ": dtype"; keeps `fallback` (the implied type) when absent.
  DType typeSuffix(std::optional<DType> fallback) {
    if (isPunct(':')) {
      advance();
      return dtype();
    }
    if (!fallback) unexpected("': dtype'");
    return *fallback;
  }

  Kernel parseKernel() {
    Kernel k;
    expectWord("kernel");
    k.name = ident("a kernel name");
    k.kind = ident("a kernel kind");
    endOfLine();
    names_.clear();
    types_.clear();
    for (;;) {
      skipNewlines();
      if (tok_.kind == Tok::Eof) unexpected("'end'");
      if (isWord("end")) {
        advance();
        endOfLine();
        return k;
      }
      parseLine(k);
    }
  }

  void parseLine(Kernel& k) {
    if (isWord("nodes")) {
      advance();
      k.sourceNodes.push_back(smallInt("a node id"));
      while (isPunct(',')) {
        advance();
        k.sourceNodes.push_back(smallInt("a node id"));
      }
    } else if (isWord("in") || isWord("out") || isWord("inout")) {
      Buffer b;
      b.inOut = isWord("inout");
      b.output = b.inOut || isWord("out");
      advance();
      Token at = tok_;
      b.name = ident("a buffer name");
      declare(at, b.name, static_cast<int>(k.buffers.size()), false);
      expectPunct(':');
      b.dtype = dtype();
      expectPunct('[');
      std::vector<std::string> syms;
      bool anySym = false;
      auto dim = [&] {
        std::string e;
        b.shape.push_back(sizeExpr("a dimension", e));
        anySym |= !e.empty();
        syms.push_back(std::move(e));
      };
      if (!isPunct(']')) {
        dim();
        while (isPunct(',')) {
          advance();
          dim();
        }
      }
      if (anySym) b.shapeSym = std::move(syms);
      expectPunct(']');
      k.buffers.push_back(std::move(b));
    } else if (isWord("loop")) {
      advance();
      Loop l;
      Token at = tok_;
      l.var = ident("a loop variable");
      declare(at, l.var, static_cast<int>(k.loops.size()), true);
      expectWord("in");
      if (tok_.kind != Tok::Int || tok_.text != "0") unexpected("0 (loops start at 0)");
      advance();
      if (!(tok_.kind == Tok::Punct && tok_.text == "..")) unexpected("'..'");
      advance();
      l.extent = sizeExpr("a loop extent", l.extentSym);
      if (isWord("reduce")) {
        advance();
        l.reduction = true;
      }
      k.loops.push_back(std::move(l));
    } else if (isWord("store")) {
      Instr in;
      in.op = Op::Store;
      advance();
      access(in);
      expectPunct(',');
      in.operands.push_back(operand());
      in.dtype = typeSuffix(impliedType(k, in, types_));
      in.node = provenance();
      k.body.push_back(std::move(in));
    } else if (tok_.kind == Tok::Value) {
      k.body.push_back(instruction(k));
      k.body.back().node = provenance();
    } else {
      unexpected("'nodes', 'in', 'out', 'inout', 'loop', an instruction or 'end'");
    }
    endOfLine();
  }

  Instr instruction(const Kernel& k) {
    Instr in;
    Token idTok = tok_;
    in.id = static_cast<int>(tok_.value);
    advance();
    if (types_.count(in.id)) fail(idTok, "%" + std::to_string(in.id) + " is already defined");
    expectPunct('=');
    if (tok_.kind != Tok::Ident) unexpected("an op name");
    if (!opFromName(tok_.text, &in.op) || in.op == Op::Store) fail(tok_, "unknown op '" + std::string(tok_.text) + "'");
    advance();
    if (in.op == Op::Load) {
      access(in);
    } else if (in.op == Op::Const) {
      if (tok_.kind == Tok::Ident && ir::parseSym(tok_.text)) in.constant = static_cast<double>(sizeExpr("a constant", in.constSym));
      else in.constant = number();
      if (in.constSym.empty() && isPunct('*')) {  // 16*s1
        Token at = tok_;
        if (in.constant != std::floor(in.constant) || in.constant < 1 || in.constant > 1e15)
          fail(at, "a size expression needs an integer factor");
        std::string text = std::to_string(static_cast<int64_t>(in.constant));
        while (isPunct('*')) {
          advance();
          text += "*" + symbolToken("a size symbol");
        }
        in.constSym = ir::symText(*ir::parseSym(text));
        in.constant = 0;  // the hint is unknown in text
      }
      expectPunct(':');
      in.dtype = dtype();
    } else {
      in.operands.push_back(operand());
      for (int i = 1; i < opArity(in.op); ++i) {
        expectPunct(',');
        in.operands.push_back(operand());
      }
    }
    if (in.op == Op::Cast) {
      expectPunct(':');
      in.dtype = dtype();
    } else if (in.op != Op::Const) {
      in.dtype = typeSuffix(impliedType(k, in, types_));
    }
    types_[in.id] = in.dtype;
    return in;
  }

  // An optional trailing `@N`: the graph node an instruction comes from.
  int provenance() {
    if (!isPunct('@')) return -1;
    advance();
    return smallInt("a node id");
  }

  int operand() {
    if (tok_.kind != Tok::Value) unexpected("a value (%N)");
    int id = static_cast<int>(tok_.value);
    if (!types_.count(id)) fail(tok_, "%" + std::to_string(id) + " is not defined");
    advance();
    return id;
  }

  // `buf[index]` of a load or store.
  void access(Instr& in) {
    Token at = tok_;
    std::string name = ident("a buffer name");
    auto it = names_.find(name);
    if (it == names_.end() || it->second.isLoop) fail(at, "unknown buffer '" + name + "'");
    in.buffer = it->second.index;
    expectPunct('[');
    index(in.index);
    expectPunct(']');
  }

  // sum of `var`, `var*N` and integer terms, each preceded by + or - (the first optionally -).
  void index(IndexExpr& e) {
    bool negative = false;
    if (isPunct('-')) {
      negative = true;
      advance();
    }
    for (;;) {
      if (tok_.kind == Tok::Ident) {
        Token at = tok_;
        auto it = names_.find(std::string(tok_.text));
        if (it == names_.end() || !it->second.isLoop) fail(at, "unknown loop variable '" + std::string(tok_.text) + "'");
        advance();
        IndexTerm t;
        t.loop = it->second.index;
        t.coeff = negative ? -1 : 1;
        if (isPunct('*')) {
          advance();
          Token at = tok_;
          if (tok_.kind == Tok::Ident) t.coeff = sizeExpr("a coefficient", t.coeffSym);
          else t.coeff = integer("a coefficient", negative);
          if (t.coeffSym.empty() && isPunct('*')) {  // 16*s1: a constant times size symbols
            if (negative) fail(at, "a size expression coefficient cannot be negative");
            std::string text = std::to_string(t.coeff);
            while (isPunct('*')) {
              advance();
              text += "*" + symbolToken("a size symbol");
            }
            t.coeffSym = ir::symText(*ir::parseSym(text));
            t.coeff = 0;
          }
          if (negative && !t.coeffSym.empty()) fail(at, "a size expression coefficient cannot be negative");
        }
        e.terms.push_back(t);
      } else if (tok_.kind == Tok::Int) {
        Token at = tok_;
        int64_t v = integer("an offset", negative);
        if (__builtin_add_overflow(e.offset, v, &e.offset)) fail(at, "offset out of range");
      } else {
        unexpected("a loop variable or an integer");
      }
      if (isPunct('+')) negative = false;
      else if (isPunct('-')) negative = true;
      else return;
      advance();
    }
  }

  double number() {
    bool negative = false;
    if (isPunct('-')) {
      negative = true;
      advance();
    }
    double v = 0;
    if (isWord("inf")) {
      v = std::numeric_limits<double>::infinity();
    } else if (isWord("nan")) {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (tok_.kind == Tok::Int || tok_.kind == Tok::Float) {
      auto r = std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), v);
      // Out-of-range literals are rejected rather than silently becoming inf or 0.
      if (r.ec != std::errc()) fail(tok_, "number out of range");
    } else {
      unexpected("a number");
    }
    advance();
    return negative ? -v : v;
  }

  // Buffers and loop variables share one namespace so an index can never be ambiguous.
  struct Name {
    int index;
    bool isLoop;
  };
  void declare(const Token& at, const std::string& name, int index, bool isLoop) {
    // s0, s1 ... (and s00, which reads as s0) are size symbols in extents and constants.
    if (ir::parseSym(name)) fail(at, "'" + name + "' is a size symbol's name; loop variables and buffers need other names");
    if (!names_.emplace(name, Name{index, isLoop}).second) fail(at, "'" + name + "' is already declared");
  }

  Lexer lex_;
  Token tok_;
  std::unordered_map<std::string, Name> names_;
  std::unordered_map<int, DType> types_;
};

}  // namespace

Kernel parseKernel(std::string_view text) {
  Parser p(text);
  auto ks = p.parseAll();
  if (ks.size() != 1) {
    int line = 1;
    for (char c : text) line += c == '\n';
    if (ks.empty()) line = 1;
    throw ParseError(std::to_string(line) + ":1: expected exactly one kernel, found " + std::to_string(ks.size()), Location{"", line, 1});
  }
  return std::move(ks.front());
}

std::vector<Kernel> parseKernels(std::string_view text) { return Parser(text).parseAll(); }

}  // namespace kiln::kir
