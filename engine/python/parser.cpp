#include "engine/python/parser.h"

#include "engine/python/lexer.h"

#include <cstdlib>
#include <set>

namespace kiln::py {

ExprP makeExpr(ExprKind k, Span s) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->span = s;
  return e;
}

StmtP makeStmt(StmtKind k, Span s) {
  auto st = std::make_shared<Stmt>();
  st->kind = k;
  st->span = s;
  return st;
}

namespace {

const std::set<std::string> kKeywords = {"False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
                                         "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
                                         "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
                                         "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

class Parser {
 public:
  Parser(std::vector<Token> toks, std::string file) : t_(std::move(toks)), file_(std::move(file)) {}

  Body parseFile() {
    Body body;
    while (!at(Tok::End)) {
      if (at(Tok::Newline)) {
        ++p_;
        continue;
      }
      if (at(Tok::Indent)) fail("IndentationError: unexpected indent", cur());
      parseStatement(body);
    }
    return body;
  }

  ExprP parseSingleExpression() {
    while (at(Tok::Newline)) ++p_;
    ExprP e = parseTestList();
    while (at(Tok::Newline)) ++p_;
    if (!at(Tok::End)) fail("SyntaxError: invalid syntax", cur());
    return e;
  }

 private:
  std::vector<Token> t_;
  std::string file_;
  size_t p_ = 0;
  int depthGuard_ = 0;
  // One entry per function body being parsed: whether a yield was seen in it (a generator).
  std::vector<bool> yieldSeen_;

  const Token& cur() const { return t_[p_]; }
  const Token& peek(int k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool atOp(std::string_view op) const { return cur().kind == Tok::Op && cur().text == op; }
  bool atKw(std::string_view kw) const { return cur().kind == Tok::Name && cur().text == kw; }
  Span spanOf(const Token& t) const { return Span{t.line, t.col, t.endLine, t.endCol}; }
  Span from(const Span& s) const {
    const Token& prev = t_[p_ > 0 ? p_ - 1 : 0];
    return Span{s.line, s.col, prev.endLine, prev.endCol};
  }

  [[noreturn]] void fail(const std::string& msg, const Token& at) {
    // Reaching the end inside brackets: say which bracket was never closed, as CPython does.
    if (at.kind == Tok::End && !at.text.empty())
      throw ParseError("SyntaxError: '" + at.text + "' was never closed", Location{file_, at.line, at.col});
    throw ParseError(msg, Location{file_, at.line, at.col});
  }
  [[noreturn]] void invalid() {
    if (at(Tok::Newline) || at(Tok::End)) fail("SyntaxError: invalid syntax", cur());
    if (at(Tok::Indent)) fail("IndentationError: unexpected indent", cur());
    fail("SyntaxError: invalid syntax", cur());
  }

  bool acceptOp(std::string_view op) {
    if (atOp(op)) {
      ++p_;
      return true;
    }
    return false;
  }
  bool acceptKw(std::string_view kw) {
    if (atKw(kw)) {
      ++p_;
      return true;
    }
    return false;
  }
  void expectOp(std::string_view op) {
    if (!acceptOp(op)) {
      if (op == ":") fail("SyntaxError: expected ':'", cur());
      if (op == ")" || op == "]" || op == "}") fail("SyntaxError: invalid syntax. Perhaps you forgot a comma?", cur());
      fail("SyntaxError: expected '" + std::string(op) + "'", cur());
    }
  }
  void expectKw(std::string_view kw) {
    if (!acceptKw(kw)) fail("SyntaxError: expected '" + std::string(kw) + "'", cur());
  }
  std::string expectName() {
    if (!at(Tok::Name) || kKeywords.count(cur().text)) invalid();
    return t_[p_++].text;
  }
  void expectNewline() {
    if (at(Tok::End)) return;
    if (!at(Tok::Newline)) invalid();
    ++p_;
  }

  // How deep the expression tree being built is along chains (`a + b + c ...`, `a.b.c ...`),
  // which loops build without recursion. The tree is walked (and destroyed) recursively, so a
  // script of 50,000 terms must fail here, as CPython's compiler fails, not overflow the stack.
  int chainDepth_ = 0;
  static constexpr int kMaxExprDepth = 1000;
  struct ChainGuard {
    Parser& p;
    int saved;
    explicit ChainGuard(Parser& pp) : p(pp), saved(pp.chainDepth_) {}
    void step() {
      if (++p.chainDepth_ + p.depthGuard_ > kMaxExprDepth)
        p.fail("RecursionError: maximum recursion depth exceeded during compilation", p.cur());
    }
    ~ChainGuard() { p.chainDepth_ = saved; }
  };

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& pp) : p(pp) {
      if (++p.depthGuard_ > 200) p.fail("SyntaxError: too many nested parentheses", p.cur());
    }
    ~DepthGuard() { --p.depthGuard_; }
  };

  // ---- statements ----

  Body parseBlock() {
    expectOp(":");
    Body body;
    if (!at(Tok::Newline)) {  // simple statements on the same line
      parseSimpleStatements(body);
      return body;
    }
    ++p_;
    if (!at(Tok::Indent)) fail("IndentationError: expected an indented block", cur());
    ++p_;
    while (!at(Tok::Dedent) && !at(Tok::End)) {
      if (at(Tok::Newline)) {
        ++p_;
        continue;
      }
      parseStatement(body);
    }
    if (at(Tok::Dedent)) ++p_;
    return body;
  }

  void parseStatement(Body& body) {
    const Token& t = cur();
    if (t.kind == Tok::Op && t.text == "@") {
      body.push_back(parseDecorated());
      return;
    }
    if (t.kind == Tok::Name) {
      const std::string& k = t.text;
      if (k == "def") {
        body.push_back(parseFunctionDef({}, t));
        return;
      }
      if (k == "class") {
        body.push_back(parseClassDef({}, t));
        return;
      }
      if (k == "if") {
        body.push_back(parseIf());
        return;
      }
      if (k == "for") {
        body.push_back(parseFor());
        return;
      }
      if (k == "while") {
        body.push_back(parseWhile());
        return;
      }
      if (k == "try") {
        body.push_back(parseTry());
        return;
      }
      if (k == "with") {
        body.push_back(parseWith());
        return;
      }
      if (k == "async" || k == "await") fail("SyntaxError: '" + k + "' is not supported by Kiln", t);
    }
    parseSimpleStatements(body);
  }

  void parseSimpleStatements(Body& body) {
    body.push_back(parseSimple());
    while (acceptOp(";")) {
      if (at(Tok::Newline) || at(Tok::End)) break;
      body.push_back(parseSimple());
    }
    expectNewline();
  }

  StmtP parseDecorated() {
    std::vector<ExprP> decos;
    const Token& first = cur();
    while (acceptOp("@")) {
      decos.push_back(parseNamedExprTest());
      expectNewline();
      while (at(Tok::Newline)) ++p_;
    }
    if (atKw("def")) return parseFunctionDef(std::move(decos), first);
    if (atKw("class")) return parseClassDef(std::move(decos), first);
    invalid();
  }

  std::vector<Param> parseParams(std::string_view close) {
    std::vector<Param> ps;
    bool kwOnly = false;
    bool sawDefault = false;
    while (!atOp(close)) {
      Param p;
      if (acceptOp("**")) {
        p.kind = Param::VarKw;
        p.name = expectName();
      } else if (acceptOp("*")) {
        if (atOp(",") || atOp(close)) {
          kwOnly = true;
          if (!acceptOp(",")) break;
          continue;
        }
        p.kind = Param::VarArgs;
        p.name = expectName();
        kwOnly = true;
      } else if (acceptOp("/")) {
        if (!acceptOp(",")) break;
        continue;
      } else {
        const Token& nt = cur();
        p.name = expectName();
        p.kind = kwOnly ? Param::KwOnly : Param::Normal;
        if (close == ")" && acceptOp(":")) parseTest();  // annotation, ignored
        if (acceptOp("=")) {
          p.defaultValue = parseTest();
          sawDefault = true;
        } else if (sawDefault && !kwOnly) fail("SyntaxError: non-default argument follows default argument", nt);
      }
      if (close == ")" && p.kind != Param::Normal && p.kind != Param::KwOnly && acceptOp(":")) parseTest();
      for (const auto& q : ps)
        if (q.name == p.name) fail("SyntaxError: duplicate argument '" + p.name + "' in function definition", cur());
      ps.push_back(std::move(p));
      if (!acceptOp(",")) break;
    }
    return ps;
  }

  std::string docstringOf(const Body& body) {
    if (!body.empty() && body[0]->kind == StmtKind::Expr && body[0]->value->kind == ExprKind::Str) return body[0]->value->str;
    return "";
  }

  StmtP parseFunctionDef(std::vector<ExprP> decos, const Token& start) {
    const Token& defTok = cur();
    expectKw("def");
    auto s = makeStmt(StmtKind::FunctionDef, spanOf(decos.empty() ? defTok : start));
    s->name = expectName();
    expectOp("(");
    s->params = parseParams(")");
    expectOp(")");
    if (acceptOp("->")) parseTest();
    s->decorators = std::move(decos);
    yieldSeen_.push_back(false);
    try {
      s->body = parseBlock();
    } catch (...) {
      yieldSeen_.pop_back();
      throw;
    }
    s->isGenerator = yieldSeen_.back();
    yieldSeen_.pop_back();
    s->docstring = docstringOf(s->body);
    s->span = from(s->span);
    return s;
  }

  StmtP parseClassDef(std::vector<ExprP> decos, const Token& start) {
    const Token& ct = cur();
    expectKw("class");
    auto s = makeStmt(StmtKind::ClassDef, spanOf(decos.empty() ? ct : start));
    s->name = expectName();
    if (acceptOp("(")) {
      while (!atOp(")")) {
        if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=") {
          Keyword k;
          k.name = t_[p_].text;
          p_ += 2;
          k.value = parseTest();
          s->classKeywords.push_back(std::move(k));
        } else {
          s->bases.push_back(parseTest());
        }
        if (!acceptOp(",")) break;
      }
      expectOp(")");
    }
    s->decorators = std::move(decos);
    yieldSeen_.push_back(false);
    try {
      s->body = parseBlock();
    } catch (...) {
      yieldSeen_.pop_back();
      throw;
    }
    s->isGenerator = yieldSeen_.back();
    yieldSeen_.pop_back();
    s->docstring = docstringOf(s->body);
    s->span = from(s->span);
    return s;
  }

