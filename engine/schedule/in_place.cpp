#include "engine/schedule/in_place.h"

#include "engine/ops/op_table.h"
#include "engine/schedule/lifetimes.h"

#include <algorithm>
#include <set>

namespace kiln::schedule {

namespace {

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool viewed(const ir::Graph& g, int id) {
  for (int u : g.users(id)) {
    const ir::Node& n = *g.find(u);
    if (!n.kernel.empty()) continue;
    const ops::OpDef* op = ops::findOp(n.target);
    if (!op || op->kind == ops::OpKind::View || n.target == "aten.view.dtype") return true;
  }
  return false;
}

// Every load of buffer `in` uses the index the one store to `out` uses.
bool sameIndexAccess(const kir::Kernel& k, int in, int out) {
  const kir::IndexExpr* store = nullptr;
  for (const auto& i : k.body)
    if (i.op == kir::Op::Store && i.buffer == out) {
      if (store) return false;
      store = &i.index;
    }
  if (!store) return false;
  for (const auto& i : k.body)
    if (i.op == kir::Op::Load && i.buffer == in && !(i.index == *store)) return false;
  return true;
}

// Makes input buffer `in` also the output `out` was: stores go to it, `out` disappears.
void mergeBuffers(kir::Kernel& k, int in, int out) {
  kir::Buffer& b = k.buffers[static_cast<size_t>(in)];
  b.inOut = b.output = true;
  if (b.name.rfind("in_", 0) == 0) b.name = "in_out_" + b.name.substr(3);
  k.buffers.erase(k.buffers.begin() + out);
  for (auto& i : k.body) {
    if (i.buffer == out) i.buffer = in;
    else if (i.buffer > out) --i.buffer;
  }
}

}  // namespace

int reuseInPlace(const ir::Graph& g, ScheduledGraph& s) {
  std::map<int, size_t> lastUse = lastUses(g, s);
  std::set<int> madeByKernel;
  int reused = 0;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    Step& st = s.steps[i];
    if (st.kind != Step::Kind::Kernel) continue;
    kir::Kernel& k = s.kernels[static_cast<size_t>(st.kernel)];
    if (k.kind == "pointwise") {
      std::vector<std::pair<size_t, size_t>> pairs;  // (input position, output position)
      std::set<size_t> taken;
      for (size_t o = 0; o < st.outputNodes.size(); ++o) {
        int out = st.outputNodes[o];
        if (lastUse.count(out) && lastUse[out] >= s.steps.size()) continue;  // a graph output
        const kir::Buffer& ob = k.buffers[st.inputNodes.size() + o];
        for (size_t p = 0; p < st.inputNodes.size(); ++p) {
          int in = st.inputNodes[p];
          const kir::Buffer& ib = k.buffers[p];
          if (taken.count(p) || !madeByKernel.count(in) || lastUse[in] != i || ib.dtype != ob.dtype || ib.shapeSym != ob.shapeSym ||
              elements(ib.shape) != elements(ob.shape) || st.inputStrides[p] != tensor::Tensor::contiguousStrides(ib.shape) ||
              viewed(g, in) || !sameIndexAccess(k, static_cast<int>(p), static_cast<int>(st.inputNodes.size() + o)))
            continue;
          pairs.emplace_back(p, o);
          taken.insert(p);
          break;
        }
      }
      // Highest output first, so the buffer indices still to merge stay valid.
      std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      for (auto [p, o] : pairs) {
        mergeBuffers(k, static_cast<int>(p), static_cast<int>(st.inputNodes.size() + o));
        st.inPlace.emplace_back(st.outputNodes[o], st.inputNodes[p]);
        st.outputNodes.erase(st.outputNodes.begin() + static_cast<std::ptrdiff_t>(o));
        ++reused;
      }
      std::reverse(st.inPlace.begin(), st.inPlace.end());
    }
    for (int id : st.outputNodes) madeByKernel.insert(id);
    for (const auto& pr : st.inPlace) madeByKernel.insert(pr.first);
  }
  return reused;
}

}  // namespace kiln::schedule
