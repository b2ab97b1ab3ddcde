#include "engine/capture/sym_expr.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kiln::capture {

namespace {

using Op = SymNode::Op;

SymExpr node(Op op, std::vector<SymExpr> args) {
  auto n = std::make_shared<SymNode>();
  n->op = op;
  n->args = std::move(args);
  return n;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

// A term of a sum: coeff * base (base null for a constant).
struct Term {
  int64_t coeff = 1;
  SymExpr base;
};

Term termOf(const SymExpr& e) {
  int64_t v = 0;
  if (symIsInt(e, &v)) return {v, nullptr};
  if (e->op == Op::Mul && !e->args.empty() && symIsInt(e->args[0], &v)) {
    std::vector<SymExpr> rest(e->args.begin() + 1, e->args.end());
    return {v, rest.size() == 1 ? rest[0] : node(Op::Mul, rest)};
  }
  return {1, e};
}

std::vector<SymExpr> factorsOf(const SymExpr& e) {
  if (e->op == Op::Mul) return e->args;
  return {e};
}

SymExpr makeTerm(int64_t coeff, const SymExpr& base) {
  if (!base) return symInt(coeff);
  if (coeff == 0) return symInt(0);
  if (coeff == 1) return base;
  std::vector<SymExpr> args{symInt(coeff)};
  for (const auto& f : factorsOf(base)) args.push_back(f);
  return node(Op::Mul, args);
}

SymExpr add(const std::vector<SymExpr>& items) {
  int64_t constant = 0;
  std::vector<Term> terms;
  std::vector<SymExpr> flat;
  for (const auto& i : items) {
    if (i->op == Op::Add) flat.insert(flat.end(), i->args.begin(), i->args.end());
    else flat.push_back(i);
  }
  for (const auto& f : flat) {
    Term t = termOf(f);
    if (!t.base) {
      constant += t.coeff;
      continue;
    }
    bool merged = false;
    for (auto& have : terms)
      if (symEqual(have.base, t.base)) {
        have.coeff += t.coeff;
        merged = true;
        break;
      }
    if (!merged) terms.push_back(t);
  }
  std::vector<SymExpr> args;
  if (constant != 0) args.push_back(symInt(constant));
  for (const auto& t : terms)
    if (t.coeff != 0) args.push_back(makeTerm(t.coeff, t.base));
  if (args.empty()) return symInt(0);
  if (args.size() == 1) return args[0];
  return node(Op::Add, args);
}

SymExpr mul(const std::vector<SymExpr>& items) {
  int64_t coeff = 1;
  std::vector<SymExpr> factors;
  for (const auto& i : items)
    for (const auto& f : factorsOf(i)) {
      int64_t v = 0;
      if (symIsInt(f, &v)) coeff *= v;
      else factors.push_back(f);
    }
  if (coeff == 0) return symInt(0);
  if (factors.empty()) return symInt(coeff);
  // A constant factor distributes over a sum, as sympy's Mul does (2*(s0 + 1) is 2*s0 + 2).
  if (factors.size() == 1 && factors[0]->op == Op::Add && coeff != 1) {
    std::vector<SymExpr> terms;
    for (const auto& t : factors[0]->args) terms.push_back(mul({symInt(coeff), t}));
    return add(terms);
  }
  std::vector<SymExpr> args;
  if (coeff != 1) args.push_back(symInt(coeff));
  args.insert(args.end(), factors.begin(), factors.end());
  if (args.size() == 1) return args[0];
  return node(Op::Mul, args);
}

SymExpr floordiv(const SymExpr& a, const SymExpr& b) {
  int64_t x = 0, y = 0;
  bool ai = symIsInt(a, &x), bi = symIsInt(b, &y);
  if (bi && y == 0) return nullptr;
  if (ai && bi) return symInt(floorDiv(x, y));
  if (bi && y == 1) return a;
  if (ai && x == 0) return symInt(0);
  if (bi && y > 0) {
    Term t = termOf(a);
    if (a->op == Op::Mul && t.coeff % y == 0) return makeTerm(t.coeff / y, t.base);
    int64_t c = 0;
    if (a->op == Op::FloorDiv && symIsInt(a->args[1], &c) && c > 0) return floordiv(a->args[0], symInt(c * y));
    if (a->op == Op::Add) {
      // Terms divisible by the divisor come out of the floor: (13*s + 4) // 13 is s + 4 // 13.
      std::vector<SymExpr> out, rest;
      for (const auto& term : a->args) {
        Term tt = termOf(term);
        if (tt.coeff % y == 0) out.push_back(makeTerm(tt.coeff / y, tt.base));
        else rest.push_back(term);
      }
      if (!out.empty()) {
        if (!rest.empty()) out.push_back(floordiv(add(rest), b));
        return add(out);
      }
    }
  }
  return node(Op::FloorDiv, {a, b});
}

SymExpr mod(const SymExpr& a, const SymExpr& b) {
  int64_t x = 0, y = 0;
  bool ai = symIsInt(a, &x), bi = symIsInt(b, &y);
  if (bi && y == 0) return nullptr;
  if (ai && bi) return symInt(floorMod(x, y));
  if (bi && (y == 1 || y == -1)) return symInt(0);
  if (bi && y > 0) {
    Term t = termOf(a);
    if (a->op == Op::Mul && t.coeff % y == 0) return symInt(0);
    if (a->op == Op::Mod && symEqual(a->args[1], b)) return a;
    if (a->op == Op::Add) {
      std::vector<SymExpr> rest;
      for (const auto& term : a->args) {
        Term tt = termOf(term);
        if (tt.coeff % y != 0) rest.push_back(!tt.base ? symInt(floorMod(tt.coeff, y)) : term);
      }
      if (rest.size() != a->args.size()) return mod(add(rest), b);
    }
  }
  return node(Op::Mod, {a, b});
}

SymExpr bitwise(Op op, const SymExpr& a, const SymExpr& b) {
  int64_t x = 0, y = 0;
  if (symIsInt(a, &x) && symIsInt(b, &y)) return symInt(op == Op::BitAnd ? (x & y) : (x | y));
  return node(op, {a, b});
}

// The gcd of a sum's integer coefficients, divided out (Dynamo's _reduce_to_lowest_terms).
SymExpr lowestTerms(const SymExpr& e) {
  if (e->op != Op::Add) return e;
  int64_t g = 0;
  for (const auto& t : e->args) g = std::gcd(g, std::abs(termOf(t).coeff));
  if (g <= 1) return e;
  std::vector<SymExpr> out;
  for (const auto& t : e->args) {
    Term tt = termOf(t);
    out.push_back(makeTerm(tt.coeff / g, tt.base));
  }
  return add(out);
}

bool isNegative(const SymExpr& e) {
  int64_t v = 0;
  if (symIsInt(e, &v)) return v < 0;
  return e->op == Op::Mul && symIsInt(e->args[0], &v) && v < 0;
}

SymExpr relation(Op op, const SymExpr& lhs, const SymExpr& rhs) {
  // diff = rhs - lhs, compared against 0.
  SymExpr diff = lowestTerms(add({rhs, symNeg(lhs)}));
  int64_t v = 0;
  if (symIsInt(diff, &v)) {
    bool r = op == Op::Eq ? v == 0 : op == Op::Ne ? v != 0 : op == Op::Lt ? 0 < v : 0 <= v;
    return symInt(r ? 1 : 0);
  }
  SymExpr l = symInt(0), r = diff;
  if (diff->op == Op::Add) {
    std::vector<SymExpr> pos, neg;
    for (const auto& t : diff->args) (isNegative(t) ? neg : pos).push_back(isNegative(t) ? symNeg(t) : t);
    l = neg.empty() ? symInt(0) : add(neg);
    r = pos.empty() ? symInt(0) : add(pos);
  } else if (isNegative(diff)) {
    l = symNeg(diff);
    r = symInt(0);
  }
  return node(op, {l, r});
}

double mulD(double a, double b) { return (a == 0 || b == 0) ? 0 : a * b; }

SymRange boundOf(const SymExpr& e, const std::function<SymRange(int)>& rangeOf) {
  const double inf = std::numeric_limits<double>::infinity();
  int64_t c = 0;
  switch (e->op) {
    case Op::Int: return {static_cast<double>(e->value), static_cast<double>(e->value)};
    case Op::Sym: return rangeOf(static_cast<int>(e->value));
    case Op::Add: {
      SymRange r{0, 0};
      for (const auto& a : e->args) {
        SymRange b = boundOf(a, rangeOf);
        r.lo += b.lo;
        r.hi += b.hi;
      }
      return r;
    }
    case Op::Mul: {
      SymRange r{1, 1};
      for (const auto& a : e->args) {
        SymRange b = boundOf(a, rangeOf);
        double p[4] = {mulD(r.lo, b.lo), mulD(r.lo, b.hi), mulD(r.hi, b.lo), mulD(r.hi, b.hi)};
        r.lo = *std::min_element(p, p + 4);
        r.hi = *std::max_element(p, p + 4);
      }
      return r;
    }
    case Op::FloorDiv:
    case Op::TrueDiv: {
      SymRange a = boundOf(e->args[0], rangeOf);
      if (!symIsInt(e->args[1], &c) || c <= 0) return {-inf, inf};
      if (e->op == Op::TrueDiv) return {a.lo / c, a.hi / c};
      return {std::floor(a.lo / c), std::floor(a.hi / c)};
    }
    case Op::Mod: {
      SymRange a = boundOf(e->args[0], rangeOf);
      if (!symIsInt(e->args[1], &c) || c <= 0) return {-inf, inf};
      if (a.lo >= 0 && a.hi < c) return a;
      return {0, static_cast<double>(c - 1)};
    }
    case Op::Ceil: {
      SymRange a = boundOf(e->args[0], rangeOf);
      return {std::ceil(a.lo), std::ceil(a.hi)};
    }
    case Op::Floor: {
      SymRange a = boundOf(e->args[0], rangeOf);
      return {std::floor(a.lo), std::floor(a.hi)};
    }
    case Op::BitAnd:
    case Op::BitOr: {
      SymRange a = boundOf(e->args[0], rangeOf), b = boundOf(e->args[1], rangeOf);
      if (a.lo < 0 || b.lo < 0) return {-inf, inf};
      if (e->op == Op::BitAnd) return {0, std::min(a.hi, b.hi)};
      return {std::max(a.lo, b.lo), std::isinf(a.hi) || std::isinf(b.hi) ? inf : a.hi + b.hi};
    }
    default: return {0, 1};
  }
}

int precedence(const SymExpr& e) {
  int64_t v = 0;
  switch (e->op) {
    case Op::Int: return e->value < 0 ? 40 : 1000;
    case Op::Sym: return 1000;
    case Op::Add: return 40;
    case Op::Mul: return symIsInt(e->args[0], &v) && v < 0 ? 40 : 50;
    case Op::FloorDiv:
    case Op::Mod:
    case Op::TrueDiv: return 35;
    case Op::Ceil:
    case Op::Floor:
    case Op::BitAnd:
    case Op::BitOr: return 70;
    case Op::Eq:
    case Op::Ne: return 50;
    case Op::Lt:
    case Op::Le: return 35;
  }
  return 1000;
}

}  // namespace

SymExpr symInt(int64_t v) {
  auto n = std::make_shared<SymNode>();
  n->op = Op::Int;
  n->value = v;
  return n;
}

SymExpr symSymbol(int index) {
  auto n = std::make_shared<SymNode>();
  n->op = Op::Sym;
  n->value = index;
  return n;
}

bool symIsInt(const SymExpr& e, int64_t* v) {
  if (!e || e->op != Op::Int) return false;
  if (v) *v = e->value;
  return true;
}

bool symIsRelation(const SymExpr& e) { return e && (e->op == Op::Eq || e->op == Op::Ne || e->op == Op::Lt || e->op == Op::Le); }
bool symIsFloat(const SymExpr& e) { return e && e->op == Op::TrueDiv; }

bool symEqual(const SymExpr& a, const SymExpr& b) {
  if (a == b) return true;
  if (!a || !b || a->op != b->op || a->value != b->value || a->args.size() != b->args.size()) return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!symEqual(a->args[i], b->args[i])) return false;
  return true;
}