  StmtP parseIf() {
    auto s = makeStmt(StmtKind::If, spanOf(cur()));
    ++p_;  // if / elif
    s->test = parseNamedExprTest();
    s->body = parseBlock();
    while (at(Tok::Newline)) ++p_;
    if (atKw("elif")) {
      s->orelse.push_back(parseIf());
    } else if (acceptKw("else")) {
      s->orelse = parseBlock();
    }
    s->span = from(s->span);
    return s;
  }

  StmtP parseFor() {
    auto s = makeStmt(StmtKind::For, spanOf(cur()));
    expectKw("for");
    s->target = parseTargetList();
    expectKw("in");
    s->value = parseTestList();
    s->body = parseBlock();
    if (acceptKw("else")) s->orelse = parseBlock();
    s->span = from(s->span);
    return s;
  }

  StmtP parseWhile() {
    auto s = makeStmt(StmtKind::While, spanOf(cur()));
    expectKw("while");
    s->test = parseNamedExprTest();
    s->body = parseBlock();
    if (acceptKw("else")) s->orelse = parseBlock();
    s->span = from(s->span);
    return s;
  }

  StmtP parseTry() {
    auto s = makeStmt(StmtKind::Try, spanOf(cur()));
    expectKw("try");
    s->body = parseBlock();
    while (atKw("except")) {
      Handler h;
      h.span = spanOf(cur());
      ++p_;
      if (!atOp(":")) {
        h.type = parseTest();
        if (acceptKw("as")) h.name = expectName();
      }
      h.body = parseBlock();
      s->handlers.push_back(std::move(h));
    }
    if (acceptKw("else")) s->orelse = parseBlock();
    if (acceptKw("finally")) s->finalbody = parseBlock();
    if (s->handlers.empty() && s->finalbody.empty()) fail("SyntaxError: expected 'except' or 'finally' block", cur());
    s->span = from(s->span);
    return s;
  }

