// Kernel IR: the op table and the structural verifier. The text form is in kernel_ir_text.cpp.
#include "engine/kir/kernel_ir.h"

#include "engine/ir/sym.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace kiln::kir {

namespace {

struct OpInfo {
  Op op;
  std::string_view name;
  int arity;
};

// Indexed by the enum value; the order must follow enum class Op.
constexpr OpInfo kOps[] = {
    {Op::Load, "load", 0},
    {Op::Store, "store", 1},
    {Op::Const, "const", 0},
    {Op::Neg, "neg", 1},
    {Op::Exp, "exp", 1},
    {Op::Log, "log", 1},
    {Op::Sin, "sin", 1},
    {Op::Cos, "cos", 1},
    {Op::Tanh, "tanh", 1},
    {Op::Sqrt, "sqrt", 1},
    {Op::Rsqrt, "rsqrt", 1},
    {Op::Abs, "abs", 1},
    {Op::Sigmoid, "sigmoid", 1},
    {Op::Erf, "erf", 1},
    {Op::Recip, "recip", 1},
    {Op::Floor, "floor", 1},
    {Op::Ceil, "ceil", 1},
    {Op::Not, "not", 1},
    {Op::Add, "add", 2},
    {Op::Sub, "sub", 2},
    {Op::Mul, "mul", 2},
    {Op::Div, "div", 2},
    {Op::Max, "max", 2},
    {Op::Min, "min", 2},
    {Op::Pow, "pow", 2},
    {Op::Mod, "mod", 2},
    {Op::Lt, "lt", 2},
    {Op::Le, "le", 2},
    {Op::Gt, "gt", 2},
    {Op::Ge, "ge", 2},
    {Op::Eq, "eq", 2},
    {Op::Ne, "ne", 2},
    {Op::And, "and", 2},
    {Op::Or, "or", 2},
    {Op::Where, "where", 3},
    {Op::Cast, "cast", 1},
    {Op::ReduceSum, "reduce_sum", 1},
    {Op::ReduceMax, "reduce_max", 1},
    {Op::ReduceMin, "reduce_min", 1},
};
constexpr size_t kOpCount = sizeof(kOps) / sizeof(kOps[0]);
static_assert(kOps[kOpCount - 1].op == Op::ReduceMin, "kOps must list every Op in enum order");

const OpInfo* info(Op op) {
  auto i = static_cast<size_t>(op);
  return i < kOpCount ? &kOps[i] : nullptr;
}

bool isReduce(Op op) { return op == Op::ReduceSum || op == Op::ReduceMax || op == Op::ReduceMin; }

bool isIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::string_view opName(Op op) {
  const OpInfo* i = info(op);
  return i ? i->name : std::string_view("<bad op>");
}

bool opFromName(std::string_view name, Op* out) {
  for (const auto& i : kOps) {
    if (i.name == name) {
      if (out) *out = i.op;
      return true;
    }
  }
  return false;
}

int opArity(Op op) {
  const OpInfo* i = info(op);
  return i ? i->arity : -1;
}

int64_t Kernel::pointCount() const {
  // Saturates instead of overflowing on absurd (e.g. fuzzed) extents.
  int64_t n = 1;
  for (const auto& l : loops)
    if (__builtin_mul_overflow(n, l.extent, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

int64_t Kernel::bytes() const {
  int64_t total = 0;
  for (const auto& b : buffers) {
    int64_t n = static_cast<int64_t>(ir::itemSize(b.dtype));
    for (int64_t d : b.shape) n *= d;
    total += n;
  }
  return total;
}

bool Kernel::symbolic() const {
  for (const auto& l : loops)
    if (!l.extentSym.empty()) return true;
  for (const auto& b : buffers)
    if (!b.shapeSym.empty()) return true;
  for (const auto& i : body) {
    if (!i.constSym.empty()) return true;
    for (const auto& t : i.index.terms)
      if (!t.coeffSym.empty()) return true;
  }
  return false;
}

int64_t Kernel::pointCountAt(const std::vector<int64_t>& sizes) const {
  int64_t n = 1;
  for (const auto& l : loops) {
    int64_t e = l.extentSym.empty() ? l.extent : ir::evalSym(l.extentSym, sizes);
    if (__builtin_mul_overflow(n, e, &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

Kernel withoutHints(Kernel k) {
  for (auto& l : k.loops)
    if (!l.extentSym.empty()) l.extent = 0;
  for (auto& b : k.buffers)
    for (size_t d = 0; d < b.shapeSym.size() && d < b.shape.size(); ++d)
      if (!b.shapeSym[d].empty()) b.shape[d] = 0;
  for (auto& i : k.body) {
    if (!i.constSym.empty()) i.constant = 0;
    for (auto& t : i.index.terms)
      if (!t.coeffSym.empty()) t.coeff = 0;
  }
  return k;
}

namespace {
// "" for no expression or a valid one.
std::string badSym(const std::string& e) {
  if (e.empty()) return "";
  auto p = ir::parseSym(e);
  if (!p || p->syms.empty()) return "'" + e + "' is not a size expression (s0, 16*s0, s0*s1)";
  return "";
}
}  // namespace

std::string verify(const Kernel& k) {
  auto at = [](size_t i) { return "instruction " + std::to_string(i) + ": "; };
  // Names must be identifiers so the text form can be read back.
  for (const std::string* s : {&k.name, &k.kind})
    if (!isIdentifier(*s)) return "kernel name or kind '" + *s + "' is not an identifier";

  std::unordered_set<std::string> names;
  for (const auto& b : k.buffers) {
    if (!isIdentifier(b.name)) return "buffer name '" + b.name + "' is not an identifier";
    if (ir::parseSym(b.name)) return "buffer name '" + b.name + "' reads as a size symbol";
    if (!names.insert(b.name).second) return "duplicate buffer name " + b.name;
    for (int64_t d : b.shape)
      if (d < 0) return "buffer " + b.name + " has a negative dimension";
    if (!b.shapeSym.empty() && b.shapeSym.size() != b.shape.size())
      return "buffer " + b.name + " has " + std::to_string(b.shapeSym.size()) + " size expressions for " + std::to_string(b.shape.size()) +
             " dims";
    for (const auto& e : b.shapeSym)
      if (!badSym(e).empty()) return "buffer " + b.name + ": " + badSym(e);
  }
  bool sawReduction = false;
  for (const auto& l : k.loops) {
    if (!isIdentifier(l.var)) return "loop variable '" + l.var + "' is not an identifier";
    if (ir::parseSym(l.var)) return "loop variable '" + l.var + "' reads as a size symbol";
    if (!names.insert(l.var).second) return "duplicate name " + l.var;
    if (l.extent < 0) return "loop " + l.var + " has a negative extent";
    if (!badSym(l.extentSym).empty()) return "loop " + l.var + ": " + badSym(l.extentSym);
    if (sawReduction && !l.reduction) return "parallel loop " + l.var + " is nested inside a reduction loop";
    sawReduction |= l.reduction;
  }

  std::unordered_set<int> defined;
  auto checkIndex = [&](const IndexExpr& e) -> std::string {
    for (const auto& t : e.terms)
      if (t.loop < 0 || t.loop >= static_cast<int>(k.loops.size()))
        return "index term refers to loop " + std::to_string(t.loop) + " which does not exist";
      else if (!badSym(t.coeffSym).empty()) return badSym(t.coeffSym);
      else if (!t.coeffSym.empty() && t.coeff < 0) return "a coefficient with a size expression is negative";
    return "";
  };

  for (size_t n = 0; n < k.body.size(); ++n) {
    const Instr& in = k.body[n];
    const OpInfo* oi = info(in.op);
    if (!oi) return at(n) + "invalid op";
    if (static_cast<int>(in.operands.size()) != oi->arity)
      return at(n) + std::string(oi->name) + " takes " + std::to_string(oi->arity) + " operand(s), has " +
             std::to_string(in.operands.size());
    if (in.op == Op::Store) {
      if (in.id != -1) return at(n) + "store must not define a value";
    } else if (in.id < 0) {
      return at(n) + std::string(oi->name) + " must define a value %id >= 0";
    } else if (defined.count(in.id)) {
      return at(n) + "%" + std::to_string(in.id) + " is defined twice";
    }

    for (int o : in.operands)
      if (!defined.count(o)) return at(n) + "operand %" + std::to_string(o) + " is not defined before use";
    if (in.op == Op::Load || in.op == Op::Store) {
      if (in.buffer < 0 || in.buffer >= static_cast<int>(k.buffers.size()))
        return at(n) + "buffer index " + std::to_string(in.buffer) + " out of range";
      if (in.op == Op::Store && !k.buffers[in.buffer].output) return at(n) + "store to input buffer " + k.buffers[in.buffer].name;
      if (auto err = checkIndex(in.index); !err.empty()) return at(n) + err;
    } else if (in.buffer != -1 || !in.index.terms.empty() || in.index.offset != 0) {
      return at(n) + std::string(oi->name) + " has a buffer or index";
    }
    if (in.op != Op::Const && (in.constant != 0.0 || !in.constSym.empty())) return at(n) + std::string(oi->name) + " has a constant";
    if (!badSym(in.constSym).empty()) return at(n) + badSym(in.constSym);
    if (isReduce(in.op) && !sawReduction) return at(n) + "reduce in a kernel without reduction loops";
    if (in.op != Op::Store) defined.insert(in.id);
  }
  return "";
}

Placement place(const Kernel& k) {
  const size_t n = k.body.size();
  Placement p;
  p.inner.assign(n, false);
  p.stage.assign(n, 0);
  std::unordered_map<int, size_t> def;     // SSA id -> body index
  std::vector<bool> valueInner(n, false);  // the value differs per reduction point
  std::vector<int> valueStage(n, 0);       // nest (inner) or gap (outer) it is available from
  std::vector<bool> root(n, false);
  auto indexedByReduction = [&](const IndexExpr& e) {
    for (const auto& t : e.terms)
      if (k.loops.at(t.loop).reduction && (t.coeff != 0 || !t.coeffSym.empty())) return true;
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = k.body[i];
    bool inner = false;
    int stage = 0;
    for (int o : in.operands) {
      size_t j = def.at(o);
      inner = inner || valueInner[j];
      stage = std::max(stage, valueStage[j]);
    }
    if (in.op == Op::Load || in.op == Op::Store) inner = inner || indexedByReduction(in.index);
    bool reduce = isReduce(in.op);
    p.inner[i] = inner || reduce;
    p.stage[i] = stage;
    valueInner[i] = inner && !reduce;
    valueStage[i] = reduce ? stage + 1 : stage;
    if (reduce || (inner && in.op == Op::Store)) {
      root[i] = true;
      p.nests = std::max(p.nests, stage + 1);
    }
    if (in.op != Op::Store) def[in.id] = i;
  }
  p.nestBody.resize(p.nests);
  for (int q = 0; q < p.nests; ++q) {
    // Roots of nest q and, walking backwards, the inner values they use.
    std::vector<bool> need(n, false);
    for (size_t i = n; i-- > 0;) {
      if (root[i] && p.stage[i] == q) need[i] = true;
      if (!need[i]) continue;
      for (int o : k.body[i].operands) {
        size_t j = def.at(o);
        if (valueInner[j]) need[j] = true;
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (need[i]) p.nestBody[q].push_back(static_cast<int>(i));
  }
  return p;
}

}  // namespace kiln::kir