SymExpr symNeg(const SymExpr& a) { return mul({symInt(-1), a}); }

SymExpr symBinary(const std::string& op, const SymExpr& a, const SymExpr& b) {
  if (!a || !b || symIsRelation(a) || symIsRelation(b)) return nullptr;
  // Only int arithmetic has a form here; a float (int / int) only goes on to ceil / floor.
  if (symIsFloat(a) || symIsFloat(b)) return nullptr;
  if (op == "+") return add({a, b});
  if (op == "-") return add({a, symNeg(b)});
  if (op == "*") return mul({a, b});
  if (op == "//") return floordiv(a, b);
  if (op == "%") return mod(a, b);
  if (op == "/") return node(Op::TrueDiv, {a, b});
  if (op == "&") return bitwise(Op::BitAnd, a, b);
  if (op == "|") return bitwise(Op::BitOr, a, b);
  int64_t k = 0;
  if ((op == "<<" || op == ">>") && symIsInt(b, &k) && k >= 0 && k < 62)
    return op == "<<" ? mul({a, symInt(int64_t{1} << k)}) : floordiv(a, symInt(int64_t{1} << k));
  return nullptr;
}

SymExpr symCeil(const SymExpr& a) {
  int64_t x = 0, y = 0;
  if (a->op == Op::TrueDiv && symIsInt(a->args[0], &x) && symIsInt(a->args[1], &y) && y != 0) return symInt(ceilDiv(x, y));
  if (symIsInt(a)) return a;
  return node(Op::Ceil, {a});
}

