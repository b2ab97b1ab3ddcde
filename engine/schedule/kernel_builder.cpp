#include "engine/schedule/kernel_builder.h"

#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>

namespace kiln::schedule {

namespace {

std::vector<int64_t> concreteSizes(const ir::TensorType& t) {
  std::vector<int64_t> s;
  for (const auto& d : t.sizes) {
    if (d.symbolic()) throw std::runtime_error("symbolic shapes are not supported by the CPU kernel builder yet");
    s.push_back(d.value);
  }
  return s;
}

std::vector<int64_t> stridesOf(const ir::TensorType& t) {
  if (!t.strides.empty()) {
    std::vector<int64_t> s;
    for (const auto& d : t.strides) s.push_back(d.value);
    return s;
  }
  std::vector<int64_t> sz = concreteSizes(t), st(sz.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(sz.size()) - 1; i >= 0; --i) { st[i] = acc; acc *= std::max<int64_t>(sz[i], 1); }
  return st;
}

class Emitter : public ops::PointwiseEmitter {
 public:
  explicit Emitter(kir::Kernel& k) : k_(k) {}
  int emit(kir::Op op, std::vector<int> operands, ir::DType dtype) override {
    kir::Instr i;
    i.id = next_++;
    i.op = op;
    i.operands = std::move(operands);
    i.dtype = dtype;
    k_.body.push_back(i);
    return i.id;
  }
  int constant(double v, ir::DType dtype) override {
    kir::Instr i;
    i.id = next_++;
    i.op = kir::Op::Const;
    i.constant = v;
    i.dtype = dtype;
    k_.body.push_back(i);
    return i.id;
  }
  int load(int buffer, kir::IndexExpr idx, ir::DType dtype) {
    kir::Instr i;
    i.id = next_++;
    i.op = kir::Op::Load;
    i.buffer = buffer;
    i.index = std::move(idx);
    i.dtype = dtype;
    k_.body.push_back(i);
    return i.id;
  }
  void store(int buffer, kir::IndexExpr idx, int value, ir::DType dtype) {
    kir::Instr i;
    i.op = kir::Op::Store;
    i.buffer = buffer;
    i.index = std::move(idx);
    i.operands = {value};
    i.dtype = dtype;
    k_.body.push_back(i);
  }

 private:
  kir::Kernel& k_;
  int next_ = 0;
};

kir::Kernel buildKernel(const ir::Graph& g, const std::string& name, const std::vector<int>& members,
                        std::vector<int>& inputs, std::vector<int>& outputs) {
  std::set<int> in(members.begin(), members.end());
  // Inputs: values used by members but defined outside; outputs: members used outside.
  for (int m : members)
    ir::forEachNodeArg(*g.find(m), [&](int a) {
      if (!in.count(a) && std::find(inputs.begin(), inputs.end(), a) == inputs.end()) inputs.push_back(a);
    });
  for (const auto& n : g.nodes) {
    if (in.count(n.id)) continue;
    ir::forEachNodeArg(n, [&](int a) {
      if (in.count(a) && std::find(outputs.begin(), outputs.end(), a) == outputs.end()) outputs.push_back(a);
    });
  }
  std::sort(outputs.begin(), outputs.end(), [&](int a, int b) { return g.indexOf(a) < g.indexOf(b); });

  kir::Kernel k;
  k.name = name;
  k.kind = "pointwise";
  k.sourceNodes = members;
  std::vector<int64_t> shape = concreteSizes(g.find(members.front())->types.at(0));
  const size_t nd = shape.size();
  // Per buffer, the element stride of each iteration dim (0 where broadcast).
  std::vector<std::vector<int64_t>> bstrides;
  // Inputs are read with their own strides, broadcast to the iteration shape (stride 0);
  // outputs are written contiguously.
  auto addBuffer = [&](int id, bool output) {
    const ir::TensorType& t = g.find(id)->types.at(0);
    kir::Buffer b;
    b.name = (output ? "out_" : "in_") + g.find(id)->name;
    b.dtype = t.dtype;
    b.shape = concreteSizes(t);
    b.output = output;
    // Graph inputs are read with their own (guarded) strides; every other buffer is contiguous
    // by the time the kernel runs (the runtime copies non-contiguous views), so it is indexed
    // contiguously whatever strides its meta type carries.
    bool placeholder = g.find(id)->kind == ir::NodeKind::Placeholder;
    std::vector<int64_t> st = output || !placeholder ? stridesOf(ir::TensorType{t.dtype, t.sizes, {}, t.device, false}) : stridesOf(t);
    std::vector<int64_t> full(nd, 0);
    size_t lead = nd - b.shape.size();
    for (size_t i = 0; i < b.shape.size(); ++i) full[lead + i] = b.shape[i] == 1 ? 0 : st[i];
    k.buffers.push_back(std::move(b));
    bstrides.push_back(std::move(full));
  };
  for (int id : inputs) addBuffer(id, false);
  for (int id : outputs) addBuffer(id, true);
  // Collapse adjacent dims that are contiguous for every buffer: fewer, longer loops vectorize.
  std::vector<int64_t> sizes = shape;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) {
    bool ok = true;
    for (auto& st : bstrides) ok = ok && st[d] == st[d + 1] * sizes[d + 1];
    if (!ok) continue;
    sizes[d] *= sizes[d + 1];
    sizes.erase(sizes.begin() + d + 1);
    for (auto& st : bstrides) { st[d] = st[d + 1]; st.erase(st.begin() + d + 1); }
  }
  for (size_t d = 0; d < sizes.size(); ++d) k.loops.push_back(kir::Loop{"i" + std::to_string(d), sizes[d], false});
  auto indexFor = [&](size_t buffer) {
    kir::IndexExpr e;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (bstrides[buffer][d] != 0 && sizes[d] != 1) e.terms.push_back(kir::IndexTerm{static_cast<int>(d), bstrides[buffer][d]});
    return e;
  };

