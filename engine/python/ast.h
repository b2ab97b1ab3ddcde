// The AST of Kiln's Python subset. Every node carries its source span; capture builds new
// functions (resume functions) out of existing subtrees, hence shared ownership.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::py {

struct Span {
  int line = 0, col = 0;        // 1-based start
  int endLine = 0, endCol = 0;  // end (exclusive column)
};

struct Expr;
struct Stmt;
using ExprP = std::shared_ptr<Expr>;
using StmtP = std::shared_ptr<Stmt>;
using Body = std::vector<StmtP>;

enum class ExprKind {
  Name,
  Int,
  Float,
  Str,
  Bool,
  None,
  Ellipsis,
  FString,
  Attribute,
  Call,
  BinOp,
  UnaryOp,
  BoolOp,
  Compare,
  Subscript,
  Slice,
  Tuple,
  List,
  Dict,
  Set,
  Lambda,
  IfExp,
  ListComp,
  SetComp,
  DictComp,
  GeneratorExp,
  Starred,
  DoubleStarred,
  Yield,      // `yield` / `yield x` (target may be null)
  YieldFrom,  // `yield from it` (target)
};

struct Keyword {
  std::string name;  // "" for **kwargs
  ExprP value;
};

struct Comprehension {
  ExprP target;
  ExprP iter;
  std::vector<ExprP> ifs;
};

struct Param {
  std::string name;
  ExprP defaultValue;  // may be null
  enum Kind { Normal, VarArgs, KwOnly, VarKw } kind = Normal;
};

struct Expr {
  ExprKind kind;
  Span span;
  std::string name;  // Name id, Attribute attr, op spelling ("+", "and", "not", "<"...)
  std::string str;   // Str value; FString literal parts are children of kind Str
  int64_t ival = 0;  // Int (values beyond int64 are stored in `str` as decimal)
  bool bigInt = false;
  double fval = 0.0;
  bool bval = false;
  std::vector<ExprP> items;      // operands / elements / call args / fstring parts / dict keys
  std::vector<ExprP> values;     // dict values
  std::vector<std::string> ops;  // Compare operators
  std::vector<Keyword> keywords;
  ExprP target;   // Attribute/Subscript/Call base, Starred value, Lambda body, IfExp test
  ExprP a, b, c;  // BinOp lhs/rhs, IfExp body/orelse, Slice lower/upper/step, comprehension elt (a) / value (b)
  std::vector<Comprehension> generators;
  std::vector<Param> params;  // Lambda
  std::string formatSpec;     // FString replacement field spec (on the part expression)
  char conversion = 0;        // !r / !s
};

enum class StmtKind {
  Expr,
  Assign,
  AugAssign,
  AnnAssign,
  Return,
  If,
  For,
  While,
  Break,
  Continue,
  Pass,
  FunctionDef,
  ClassDef,
  Import,
  ImportFrom,
  Raise,
  Try,
  With,
  Assert,
  Global,
  Nonlocal,
  Delete,
};

struct Alias {
  std::string name;    // dotted module name or imported name
  std::string asname;  // "" when none
};

struct Handler {
  ExprP type;  // may be null (bare except)
  std::string name;
  Body body;
  Span span;
};

struct WithItem {
  ExprP context;
  ExprP target;  // may be null
};

struct Stmt {
  StmtKind kind;
  Span span;
  std::vector<ExprP> targets;  // Assign targets; Delete targets; Global/Nonlocal names as Name exprs
  ExprP value;                 // Expr, Assign, AugAssign, Return, Raise exc, Assert test, For iter
  ExprP target;                // AugAssign/AnnAssign/For target
  ExprP test;                  // If/While test; Assert msg in `value2`
  ExprP value2;                // Assert msg, Raise cause, AnnAssign annotation
  std::string op;              // AugAssign operator ("+")
  Body body, orelse, finalbody;
  std::vector<Handler> handlers;
  std::vector<WithItem> items;
  // FunctionDef / ClassDef
  std::string name;
  std::vector<Param> params;
  std::vector<ExprP> decorators;
  std::vector<ExprP> bases;
  std::vector<Keyword> classKeywords;
  // Import / ImportFrom
  std::string module;
  std::vector<Alias> names;
  int level = 0;
  // FunctionDef: the source text of the def (for display and resume functions)
  std::string docstring;
  bool isGenerator = false;  // FunctionDef: its body (not nested functions) contains yield
};

struct Module {
  std::string file;
  std::string source;
  Body body;
};

ExprP makeExpr(ExprKind k, Span s);
StmtP makeStmt(StmtKind k, Span s);

}  // namespace kiln::py