SymExpr symFloor(const SymExpr& a) {
  int64_t x = 0, y = 0;
  if (a->op == Op::TrueDiv && symIsInt(a->args[0], &x) && symIsInt(a->args[1], &y) && y != 0) return symInt(floorDiv(x, y));
  if (a->op == Op::TrueDiv) return floordiv(a->args[0], a->args[1]);
  if (symIsInt(a)) return a;
  return node(Op::Floor, {a});
}

SymExpr symRelation(const std::string& op, const SymExpr& a, const SymExpr& b) {
  if (!a || !b || symIsRelation(a) || symIsRelation(b) || symIsFloat(a) || symIsFloat(b)) return nullptr;
  if (op == "==") return relation(Op::Eq, a, b);
  if (op == "!=") return relation(Op::Ne, a, b);
  if (op == "<") return relation(Op::Lt, a, b);
  if (op == "<=") return relation(Op::Le, a, b);
  if (op == ">") return relation(Op::Lt, b, a);
  if (op == ">=") return relation(Op::Le, b, a);
  return nullptr;
}

SymExpr symEqAsWritten(const SymExpr& a, const SymExpr& b) { return node(Op::Eq, {a, b}); }

SymExpr symNot(const SymExpr& r) {
  switch (r->op) {
    case Op::Eq: return relation(Op::Ne, r->args[0], r->args[1]);
    case Op::Ne: return relation(Op::Eq, r->args[0], r->args[1]);
    case Op::Lt: return relation(Op::Le, r->args[1], r->args[0]);
    case Op::Le: return relation(Op::Lt, r->args[1], r->args[0]);
    default: {
      int64_t v = 0;
      if (symIsInt(r, &v)) return symInt(v ? 0 : 1);
      return nullptr;
    }
  }
}

