// kir::storeOnceReloadLater: a transcendental computed in one reduction nest and needed again in
// a later one is written to the output buffer the later nest stores to, and read back there
// instead of being recomputed (softmax: exp(x - max) is stored while its sum accumulates, the
// last nest divides what it reads back), as Inductor's CPU softmax kernels do.
#include "engine/kir/kernel_ir.h"

#include <algorithm>
#include <map>

namespace kiln::kir {

namespace {

bool expensive(Op op) {
  switch (op) {
    case Op::Exp:
    case Op::Log:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Sigmoid:
    case Op::Erf:
    case Op::Pow: return true;
    default: return false;
  }
}

}  // namespace

void storeOnceReloadLater(Kernel& k) {
  Placement p = place(k);
  if (p.nests < 2) return;
  std::map<int, size_t> def;  // SSA id -> body index
  for (size_t i = 0; i < k.body.size(); ++i)
    if (k.body[i].op != Op::Store) def[k.body[i].id] = i;
  auto inNest = [&](int nest, size_t i) {
    const auto& b = p.nestBody[size_t(nest)];
    return std::find(b.begin(), b.end(), static_cast<int>(i)) != b.end();
  };
  int nextId = 0;
  for (const auto& in : k.body) nextId = std::max(nextId, in.id + 1);
  for (size_t s = 0; s < k.body.size(); ++s) {
    const Instr store = k.body[s];
    if (store.op != Op::Store || !p.inner[s]) continue;
    const int q = p.stage[s];
    const Buffer& buf = k.buffers[size_t(store.buffer)];
    int stores = 0;
    for (const auto& in : k.body) stores += in.op == Op::Store && in.buffer == store.buffer;
    if (stores != 1) continue;
    // An expensive value the store's nest recomputes although an earlier nest computed it.
    for (size_t e = 0; e < k.body.size(); ++e) {
      const Instr& val = k.body[e];
      if (!expensive(val.op) || val.dtype != buf.dtype || !inNest(q, e)) continue;
      bool earlier = false;
      for (int r = 0; r < q; ++r) earlier = earlier || inNest(r, e);
      if (!earlier) continue;
      // Its users in nest q read it back from the buffer; the value is stored where computed.
      Instr reload;
      reload.id = nextId++;
      reload.op = Op::Load;
      reload.buffer = store.buffer;
      reload.index = store.index;
      reload.dtype = val.dtype;
      reload.node = val.node;
      Instr keep;
      keep.op = Op::Store;
      keep.buffer = store.buffer;
      keep.index = store.index;
      keep.operands = {val.id};
      keep.dtype = val.dtype;
      keep.node = store.node;
      // The final store in nest q overwrites the buffer: a user that a later nest recomputes
      // (a second softmax over the first one's result) would read that, not the value.
      bool laterUse = false;
      for (size_t u = e + 1; u < k.body.size() && !laterUse; ++u) {
        if (!inNest(q, u) || !p.inner[u] || p.stage[u] != q) continue;
        if (std::find(k.body[u].operands.begin(), k.body[u].operands.end(), val.id) == k.body[u].operands.end()) continue;
        for (int r = q + 1; r < p.nests; ++r) laterUse = laterUse || inNest(r, u);
      }
      if (laterUse) continue;
      size_t firstUser = k.body.size();
      for (size_t u = e + 1; u < k.body.size(); ++u) {
        if (!inNest(q, u) || !p.inner[u] || p.stage[u] != q) continue;
        bool uses = false;
        for (int& o : k.body[u].operands)
          if (o == val.id) o = reload.id, uses = true;
        if (uses) firstUser = std::min(firstUser, u);
      }
      if (firstUser == k.body.size()) continue;  // only rematerialized, not used directly in nest q
      k.body.insert(k.body.begin() + static_cast<long>(firstUser), reload);
      k.body.insert(k.body.begin() + static_cast<long>(e) + 1, keep);
      return storeOnceReloadLater(k);  // indices moved: look again for more
    }
  }
}

}  // namespace kiln::kir