  Emitter em(k);
  std::map<int, int> ssa;  // node id -> SSA value
  for (size_t i = 0; i < inputs.size(); ++i) ssa[inputs[i]] = em.load(static_cast<int>(i), indexFor(i), k.buffers[i].dtype);
  for (int m : members) {
    const ir::Node& n = *g.find(m);
    const ops::OpDef& op = ops::op(n.target);
    std::vector<int> operands;
    std::vector<ops::Val> args;
    for (const auto& a : n.args) {
      args.push_back(ops::GraphDispatcher::fromArg(g, a));
      if (a.kind == ir::Arg::Kind::Node) operands.push_back(ssa.at(a.node));
    }
    ssa[m] = op.pointwise(em, operands, args, n.types.at(0).dtype);
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    size_t b = inputs.size() + o;
    em.store(static_cast<int>(b), indexFor(b), ssa.at(outputs[o]), k.buffers[b].dtype);
  }
  if (std::string err = kir::verify(k); !err.empty()) throw std::logic_error("kernel " + name + ": " + err);
  return k;
}

// One reduction op as a kernel: parallel loops over the kept dims, reduction loops (innermost)
// over the reduced ones; the input is read with its strides (graph inputs) or contiguously.
// mean divides the sum by the number of elements reduced, after the reduction.
kir::Kernel buildReductionKernel(const ir::Graph& g, const std::string& name, int nodeId, std::vector<int>& inputs,
                                 std::vector<int>& outputs) {
  const ir::Node& n = *g.find(nodeId);
  const ops::OpDef& op = ops::op(n.target);
  std::vector<ops::Val> args;
  for (const auto& a : n.args) args.push_back(ops::GraphDispatcher::fromArg(g, a));
  ops::ReductionSpec spec = op.reduction(args);
  std::sort(spec.dims.begin(), spec.dims.end());
  const ir::Node& in = *g.find(n.args[0].node);
  inputs.push_back(in.id);
  outputs.push_back(n.id);
  std::vector<int64_t> shape = concreteSizes(in.types[0]);
  std::vector<int64_t> inStrides = in.kind == ir::NodeKind::Placeholder ? stridesOf(in.types[0])
                                                                         : stridesOf(ir::TensorType{in.types[0].dtype, in.types[0].sizes, {}, "cpu", false});
  const ir::TensorType& outType = n.types[0];
  std::vector<int64_t> outShape = concreteSizes(outType);
  std::vector<int64_t> outStrides = stridesOf(ir::TensorType{outType.dtype, outType.sizes, {}, "cpu", false});

  kir::Kernel k;
  k.name = name;
  k.kind = "reduction";
  k.sourceNodes = {nodeId};
  k.buffers.push_back(kir::Buffer{"in_" + in.name, in.types[0].dtype, shape, false});
  k.buffers.push_back(kir::Buffer{"out_" + n.name, outType.dtype, outShape, true});
  // Loop order: kept dims (parallel, outermost first), then reduced dims (innermost).
  std::vector<int64_t> kept, reduced;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (std::binary_search(spec.dims.begin(), spec.dims.end(), d) ? reduced : kept).push_back(d);
  kir::IndexExpr inIdx, outIdx;
  int64_t count = 1;
  size_t outPos = 0;
  for (int64_t d : kept) {
    int loop = static_cast<int>(k.loops.size());
    k.loops.push_back(kir::Loop{"i" + std::to_string(loop), shape[d], false});
    if (shape[d] != 1 && inStrides[d] != 0) inIdx.terms.push_back(kir::IndexTerm{loop, inStrides[d]});
    // Position of this kept dim in the output: with keepdim it is d itself, else the next slot.
    size_t od = spec.keepdim ? static_cast<size_t>(d) : outPos++;
    if (shape[d] != 1) outIdx.terms.push_back(kir::IndexTerm{loop, outStrides.at(od)});
  }
  for (int64_t d : reduced) {
    int loop = static_cast<int>(k.loops.size());
    k.loops.push_back(kir::Loop{"r" + std::to_string(loop - static_cast<int>(kept.size())), shape[d], true});
    if (shape[d] != 1 && inStrides[d] != 0) inIdx.terms.push_back(kir::IndexTerm{loop, inStrides[d]});
    count *= shape[d];
  }
  if (reduced.empty()) {
    // Nothing to reduce (a 0-d input): a copy.
    k.loops.push_back(kir::Loop{"r0", 1, true});
  }
  Emitter em(k);
  // float32 sums accumulate in float64, like the eager kernels: the result is the correctly
  // rounded sum, so it agrees with PyTorch's cascade summation to the last bit in practice
  // (values that come back to Python through .item() are compared exactly by guards).
  ir::DType outDt = outType.dtype;
  ir::DType acc = spec.op == kir::Op::ReduceSum && outDt == ir::DType::Float32 ? ir::DType::Float64 : outDt;
  int x = em.load(0, inIdx, in.types[0].dtype);
  if (in.types[0].dtype != acc) x = em.emit(kir::Op::Cast, {x}, acc);
  int r = em.emit(spec.op, {x}, acc);
  if (spec.mean) r = em.emit(kir::Op::Mul, {r, em.constant(1.0 / static_cast<double>(count), acc)}, acc);
  if (acc != outDt) r = em.emit(kir::Op::Cast, {r}, outDt);
  em.store(1, outIdx, r, outDt);
  if (std::string err = kir::verify(k); !err.empty()) throw std::logic_error("kernel " + name + ": " + err);
  return k;
}

}  // namespace