SymExpr symSubstitute(const SymExpr& e, const std::function<SymExpr(int)>& replacement) {
  if (e->op == Op::Int) return e;
  if (e->op == Op::Sym) {
    SymExpr r = replacement(static_cast<int>(e->value));
    return r ? r : e;
  }
  std::vector<SymExpr> args;
  for (const auto& a : e->args) args.push_back(symSubstitute(a, replacement));
  switch (e->op) {
    case Op::Add: return add(args);
    case Op::Mul: return mul(args);
    case Op::FloorDiv: {
      SymExpr r = floordiv(args[0], args[1]);
      return r ? r : node(e->op, args);
    }
    case Op::Mod: {
      SymExpr r = mod(args[0], args[1]);
      return r ? r : node(e->op, args);
    }
    case Op::TrueDiv: return node(Op::TrueDiv, args);
    case Op::Ceil: return symCeil(args[0]);
    case Op::Floor: return symFloor(args[0]);
    case Op::BitAnd:
    case Op::BitOr: return bitwise(e->op, args[0], args[1]);
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le: return relation(e->op, args[0], args[1]);
    default: return e;
  }
}

std::vector<int> symSymbols(const SymExpr& e) {
  std::vector<int> out;
  std::function<void(const SymExpr&)> walk = [&](const SymExpr& x) {
    if (x->op == Op::Sym) {
      if (std::find(out.begin(), out.end(), static_cast<int>(x->value)) == out.end()) out.push_back(static_cast<int>(x->value));
      return;
    }
    for (const auto& a : x->args) walk(a);
  };
  walk(e);
  return out;
}

