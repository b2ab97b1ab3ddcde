// Symbolic integers of dynamic shapes while capturing, the subset of Dynamo's ShapeEnv (sympy
// expressions over size symbols) that the traced Python arithmetic on sizes produces:
// integers, symbols, +, *, //, %, int / int, math.ceil / math.floor, & and |, and the
// relations ==, !=, <, <=. Expressions are simplified as they are built (constants folded,
// like terms combined, a constant factor distributed over a sum, nested floor divisions
// merged), relations are put in the canonical form Dynamo guards them in (`3 < s0`,
// `s0 != 3`, `13*(s0 // 13) == 0`), value ranges decide comparisons that need no guard, and
// printing follows torch's PythonPrinter (`(x.size()[2] // 2) == 6`,
// `math.ceil((4 + (x.size()[2] % 2)) / 2) == 2`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::capture {

struct SymNode;
using SymExpr = std::shared_ptr<const SymNode>;

struct SymNode {
  enum class Op {
    Int,  // `value`
    Sym,  // symbol number `value`
    Add,
    Mul,  // n-ary; a constant term / coefficient comes first
    FloorDiv,
    Mod,
    TrueDiv,  // int / int (a float)
    Ceil,
    Floor,  // math.ceil / math.floor of a TrueDiv (ints again)
    BitAnd,
    BitOr,
    Eq,
    Ne,
    Lt,
    Le,  // relations (bools)
  };
  Op op = Op::Int;
  int64_t value = 0;
  std::vector<SymExpr> args;
};

SymExpr symInt(int64_t v);
SymExpr symSymbol(int index);
bool symIsInt(const SymExpr& e, int64_t* v = nullptr);
bool symIsRelation(const SymExpr& e);
bool symIsFloat(const SymExpr& e);  // TrueDiv: a float value
bool symEqual(const SymExpr& a, const SymExpr& b);

// Arithmetic as Python does it on ints ("+", "-", "*", "//", "%", "/", "&", "|", "<<", ">>"),
// simplified; null when the operation has no symbolic form here (the caller then keeps the
// concrete value only).
SymExpr symBinary(const std::string& op, const SymExpr& a, const SymExpr& b);
SymExpr symNeg(const SymExpr& a);
SymExpr symCeil(const SymExpr& a);
SymExpr symFloor(const SymExpr& a);
// A relation ("==", "!=", "<", "<=", ">", ">=") in Dynamo's canonical form: > and >= become
// < and <= with the sides swapped, negative terms move to the left, positive ones to the right,
// a common integer factor of a sum is divided out.
SymExpr symRelation(const std::string& op, const SymExpr& a, const SymExpr& b);
SymExpr symNot(const SymExpr& relation);  // the negated relation, canonical again
// `a == b` as written (an input guard: `x.size()[1] == x.size()[0]`, `dim[0] == -1`).
SymExpr symEqAsWritten(const SymExpr& a, const SymExpr& b);

// Replaces symbols by expressions (a specialized symbol by its value); simplifies again.
SymExpr symSubstitute(const SymExpr& e, const std::function<SymExpr(int)>& replacement);
// The symbols an expression reads, in first-occurrence order.
std::vector<int> symSymbols(const SymExpr& e);

// Evaluation at concrete symbol values; nullopt on division by zero.
struct SymValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
  double asDouble() const { return isFloat ? f : static_cast<double>(i); }
};
std::optional<SymValue> symEval(const SymExpr& e, const std::function<int64_t(int)>& valueOf);

// Value ranges: the symbol's [lo, hi] (hi may be +infinity). symBound gives an interval
// containing every value the expression can take; symDecide the relation's answer when the
// ranges alone decide it (Dynamo's _maybe_evaluate_static), else nullopt.
struct SymRange {
  double lo = 0, hi = 0;  // +-infinity for unbounded sides
};
SymRange symBound(const SymExpr& e, const std::function<SymRange(int)>& rangeOf);
std::optional<bool> symDecide(const SymExpr& relation, const std::function<SymRange(int)>& rangeOf);

// A relation of one symbol, k*s + m against 0: what it says about s. Lower/upper bounds for
// < and <=, a value for ==; nothing for != or a non-linear relation.
struct SymSolution {
  int symbol = -1;
  std::optional<int64_t> lower, upper, value;
};
std::optional<SymSolution> symSolve(const SymExpr& relation);

// torch's PythonPrinter, with each symbol printed as `name(index)` (`x.size()[0]`).
std::string symPrint(const SymExpr& e, const std::function<std::string(int)>& name);

}  // namespace kiln::capture