  StmtP parseWith() {
    auto s = makeStmt(StmtKind::With, spanOf(cur()));
    expectKw("with");
    do {
      WithItem it;
      it.context = parseTest();
      if (acceptKw("as")) it.target = parseTarget();
      s->items.push_back(std::move(it));
    } while (acceptOp(","));
    s->body = parseBlock();
    s->span = from(s->span);
    return s;
  }

  StmtP parseSimple() {
    const Token& t = cur();
    Span sp = spanOf(t);
    if (t.kind == Tok::Name) {
      const std::string& k = t.text;
      if (k == "pass") {
        ++p_;
        return makeStmt(StmtKind::Pass, sp);
      }
      if (k == "break") {
        ++p_;
        return makeStmt(StmtKind::Break, sp);
      }
      if (k == "continue") {
        ++p_;
        return makeStmt(StmtKind::Continue, sp);
      }
      if (k == "return") {
        ++p_;
        auto s = makeStmt(StmtKind::Return, sp);
        if (!at(Tok::Newline) && !atOp(";") && !at(Tok::End)) s->value = atYield() ? parseYieldExpr() : parseTestListStarExpr();
        s->span = from(sp);
        return s;
      }
      if (k == "raise") {
        ++p_;
        auto s = makeStmt(StmtKind::Raise, sp);
        if (!at(Tok::Newline) && !atOp(";") && !at(Tok::End)) {
          s->value = parseTest();
          if (acceptKw("from")) s->value2 = parseTest();
        }
        s->span = from(sp);
        return s;
      }
      if (k == "assert") {
        ++p_;
        auto s = makeStmt(StmtKind::Assert, sp);
        s->test = parseTest();
        if (acceptOp(",")) s->value2 = parseTest();
        s->span = from(sp);
        return s;
      }
      if (k == "global" || k == "nonlocal") {
        ++p_;
        auto s = makeStmt(k == "global" ? StmtKind::Global : StmtKind::Nonlocal, sp);
        do {
          auto n = makeExpr(ExprKind::Name, spanOf(cur()));
          n->name = expectName();
          s->targets.push_back(n);
        } while (acceptOp(","));
        return s;
      }
      if (k == "del") {
        ++p_;
        auto s = makeStmt(StmtKind::Delete, sp);
        do s->targets.push_back(parseTarget());
        while (acceptOp(","));
        return s;
      }
      if (k == "import") return parseImport();
      if (k == "from") return parseFromImport();
    }
    ExprP first = atYield() ? parseYieldExpr() : parseTestListStarExpr();
    if (atOp("=")) {
      auto s = makeStmt(StmtKind::Assign, sp);
      checkAssignable(first);
      s->targets.push_back(first);
      while (acceptOp("=")) {
        ExprP next = atYield() ? parseYieldExpr() : parseTestListStarExpr();
        s->targets.push_back(next);
      }
      s->value = s->targets.back();
      s->targets.pop_back();
      for (auto& tg : s->targets) checkAssignable(tg);
      s->span = from(sp);
      return s;
    }
    static const std::set<std::string> kAug = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<="};
    if (cur().kind == Tok::Op && kAug.count(cur().text)) {
      auto s = makeStmt(StmtKind::AugAssign, sp);
      s->op = cur().text.substr(0, cur().text.size() - 1);
      if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute && first->kind != ExprKind::Subscript)
        fail("SyntaxError: 'expression' is an illegal expression for augmented assignment", t);
      ++p_;
      s->target = first;
      s->value = atYield() ? parseYieldExpr() : parseTestList();
      s->span = from(sp);
      return s;
    }
    if (atOp(":")) {  // annotated assignment
      ++p_;
      auto s = makeStmt(StmtKind::AnnAssign, sp);
      s->target = first;
      s->value2 = parseTest();
      if (acceptOp("=")) s->value = parseTestList();
      s->span = from(sp);
      return s;
    }
    auto s = makeStmt(StmtKind::Expr, sp);
    s->value = first;
    s->span = from(sp);
    return s;
  }

  void checkAssignable(const ExprP& e) {
    switch (e->kind) {
      case ExprKind::Name:
      case ExprKind::Attribute:
      case ExprKind::Subscript: return;
      case ExprKind::Tuple:
      case ExprKind::List:
        for (auto& x : e->items) checkAssignable(x);
        return;
      case ExprKind::Starred: checkAssignable(e->target); return;
      case ExprKind::Call:
        throw ParseError("SyntaxError: cannot assign to function call here. Maybe you meant '==' instead of '='?",
                         Location{file_, e->span.line, e->span.col});
      case ExprKind::Int:
      case ExprKind::Float:
      case ExprKind::Str:
      case ExprKind::Bool:
      case ExprKind::None:
        throw ParseError("SyntaxError: cannot assign to literal here. Maybe you meant '==' instead of '='?",
                         Location{file_, e->span.line, e->span.col});
      default:
        throw ParseError("SyntaxError: cannot assign to expression here. Maybe you meant '==' instead of '='?",
                         Location{file_, e->span.line, e->span.col});
    }
  }

  std::string dottedName() {
    std::string n = expectName();
    while (acceptOp(".")) n += "." + expectName();
    return n;
  }

  StmtP parseImport() {
    auto s = makeStmt(StmtKind::Import, spanOf(cur()));
    expectKw("import");
    do {
      Alias a;
      a.name = dottedName();
      if (acceptKw("as")) a.asname = expectName();
      s->names.push_back(std::move(a));
    } while (acceptOp(","));
    s->span = from(s->span);
    return s;
  }

  StmtP parseFromImport() {
    auto s = makeStmt(StmtKind::ImportFrom, spanOf(cur()));
    expectKw("from");
    while (atOp(".") || atOp("...")) {
      s->level += atOp(".") ? 1 : 3;
      ++p_;
    }
    if (!atKw("import")) s->module = dottedName();
    expectKw("import");
    bool paren = acceptOp("(");
    if (acceptOp("*")) {
      s->names.push_back(Alias{"*", ""});
    } else {
      do {
        if (paren && atOp(")")) break;
        Alias a;
        a.name = expectName();
        if (acceptKw("as")) a.asname = expectName();
        s->names.push_back(std::move(a));
      } while (acceptOp(","));
    }
    if (paren) expectOp(")");
    s->span = from(s->span);
    return s;
  }

  // ---- expressions ----

  ExprP parseTarget() {
    DepthGuard g(*this);
    if (acceptOp("*")) {
      auto e = makeExpr(ExprKind::Starred, spanOf(t_[p_ - 1]));
      e->target = parseTarget();
      return e;
    }
    if (atOp("(") || atOp("[")) { return parseOrExpr(); }
    return parseOrExpr();
  }

  ExprP parseTargetList() {
    Span sp = spanOf(cur());
    ExprP first = parseTarget();
    if (!atOp(",")) return first;
    auto tup = makeExpr(ExprKind::Tuple, sp);
    tup->items.push_back(first);
    while (acceptOp(",")) {
      if (atKw("in") || atOp("=")) break;
      tup->items.push_back(parseTarget());
    }
    tup->span = from(sp);
    return tup;
  }

  ExprP parseTestListStarExpr() {
    Span sp = spanOf(cur());
    ExprP first = atOp("*") ? parseStarExpr() : parseTest();
    if (!atOp(",")) return first;
    auto tup = makeExpr(ExprKind::Tuple, sp);
    tup->items.push_back(first);
    while (acceptOp(",")) {
      if (at(Tok::Newline) || atOp("=") || atOp(")") || atOp(";") || at(Tok::End) ||
          (cur().kind == Tok::Op && cur().text.size() >= 2 && cur().text.back() == '=' && cur().text != "==" && cur().text != "!=" &&
           cur().text != "<=" && cur().text != ">="))
        break;
      tup->items.push_back(atOp("*") ? parseStarExpr() : parseTest());
    }
    tup->span = from(sp);
    return tup;
  }

  ExprP parseTestList() { return parseTestListStarExpr(); }

  ExprP parseStarExpr() {
    Span sp = spanOf(cur());
    expectOp("*");
    auto e = makeExpr(ExprKind::Starred, sp);
    e->target = parseOrExpr();
    e->span = from(sp);
    return e;
  }

  ExprP parseNamedExprTest() { return parseTest(); }

  ExprP parseTest() {
    DepthGuard g(*this);
    if (atKw("lambda")) return parseLambda();
    Span sp = spanOf(cur());
    ExprP e = parseOrTest();
    if (atKw("if")) {
      ++p_;
      auto ie = makeExpr(ExprKind::IfExp, sp);
      ie->a = e;
      ie->target = parseOrTest();
      expectKw("else");
      ie->b = parseTest();
      ie->span = from(sp);
      return ie;
    }
    return e;
  }

  ExprP parseTestNoCond() {
    if (atKw("lambda")) return parseLambda();
    return parseOrTest();
  }

  ExprP parseLambda() {
    Span sp = spanOf(cur());
    expectKw("lambda");
    auto e = makeExpr(ExprKind::Lambda, sp);
    e->params = parseParams(":");
    expectOp(":");
    yieldSeen_.push_back(false);
    e->target = parseTest();
    bool gen = yieldSeen_.back();
    yieldSeen_.pop_back();
    if (gen) fail("SyntaxError: 'yield' inside lambda is not supported by Kiln", cur());
    e->span = from(sp);
    return e;
  }

  bool atYield() const { return cur().kind == Tok::Name && cur().text == "yield"; }

  // yield_expr: `yield`, `yield a, b`, `yield from x` (a statement, an assignment's right
  // side, or parenthesized).
  ExprP parseYieldExpr() {
    Span sp = spanOf(cur());
    if (yieldSeen_.empty()) fail("SyntaxError: 'yield' outside function", cur());
    ++p_;
    yieldSeen_.back() = true;
    if (acceptKw("from")) {
      auto e = makeExpr(ExprKind::YieldFrom, sp);
      e->target = parseTest();
      e->span = from(sp);
      return e;
    }
    auto e = makeExpr(ExprKind::Yield, sp);
    if (!at(Tok::Newline) && !at(Tok::End) && !atOp(")") && !atOp(";") && !atOp("=") && !atOp("]") && !atOp("}"))
      e->target = parseTestListStarExpr();
    e->span = from(sp);
    return e;
  }

  ExprP parseOrTest() {
    Span sp = spanOf(cur());
    ExprP e = parseAndTest();
    if (!atKw("or")) return e;
    auto b = makeExpr(ExprKind::BoolOp, sp);
    b->name = "or";
    b->items.push_back(e);
    while (acceptKw("or")) b->items.push_back(parseAndTest());
    b->span = from(sp);
    return b;
  }

  ExprP parseAndTest() {
    Span sp = spanOf(cur());
    ExprP e = parseNotTest();
    if (!atKw("and")) return e;
    auto b = makeExpr(ExprKind::BoolOp, sp);
    b->name = "and";
    b->items.push_back(e);
    while (acceptKw("and")) b->items.push_back(parseNotTest());
    b->span = from(sp);
    return b;
  }

  ExprP parseNotTest() {
    DepthGuard g(*this);
    Span sp = spanOf(cur());
    if (acceptKw("not")) {
      auto u = makeExpr(ExprKind::UnaryOp, sp);
      u->name = "not";
      u->a = parseNotTest();
      u->span = from(sp);
      return u;
    }
    return parseComparison();
  }

  ExprP parseComparison() {
    Span sp = spanOf(cur());
    ExprP e = parseOrExpr();
    ExprP cmp;
    while (true) {
      std::string op;
      if (cur().kind == Tok::Op && (cur().text == "<" || cur().text == ">" || cur().text == "==" || cur().text == ">=" ||
                                    cur().text == "<=" || cur().text == "!=")) {
        op = cur().text;
        ++p_;
      } else if (atKw("in")) {
        op = "in";
        ++p_;
      } else if (atKw("not") && peek().kind == Tok::Name && peek().text == "in") {
        op = "not in";
        p_ += 2;
      } else if (atKw("is")) {
        ++p_;
        op = acceptKw("not") ? "is not" : "is";
      } else {
        break;
      }
      if (!cmp) {
        cmp = makeExpr(ExprKind::Compare, sp);
        cmp->items.push_back(e);
      }
      cmp->ops.push_back(op);
      cmp->items.push_back(parseOrExpr());
    }
    if (!cmp) return e;
    cmp->span = from(sp);
    return cmp;
  }

  ExprP binary(ExprP lhs, const std::string& op, ExprP rhs, Span sp) {
    auto b = makeExpr(ExprKind::BinOp, sp);
    b->name = op;
    b->a = std::move(lhs);
    b->b = std::move(rhs);
    b->span = from(sp);
    return b;
  }

  template <typename Next>
  ExprP parseLeftAssoc(std::initializer_list<std::string_view> ops, Next next) {
    Span sp = spanOf(cur());
    ExprP e = (this->*next)();
    ChainGuard chain(*this);
    while (cur().kind == Tok::Op) {
      bool matched = false;
      for (auto op : ops) {
        if (cur().text == op) {
          ++p_;
          chain.step();
          e = binary(e, std::string(op), (this->*next)(), sp);
          matched = true;
          break;
        }
      }
      if (!matched) break;
    }
    return e;
  }

  ExprP parseOrExpr() { return parseLeftAssoc({"|"}, &Parser::parseXorExpr); }
  ExprP parseXorExpr() { return parseLeftAssoc({"^"}, &Parser::parseAndExpr); }
  ExprP parseAndExpr() { return parseLeftAssoc({"&"}, &Parser::parseShiftExpr); }
  ExprP parseShiftExpr() { return parseLeftAssoc({"<<", ">>"}, &Parser::parseArith); }
  ExprP parseArith() { return parseLeftAssoc({"+", "-"}, &Parser::parseTerm); }
  ExprP parseTerm() { return parseLeftAssoc({"*", "/", "//", "%", "@"}, &Parser::parseFactor); }

  ExprP parseFactor() {
    DepthGuard g(*this);
    Span sp = spanOf(cur());
    if (atOp("-") || atOp("+") || atOp("~")) {
      std::string op = cur().text;
      ++p_;
      ExprP operand = parseFactor();
      // Fold negative literals so `-1` is a constant (as CPython's AST optimizer does).
      if (op == "-" && operand->kind == ExprKind::Int && !operand->bigInt) {
        operand->ival = -operand->ival;
        operand->span = from(sp);
        return operand;
      }
      if (op == "-" && operand->kind == ExprKind::Float) {
        operand->fval = -operand->fval;
        operand->span = from(sp);
        return operand;
      }
      auto u = makeExpr(ExprKind::UnaryOp, sp);
      u->name = op;
      u->a = operand;
      u->span = from(sp);
      return u;
    }
    return parsePower();
  }

  ExprP parsePower() {
    Span sp = spanOf(cur());
    ExprP e = parsePrimary();
    if (acceptOp("**")) return binary(e, "**", parseFactor(), sp);
    return e;
  }

  ExprP parsePrimary() {
    Span sp = spanOf(cur());
    ExprP e = parseAtom();
    ChainGuard chain(*this);
    while (true) {
      chain.step();
      if (acceptOp(".")) {
        auto a = makeExpr(ExprKind::Attribute, sp);
        a->target = e;
        a->name = expectName();
        a->span = from(sp);
        e = a;
      } else if (atOp("(")) {
        e = parseCall(e, sp);
      } else if (acceptOp("[")) {
        auto s = makeExpr(ExprKind::Subscript, sp);
        s->target = e;
        s->a = parseSubscriptList();
        expectOp("]");
        s->span = from(sp);
        e = s;
      } else {
        break;
      }
    }
    return e;
  }

  ExprP parseCall(ExprP fn, Span sp) {
    expectOp("(");
    auto c = makeExpr(ExprKind::Call, sp);
    c->target = fn;
    bool sawKw = false;
    while (!atOp(")")) {
      if (acceptOp("**")) {
        c->keywords.push_back(Keyword{"", parseTest()});
        sawKw = true;
      } else if (atOp("*")) {
        c->items.push_back(parseStarExpr());
      } else if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=") {
        Keyword k;
        k.name = cur().text;
        p_ += 2;
        k.value = parseTest();
        for (const auto& o : c->keywords)
          if (o.name == k.name) fail("SyntaxError: keyword argument repeated: " + k.name, t_[p_ - 1]);
        c->keywords.push_back(std::move(k));
        sawKw = true;
      } else {
        const Token& at0 = cur();
        ExprP arg = parseTest();
        if (atKw("for")) {
          arg = parseComprehensionTail(ExprKind::GeneratorExp, arg, spanOf(at0));
        } else if (sawKw) {
          fail("SyntaxError: positional argument follows keyword argument", at0);
        }
        c->items.push_back(arg);
      }
      if (!acceptOp(",")) break;
    }
    expectOp(")");
    c->span = from(sp);
    return c;
  }

  ExprP parseSubscriptList() {
    Span sp = spanOf(cur());
    ExprP first = parseSubscript();
    if (!atOp(",")) return first;
    auto tup = makeExpr(ExprKind::Tuple, sp);
    tup->items.push_back(first);
    while (acceptOp(",")) {
      if (atOp("]")) break;
      tup->items.push_back(parseSubscript());
    }
    tup->span = from(sp);
    return tup;
  }

  ExprP parseSubscript() {
    Span sp = spanOf(cur());
    ExprP lower;
    if (!atOp(":")) {
      lower = parseTest();
      if (!atOp(":")) return lower;
    }
    auto s = makeExpr(ExprKind::Slice, sp);
    s->a = lower;
    expectOp(":");
    if (!atOp(":") && !atOp(",") && !atOp("]")) s->b = parseTest();
    if (acceptOp(":")) {
      if (!atOp(",") && !atOp("]")) s->c = parseTest();
    }
    s->span = from(sp);
    return s;
  }

  ExprP parseComprehensionTail(ExprKind kind, ExprP elt, Span sp) {
    auto c = makeExpr(kind, sp);
    c->a = elt;
    while (acceptKw("for")) {
      Comprehension g;
      g.target = parseTargetList();
      expectKw("in");
      g.iter = parseOrTest();
      while (atKw("if")) {
        ++p_;
        g.ifs.push_back(parseTestNoCond());
      }
      c->generators.push_back(std::move(g));
    }
    c->span = from(sp);
    return c;
  }

  ExprP parseAtom() {
    DepthGuard g(*this);
    const Token& t = cur();
    Span sp = spanOf(t);
    switch (t.kind) {
      case Tok::Int: {
        ++p_;
        auto e = makeExpr(ExprKind::Int, sp);
        const std::string& s = t.text;
        errno = 0;
        int base = 10;
        std::string digits = s;
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
          base = 16;
          digits = s.substr(2);
        } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
          base = 8;
          digits = s.substr(2);
        } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
          base = 2;
          digits = s.substr(2);
        } else if (s.size() > 1 && s[0] == '0' && s.find_first_not_of('0') != std::string::npos)
          fail("SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", t);
        char* end = nullptr;
        long long v = std::strtoll(digits.c_str(), &end, base);
        if (errno == ERANGE || (end && *end)) {
          if (end && *end) fail("SyntaxError: invalid integer literal", t);
          // Beyond int64: kept as text, made a Python (big) int when evaluated.
          e->bigInt = true;
          e->str = s;
        }
        e->ival = v;
        return e;
      }
      case Tok::Float: {
        ++p_;
        auto e = makeExpr(ExprKind::Float, sp);
        e->fval = std::strtod(t.text.c_str(), nullptr);
        return e;
      }
      case Tok::String:
      case Tok::FString: return parseStrings();
      case Tok::Name: {
        if (t.text == "None") {
          ++p_;
          return makeExpr(ExprKind::None, sp);
        }
        if (t.text == "True" || t.text == "False") {
          ++p_;
          auto e = makeExpr(ExprKind::Bool, sp);
          e->bval = t.text == "True";
          return e;
        }
        if (kKeywords.count(t.text)) invalid();
        ++p_;
        auto e = makeExpr(ExprKind::Name, sp);
        e->name = t.text;
        return e;
      }
      case Tok::Op: {
        if (t.text == "...") {
          ++p_;
          return makeExpr(ExprKind::Ellipsis, sp);
        }
        if (t.text == "(") return parseParen();
        if (t.text == "[") return parseListDisplay();
        if (t.text == "{") return parseDictOrSet();
        invalid();
      }
      default: invalid();
    }
  }

  ExprP parseParen() {
    Span sp = spanOf(cur());
    expectOp("(");
    if (acceptOp(")")) {
      auto e = makeExpr(ExprKind::Tuple, sp);
      e->span = from(sp);
      return e;
    }
    if (atYield()) {
      ExprP y = parseYieldExpr();
      expectOp(")");
      return y;
    }
    ExprP first = atOp("*") ? parseStarExpr() : parseTest();
    if (atKw("for")) {
      ExprP g = parseComprehensionTail(ExprKind::GeneratorExp, first, sp);
      expectOp(")");
      g->span = from(sp);
      return g;
    }
    if (acceptOp(")")) return first;
    auto tup = makeExpr(ExprKind::Tuple, sp);
    tup->items.push_back(first);
    while (acceptOp(",")) {
      if (atOp(")")) break;
      tup->items.push_back(atOp("*") ? parseStarExpr() : parseTest());
    }
    expectOp(")");
    tup->span = from(sp);
    return tup;
  }

  ExprP parseListDisplay() {
    Span sp = spanOf(cur());
    expectOp("[");
    auto l = makeExpr(ExprKind::List, sp);
    if (acceptOp("]")) {
      l->span = from(sp);
      return l;
    }
    ExprP first = atOp("*") ? parseStarExpr() : parseTest();
    if (atKw("for")) {
      ExprP c = parseComprehensionTail(ExprKind::ListComp, first, sp);
      expectOp("]");
      c->span = from(sp);
      return c;
    }
    l->items.push_back(first);
    while (acceptOp(",")) {
      if (atOp("]")) break;
      l->items.push_back(atOp("*") ? parseStarExpr() : parseTest());
    }
    expectOp("]");
    l->span = from(sp);
    return l;
  }

  ExprP parseDictOrSet() {
    Span sp = spanOf(cur());
    expectOp("{");
    if (acceptOp("}")) {
      auto d = makeExpr(ExprKind::Dict, sp);
      d->span = from(sp);
      return d;
    }
    if (acceptOp("**")) {
      auto d = makeExpr(ExprKind::Dict, sp);
      d->items.push_back(nullptr);
      d->values.push_back(parseOrExpr());
      while (acceptOp(",")) {
        if (atOp("}")) break;
        parseDictEntry(d);
      }
      expectOp("}");
      d->span = from(sp);
      return d;
    }
    ExprP first = parseTest();
    if (acceptOp(":")) {
      ExprP v = parseTest();
      if (atKw("for")) {
        auto c = parseComprehensionTail(ExprKind::DictComp, first, sp);
        c->b = v;
        expectOp("}");
        c->span = from(sp);
        return c;
      }
      auto d = makeExpr(ExprKind::Dict, sp);
      d->items.push_back(first);
      d->values.push_back(v);
      while (acceptOp(",")) {
        if (atOp("}")) break;
        parseDictEntry(d);
      }
      expectOp("}");
      d->span = from(sp);
      return d;
    }
    if (atKw("for")) {
      auto c = parseComprehensionTail(ExprKind::SetComp, first, sp);
      expectOp("}");
      c->span = from(sp);
      return c;
    }
    auto s = makeExpr(ExprKind::Set, sp);
    s->items.push_back(first);
    while (acceptOp(",")) {
      if (atOp("}")) break;
      s->items.push_back(parseTest());
    }
    expectOp("}");
    s->span = from(sp);
    return s;
  }

  void parseDictEntry(const ExprP& d) {
    if (acceptOp("**")) {
      d->items.push_back(nullptr);
      d->values.push_back(parseOrExpr());
      return;
    }
    d->items.push_back(parseTest());
    expectOp(":");
    d->values.push_back(parseTest());
  }

  // Adjacent string literals concatenate; f-strings become an FString of parts.
  ExprP parseStrings() {
    Span sp = spanOf(cur());
    std::vector<ExprP> parts;
    bool anyF = false;
    while (at(Tok::String) || at(Tok::FString)) {
      const Token& t = cur();
      ++p_;
      if (t.kind == Tok::String) {
        auto s = makeExpr(ExprKind::Str, spanOf(t));
        s->str = t.text;
        parts.push_back(s);
      } else {
        anyF = true;
        parseFStringParts(t, parts);
      }
    }
    if (!anyF) {
      auto s = makeExpr(ExprKind::Str, sp);
      for (auto& p : parts) s->str += p->str;
      s->span = from(sp);
      return s;
    }
    auto f = makeExpr(ExprKind::FString, sp);
    f->items = std::move(parts);
    f->span = from(sp);
    return f;
  }

  void parseFStringParts(const Token& t, std::vector<ExprP>& parts) {
    const std::string& s = t.text;
    std::string lit;
    size_t i = 0;
    auto flush = [&] {
      if (lit.empty()) return;
      auto e = makeExpr(ExprKind::Str, spanOf(t));
      e->str = lit;
      parts.push_back(e);
      lit.clear();
    };
    while (i < s.size()) {
      char c = s[i];
      if (c == '{' && i + 1 < s.size() && s[i + 1] == '{') {
        lit += '{';
        i += 2;
        continue;
      }
      if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
        lit += '}';
        i += 2;
        continue;
      }
      if (c == '}') fail("SyntaxError: f-string: single '}' is not allowed", t);
      if (c != '{') {
        lit += c;
        ++i;
        continue;
      }
      flush();
      // find the matching close, respecting nested brackets and strings
      size_t j = i + 1;
      int depth = 0;
      char quote = 0;
      size_t exprEnd = std::string::npos, convAt = std::string::npos, specAt = std::string::npos;
      for (; j < s.size(); ++j) {
        char d = s[j];
        if (quote) {
          if (d == quote) quote = 0;
          continue;
        }
        if (d == '\'' || d == '"') {
          quote = d;
          continue;
        }
        if (d == '(' || d == '[' || d == '{') {
          ++depth;
          continue;
        }
        if ((d == ')' || d == ']') && depth > 0) {
          --depth;
          continue;
        }
        if (d == '}' && depth > 0) {
          --depth;
          continue;
        }
        if (depth == 0 && d == '!' && j + 1 < s.size() && s[j + 1] != '=' && exprEnd == std::string::npos) {
          exprEnd = j;
          convAt = j + 1;
          continue;
        }
        if (depth == 0 && d == ':' && specAt == std::string::npos) {
          if (exprEnd == std::string::npos) exprEnd = j;
          specAt = j + 1;
          continue;
        }
        if (depth == 0 && d == '}') break;
      }
      if (j >= s.size()) fail("SyntaxError: f-string: expecting '}'", t);
      if (exprEnd == std::string::npos) exprEnd = j;
      std::string exprText = s.substr(i + 1, exprEnd - i - 1);
      bool selfDoc = false;
      if (!exprText.empty() && exprText.back() == '=') {
        selfDoc = true;
        exprText.pop_back();
      }
      if (exprText.find_first_not_of(" \t") == std::string::npos) fail("SyntaxError: f-string: valid expression required before '}'", t);
      ExprP e;
      try {
        Parser sub(tokenize(exprText, file_), file_);
        e = sub.parseSingleExpression();
      } catch (const ParseError& pe) {
        fail(std::string("SyntaxError: f-string: ") +
                 (std::string(pe.what()).rfind("SyntaxError: ", 0) == 0 ? std::string(pe.what()).substr(13) : pe.what()),
             t);
      }
      // Sub-expression spans are relative to the f-string; anchor them at the literal.
      e->span = spanOf(t);
      if (selfDoc) {
        auto lt = makeExpr(ExprKind::Str, spanOf(t));
        lt->str = exprText + "=";
        parts.push_back(lt);
        e->conversion = 'r';
      }
      if (convAt != std::string::npos) e->conversion = s[convAt];
      if (specAt != std::string::npos) e->formatSpec = s.substr(specAt, j - specAt);
      // wrap so the part is distinguishable from a literal Str
      auto holder = makeExpr(ExprKind::Starred, spanOf(t));
      holder->target = e;
      holder->formatSpec = e->formatSpec;
      holder->conversion = e->conversion;
      parts.push_back(holder);
      i = j + 1;
    }
    flush();
  }
};

}  // namespace

Module parseModule(std::string_view source, const std::string& file) {
  Module m;
  m.file = file;
  m.source = std::string(source);
  Parser p(tokenize(source, file), file);
  m.body = p.parseFile();
  return m;
}

ExprP parseExpression(std::string_view source, const std::string& file) {
  Parser p(tokenize(source, file), file);
  return p.parseSingleExpression();
}

}  // namespace kiln::py