ScheduledGraph scheduleGraph(const ir::Graph& g) {
  ScheduledGraph s;
  // Units: one per kernel group, one per other call node.
  std::map<std::string, int> kernelUnit;
  std::vector<std::vector<int>> unitNodes;
  std::vector<std::string> unitKernel;
  std::map<int, int> unitOf;
  for (const auto& n : g.nodes) {
    if (!n.isCall()) continue;
    if (!n.kernel.empty()) {
      auto it = kernelUnit.find(n.kernel);
      if (it == kernelUnit.end()) {
        it = kernelUnit.emplace(n.kernel, static_cast<int>(unitNodes.size())).first;
        unitNodes.emplace_back();
        unitKernel.push_back(n.kernel);
      }
      unitNodes[it->second].push_back(n.id);
      unitOf[n.id] = it->second;
      ++s.generatedNodes;
    } else {
      unitOf[n.id] = static_cast<int>(unitNodes.size());
      unitNodes.push_back({n.id});
      unitKernel.push_back("");
      ++s.externNodes;
    }
  }
  // Kahn's algorithm, preferring the unit whose first node comes first.
  size_t nu = unitNodes.size();
  std::vector<std::set<int>> preds(nu);
  std::vector<std::vector<int>> succs(nu);
  for (size_t u = 0; u < nu; ++u)
    for (int m : unitNodes[u])
      ir::forEachNodeArg(*g.find(m), [&](int a) {
        auto it = unitOf.find(a);
        if (it != unitOf.end() && it->second != static_cast<int>(u) && preds[u].insert(it->second).second)
          succs[it->second].push_back(static_cast<int>(u));
      });
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> ready;
  std::vector<size_t> waiting(nu);
  for (size_t u = 0; u < nu; ++u) {
    waiting[u] = preds[u].size();
    if (!waiting[u]) ready.push({g.indexOf(unitNodes[u].front()), static_cast<int>(u)});
  }
  while (!ready.empty()) {
    int u = ready.top().second;
    ready.pop();
    Step st;
    if (!unitKernel[u].empty()) {
      st.kind = Step::Kind::Kernel;
      st.kernel = static_cast<int>(s.kernels.size());
      const ir::Node& first = *g.find(unitNodes[u].front());
      const ops::OpDef* fop = ops::findOp(first.target);
      if (unitNodes[u].size() == 1 && fop && fop->reduction && fop->kind == ops::OpKind::Reduction)
        s.kernels.push_back(buildReductionKernel(g, unitKernel[u], first.id, st.inputNodes, st.outputNodes));
      else
        s.kernels.push_back(buildKernel(g, unitKernel[u], unitNodes[u], st.inputNodes, st.outputNodes));
    } else {
      st.kind = Step::Kind::Extern;
      st.node = unitNodes[u].front();
    }
    s.steps.push_back(std::move(st));
    for (int v : succs[u])
      if (--waiting[v] == 0) ready.push({g.indexOf(unitNodes[v].front()), v});
  }
  if (s.steps.size() != nu) throw std::logic_error("scheduling: the fused graph has a cycle between kernels");
  return s;
}

}  // namespace kiln::schedule