std::optional<SymValue> symEval(const SymExpr& e, const std::function<int64_t(int)>& valueOf) {
  auto I = [](int64_t v) {
    SymValue s;
    s.i = v;
    return s;
  };
  switch (e->op) {
    case Op::Int: return I(e->value);
    case Op::Sym: return I(valueOf(static_cast<int>(e->value)));
    default: break;
  }
  std::vector<SymValue> a;
  for (const auto& x : e->args) {
    auto v = symEval(x, valueOf);
    if (!v) return std::nullopt;
    a.push_back(*v);
  }
  switch (e->op) {
    case Op::Add: {
      int64_t s = 0;
      for (auto& v : a) s += v.i;
      return I(s);
    }
    case Op::Mul: {
      int64_t s = 1;
      for (auto& v : a) s *= v.i;
      return I(s);
    }
    case Op::FloorDiv:
      if (a[1].i == 0) return std::nullopt;
      return I(floorDiv(a[0].i, a[1].i));
    case Op::Mod:
      if (a[1].i == 0) return std::nullopt;
      return I(floorMod(a[0].i, a[1].i));
    case Op::TrueDiv: {
      if (a[1].i == 0) return std::nullopt;
      SymValue s;
      s.isFloat = true;
      s.f = static_cast<double>(a[0].i) / static_cast<double>(a[1].i);
      return s;
    }
    case Op::Ceil: return I(static_cast<int64_t>(std::ceil(a[0].asDouble())));
    case Op::Floor: return I(static_cast<int64_t>(std::floor(a[0].asDouble())));
    case Op::BitAnd: return I(a[0].i & a[1].i);
    case Op::BitOr: return I(a[0].i | a[1].i);
    case Op::Eq: return I(a[0].asDouble() == a[1].asDouble());
    case Op::Ne: return I(a[0].asDouble() != a[1].asDouble());
    case Op::Lt: return I(a[0].asDouble() < a[1].asDouble());
    case Op::Le: return I(a[0].asDouble() <= a[1].asDouble());
    default: return std::nullopt;
  }
}

SymRange symBound(const SymExpr& e, const std::function<SymRange(int)>& rangeOf) { return boundOf(e, rangeOf); }

