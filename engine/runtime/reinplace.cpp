#include "engine/runtime/reinplace.h"

#include "engine/ops/op_table.h"

#include <algorithm>
#include <set>

namespace kiln::runtime {

namespace {

bool isLoadOrStore(const kir::Instr& in, kir::Op op, int buffer) { return in.op == op && in.buffer == buffer; }

// Every load of buffer `in` reads the element every store to buffer `out` writes.
bool readsOnlyWhereItWrites(const kir::Kernel& k, int in, int out) {
  const kir::IndexExpr* written = nullptr;
  for (const auto& instr : k.body)
    if (isLoadOrStore(instr, kir::Op::Store, out)) {
      if (written && !(*written == instr.index)) return false;
      written = &instr.index;
    }
  if (!written) return false;
  for (const auto& instr : k.body)
    if (isLoadOrStore(instr, kir::Op::Load, in) && !(instr.index == *written)) return false;
  return true;
}

// The placeholder and every view of it (a view op over it or over such a view): what reads the
// input's memory. Views are extern steps the runtime runs on the real tensor.
std::set<int> viewsOf(const ir::Graph& g, int placeholder) {
  std::set<int> out{placeholder};
  for (const auto& n : g.nodes) {
    if (!n.isCall()) continue;
    const ops::OpDef* op = ops::findOp(n.target);
    if (!op || op->kind != ops::OpKind::View) continue;
    bool ofInput = false;
    ir::forEachNodeArg(n, [&](int a) { ofInput = ofInput || out.count(a); });
    if (ofInput) out.insert(n.id);
  }
  return out;
}

bool reads(const ir::Graph& g, const schedule::Step& st, const std::set<int>& nodes) {
  bool uses = false;
  if (st.kind == schedule::Step::Kind::Kernel)
    for (int id : st.inputNodes) uses = uses || nodes.count(id);
  else ir::forEachNodeArg(*g.find(st.node), [&](int a) { uses = uses || nodes.count(a); });
  return uses;
}

}  // namespace

std::map<int, size_t> inPlaceMutations(const ir::Graph& g, const schedule::ScheduledGraph& sched,
                                       const std::vector<std::pair<int, int>>& mutations) {
  std::map<int, size_t> out;
  const ir::Node* output = g.output();
  if (!output || output->args.empty()) return out;
  const auto& results = output->args[0].list;
  const auto placeholders = g.placeholders();
  for (const auto& [input, result] : mutations) {
    if (input < 0 || static_cast<size_t>(input) >= placeholders.size() || result < 0 || static_cast<size_t>(result) >= results.size() ||
        !results[static_cast<size_t>(result)].isNode())
      continue;
    const int node = results[static_cast<size_t>(result)].node, ph = placeholders[static_cast<size_t>(input)]->id;
    // The output is returned once (another use of the same value would see the input's storage).
    if (std::count_if(results.begin(), results.end(), [&](const ir::Arg& a) { return a.isNode() && a.node == node; }) != 1) continue;
    // The step that makes it, and no later step reading the input's old value.
    size_t at = sched.steps.size();
    for (size_t s = 0; s < sched.steps.size() && at == sched.steps.size(); ++s) {
      const auto& st = sched.steps[s];
      if (st.kind == schedule::Step::Kind::Kernel && std::count(st.outputNodes.begin(), st.outputNodes.end(), node)) at = s;
    }
    if (at == sched.steps.size()) continue;
    const std::set<int> memory = viewsOf(g, ph);
    bool laterRead = false;
    for (size_t s = at + 1; s < sched.steps.size(); ++s) laterRead = laterRead || reads(g, sched.steps[s], memory);
    if (laterRead) continue;
    const schedule::Step& st = sched.steps[at];
    // The kernel may read the input itself (at the element it writes), not a view of it.
    std::set<int> views = memory;
    views.erase(ph);
    if (reads(g, st, views)) continue;
    const kir::Kernel& k = sched.kernels.at(static_cast<size_t>(st.kernel));
    const int outBuffer =
        static_cast<int>(st.inputNodes.size() + (std::find(st.outputNodes.begin(), st.outputNodes.end(), node) - st.outputNodes.begin()));
    const auto inPos = std::find(st.inputNodes.begin(), st.inputNodes.end(), ph);
    if (inPos != st.inputNodes.end() && !readsOnlyWhereItWrites(k, static_cast<int>(inPos - st.inputNodes.begin()), outBuffer)) continue;
    out[node] = static_cast<size_t>(input);
  }
  return out;
}

bool canWriteInto(const tensor::Tensor& input, const ir::TensorType& type, const tensor::Device& device) {
  if (!input.defined() || input.device() != device || input.dtype() != type.dtype || input.sizes().size() != type.sizes.size())
    return false;
  for (size_t d = 0; d < type.sizes.size(); ++d)
    if (input.sizes()[d] != type.sizes[d].value) return false;
  return input.strides() == tensor::Tensor::contiguousStrides(input.sizes());
}

bool canWriteInto(const std::vector<tensor::Tensor>& inputs, size_t i, const ir::TensorType& type, const tensor::Device& device) {
  if (i >= inputs.size() || !canWriteInto(inputs[i], type, device)) return false;
  for (size_t j = 0; j < inputs.size(); ++j)
    if (j != i && inputs[j].storage() && inputs[j].storage() == inputs[i].storage()) return false;
  return true;
}

}  // namespace kiln::runtime
