#include "engine/python/parser.h"
#include "engine/python/lexer.h"

#include <gtest/gtest.h>

namespace kiln::py {
namespace {

TEST(Lexer, IndentationAndSpans) {
  auto toks = tokenize("def f(x):\n    return x  # c\n\n\ny = 1\n", "t.py");
  std::vector<Tok> kinds;
  for (auto& t : toks) kinds.push_back(t.kind);
  std::vector<Tok> want = {Tok::Name, Tok::Name,    Tok::Op,     Tok::Name, Tok::Op, Tok::Op,  Tok::Newline, Tok::Indent, Tok::Name,
                           Tok::Name, Tok::Newline, Tok::Dedent, Tok::Name, Tok::Op, Tok::Int, Tok::Newline, Tok::End};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(toks[8].line, 2);
  EXPECT_EQ(toks[8].col, 5);
}

TEST(Lexer, StringsAndNumbers) {
  auto toks = tokenize("a = 'x\\ty' + \"\"\"doc\nstring\"\"\" + r'\\d' + f'{n:.2f}' + 1_000 + 0x1F + 2.5e-3\n", "t.py");
  EXPECT_EQ(toks[2].text, "x\ty");
  EXPECT_EQ(toks[4].text, "doc\nstring");
  EXPECT_EQ(toks[6].text, "\\d");
  EXPECT_EQ(toks[8].kind, Tok::FString);
  EXPECT_EQ(toks[10].text, "1000");
  EXPECT_EQ(toks[14].kind, Tok::Float);
}

TEST(Parser, ExpressionSpans) {
  Module m = parseModule("y = torch.exp(torch.log(x))\n", "t.py");
  ASSERT_EQ(m.body.size(), 1u);
  const Stmt& s = *m.body[0];
  ASSERT_EQ(s.kind, StmtKind::Assign);
  const Expr& call = *s.value;
  EXPECT_EQ(call.kind, ExprKind::Call);
  EXPECT_EQ(call.span.line, 1);
  EXPECT_EQ(call.span.col, 5);
  EXPECT_EQ(call.span.endCol, 28);
  EXPECT_EQ(call.items[0]->span.col, 15);
}

TEST(Parser, Statements) {
  const char* src =
      "import torch.nn as nn\nfrom math import sqrt, pi as PI\n"
      "@deco(1)\nclass A(nn.Module):\n    '''doc'''\n    x: int = 3\n    def f(self, a, *args, b=2, **kw) -> int:\n"
      "        for i, (j, k) in enumerate(zip(a, b)):\n            if i < j <= k: continue\n            elif not i: break\n"
      "            else: pass\n        while True:\n            try:\n                raise ValueError('x')\n"
      "            except (ValueError, TypeError) as e:\n                return [v ** 2 for v in a if v > 0]\n"
      "            finally:\n                del a[0]\n        with torch.no_grad():\n            y = lambda q, r=1: q + r\n"
      "        return {k: v for k, v in kw.items()}, {1, 2}, (x for x in a), a[1:2, ..., None, ::-1]\n";
  Module m = parseModule(src, "t.py");
  ASSERT_EQ(m.body.size(), 3u);
  EXPECT_EQ(m.body[2]->kind, StmtKind::ClassDef);
  EXPECT_EQ(m.body[2]->decorators.size(), 1u);
  EXPECT_EQ(m.body[2]->docstring, "doc");
}

struct BadCase {
  const char* src;
  const char* message;
  int line, col;
};

TEST(Parser, SyntaxErrorsPointAtTheProblem) {
  BadCase cases[] = {
      {"x = (1, 2\n", "SyntaxError: '(' was never closed", 1, 5},
      {"def f(:\n    pass\n", "SyntaxError: invalid syntax", 1, 7},
      {"if x\n    y = 1\n", "SyntaxError: expected ':'", 1, 5},
      {"def f():\nreturn 1\n", "IndentationError: expected an indented block", 2, 1},
      {"x = 1\n    y = 2\n", "IndentationError: unexpected indent", 2, 5},
      {"x = 'abc\n", "SyntaxError: unterminated string literal (detected at line 1)", 1, 5},
      {"f(x) = 3\n", "SyntaxError: cannot assign to function call here. Maybe you meant '==' instead of '='?", 1, 1},
      {"x = 1 $ 2\n", "SyntaxError: invalid character '$'", 1, 7},
      {"x = ]\n", "SyntaxError: unmatched ']'", 1, 5},
      {"def f(a=1, b):\n    pass\n", "SyntaxError: non-default argument follows default argument", 1, 12},
  };
  for (const auto& c : cases) {
    try {
      parseModule(c.src, "bad.py");
      ADD_FAILURE() << "no error for: " << c.src;
    } catch (const ParseError& e) {
      EXPECT_EQ(std::string(e.what()), c.message) << c.src;
      EXPECT_EQ(e.where().line, c.line) << c.src;
      EXPECT_EQ(e.where().col, c.col) << c.src;
      EXPECT_EQ(e.where().file, "bad.py");
    }
  }
}

// Deterministic mutations of a valid program: the parser must only ever raise ParseError.
TEST(Parser, MutationsNeverCrash) {
  std::string src =
      "import torch\n\n@torch.compile\ndef f(x, n=2):\n    y = x * n + (x[0:2, ...] if n else -x)\n"
      "    return [a for a in (y, y) if a is not None], {'k': f'{n:>4}'}\n";
  const std::string alphabet = "()[]{}:,.'\"\n \t=+-*#@\\x0f";
  uint32_t seed = 12345;
  for (int i = 0; i < 20000; ++i) {
    std::string m = src;
    int edits = 1 + static_cast<int>(seed % 3);
    for (int e = 0; e < edits; ++e) {
      seed = seed * 1664525u + 1013904223u;
      size_t pos = seed % m.size();
      seed = seed * 1664525u + 1013904223u;
      char c = alphabet[seed % alphabet.size()];
      if (seed & 0x100) m[pos] = c;
      else if (seed & 0x200) m.insert(m.begin() + static_cast<long>(pos), c);
      else m.erase(pos, 1);
    }
    try {
      parseModule(m, "fuzz.py");
    } catch (const ParseError&) {}
  }
}

// Issue 13: an expression of 50,000 terms overflowed the stack destroying its AST even when it
// never ran. It is CPython's RecursionError during compilation, wherever it stands.
TEST(Parser, FiftyThousandTermExpressionIsARecursionErrorNotACrash) {
  std::string terms = "1";
  for (int i = 1; i < 50000; ++i) terms += " + 1";
  for (const std::string& src : {"x = " + terms + "\n", "if False:\n    x = " + terms + "\n", "def f():\n    return " + terms + "\n"}) {
    try {
      parseModule(src, "deep.py");
      ADD_FAILURE() << "no error for " << src.substr(0, 40);
    } catch (const ParseError& e) {
      EXPECT_EQ(std::string(e.what()), "RecursionError: maximum recursion depth exceeded during compilation") << src.substr(0, 40);
    }
  }
  // Nesting 50,000 deep: an error too (CPython's tokenizer stops at 200 parentheses, and a chain of
  // 50,000 unary minuses is its MemoryError), never a crash.
  for (const std::string& src :
       {"x = [" + std::string(50000, '[') + std::string(50000, ']') + "]\n", "x = " + std::string(50000, '-') + "1\n"})
    EXPECT_THROW(parseModule(src, "deep.py"), ParseError) << src.substr(0, 40);
}

}  // namespace
}  // namespace kiln::py