std::optional<bool> symDecide(const SymExpr& r, const std::function<SymRange(int)>& rangeOf) {
  int64_t v = 0;
  if (symIsInt(r, &v)) return v != 0;
  if (!symIsRelation(r)) return std::nullopt;
  SymExpr diff = add({r->args[1], symNeg(r->args[0])});
  SymRange b = boundOf(diff, rangeOf);
  switch (r->op) {
    case Op::Eq:
    case Op::Ne: {
      std::optional<bool> eq;
      if (b.lo > 0 || b.hi < 0) eq = false;
      else if (b.lo == 0 && b.hi == 0) eq = true;
      if (!eq) return std::nullopt;
      return r->op == Op::Eq ? *eq : !*eq;
    }
    case Op::Lt:
      if (b.lo > 0) return true;
      if (b.hi <= 0) return false;
      return std::nullopt;
    case Op::Le:
      if (b.lo >= 0) return true;
      if (b.hi < 0) return false;
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<SymSolution> symSolve(const SymExpr& r) {
  if (!symIsRelation(r) || r->op == Op::Ne) return std::nullopt;
  SymExpr diff = add({r->args[1], symNeg(r->args[0])});
  int64_t m = 0, k = 0;
  int symbol = -1;
  std::vector<SymExpr> terms = diff->op == Op::Add ? diff->args : std::vector<SymExpr>{diff};
  for (const auto& t : terms) {
    Term tt = termOf(t);
    if (!tt.base) {
      m += tt.coeff;
      continue;
    }
    if (tt.base->op != Op::Sym || symbol >= 0) return std::nullopt;
    symbol = static_cast<int>(tt.base->value);
    k = tt.coeff;
  }
  if (symbol < 0 || k == 0) return std::nullopt;
  SymSolution s;
  s.symbol = symbol;
  // r holds iff 0 (op) k*s + m.
  if (r->op == Op::Eq) {
    if ((-m) % k != 0) return std::nullopt;
    s.value = -m / k;
  } else if (r->op == Op::Lt) {
    if (k > 0) s.lower = floorDiv(-m, k) + 1;
    else s.upper = ceilDiv(m, -k) - 1;
  } else {
    if (k > 0) s.lower = ceilDiv(-m, k);
    else s.upper = floorDiv(m, -k);
  }
  return s;
}

std::string symPrint(const SymExpr& e, const std::function<std::string(int)>& name) {
  auto paren = [&](const SymExpr& x, double level) {
    std::string s = symPrint(x, name);
    return precedence(x) <= level ? "(" + s + ")" : s;
  };
  auto join = [&](const std::string& sep, double level) {
    std::string out;
    for (size_t i = 0; i < e->args.size(); ++i) out += (i ? sep : "") + paren(e->args[i], level);
    return out;
  };
  switch (e->op) {
    case Op::Int: return std::to_string(e->value);
    case Op::Sym: return name(static_cast<int>(e->value));
    case Op::Add: return join(" + ", 40);
    case Op::Mul: return join("*", precedence(e));
    case Op::FloorDiv: return join(" // ", 999.5);
    case Op::Mod: return join(" % ", 999.5);
    case Op::TrueDiv: return join(" / ", 999.5);
    case Op::Ceil: return "math.ceil(" + symPrint(e->args[0], name) + ")";
    case Op::Floor: return "math.floor(" + symPrint(e->args[0], name) + ")";
    case Op::BitAnd: return join(" & ", 38);
    case Op::BitOr: return join(" | ", 36);
    case Op::Eq:
      // An input guard's value is printed bare (`dim[0] == -1`); canonical relations have no
      // negative constant on either side.
      if (symIsInt(e->args[1]) && e->args[1]->value < 0) return paren(e->args[0], 50) + " == " + std::to_string(e->args[1]->value);
      return join(" == ", 50);
    case Op::Ne: return join(" != ", 50);
    case Op::Lt: return join(" < ", 35);
    case Op::Le: return join(" <= ", 35);
  }
  return "?";
}

}  // namespace kiln::capture
