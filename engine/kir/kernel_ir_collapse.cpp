// kir::collapseLoops: loop canonicalization applied to every generated kernel.
#include "engine/kir/kernel_ir.h"

#include "engine/ir/sym.h"

#include <algorithm>
#include <optional>

namespace kiln::kir {

namespace {

// The coefficient of a loop in an index, as hint and size expression; nullopt when several
// terms with a size expression name it (never generated).
std::optional<ir::Dim> coeffOf(const IndexExpr& e, int loop) {
  ir::Dim c(0);
  int terms = 0;
  for (const auto& t : e.terms)
    if (t.loop == loop) {
      if (terms++ && (c.symbolic() || !t.coeffSym.empty())) return std::nullopt;
      c = t.coeffSym.empty() ? ir::Dim(c.value + t.coeff) : ir::dimOf(t.coeff, t.coeffSym);
    }
  return c;
}

// Removes loop l: terms on it go, later loops shift down by one.
void eraseLoop(Kernel& k, int l) {
  k.loops.erase(k.loops.begin() + l);
  for (auto& in : k.body) {
    auto& terms = in.index.terms;
    terms.erase(std::remove_if(terms.begin(), terms.end(), [&](const IndexTerm& t) { return t.loop == l; }), terms.end());
    for (auto& t : terms)
      if (t.loop > l) --t.loop;
  }
}

bool mergeable(const Kernel& k, int l) {
  if (k.loops[l].reduction != k.loops[l + 1].reduction) return false;
  for (const auto& in : k.body) {
    if (in.op != Op::Load && in.op != Op::Store) continue;
    auto outer = coeffOf(in.index, l), inner = coeffOf(in.index, l + 1);
    if (!outer || !inner) return false;
    if (*outer != ir::dimMul(*inner, ir::dimOf(k.loops[l + 1].extent, k.loops[l + 1].extentSym))) return false;
  }
  return true;
}

}  // namespace

void collapseLoops(Kernel& k) {
  // Extent-1 loops index nothing (their variable is always 0).
  for (int l = static_cast<int>(k.loops.size()) - 1; l >= 0; --l) {
    if (k.loops[l].extent != 1 || !k.loops[l].extentSym.empty()) continue;
    int reductions = 0;
    for (const auto& lp : k.loops) reductions += lp.reduction;
    if (k.loops[l].reduction && reductions == 1) continue;  // a reduce needs a reduction loop
    eraseLoop(k, l);
  }
  for (int l = static_cast<int>(k.loops.size()) - 2; l >= 0; --l) {
    if (!mergeable(k, l)) continue;
    ir::Dim merged =
        ir::dimMul(ir::dimOf(k.loops[l].extent, k.loops[l].extentSym), ir::dimOf(k.loops[l + 1].extent, k.loops[l + 1].extentSym));
    k.loops[l].extent = merged.value;
    k.loops[l].extentSym = merged.symbol;
    for (auto& in : k.body) {
      auto& terms = in.index.terms;
      terms.erase(std::remove_if(terms.begin(), terms.end(), [&](const IndexTerm& t) { return t.loop == l; }), terms.end());
      for (auto& t : terms)
        if (t.loop == l + 1) t.loop = l;
    }
    k.loops.erase(k.loops.begin() + l + 1);
    for (auto& in : k.body)
      for (auto& t : in.index.terms)
        if (t.loop > l + 1) --t.loop;
  }
  int ni = 0, nr = 0;
  for (auto& lp : k.loops) lp.var = lp.reduction ? "r" + std::to_string(nr++) : "i" + std::to_string(ni++);
}

}  // namespace kiln::kir
