#include "engine/schedule/kernel_builder.h"

#include "engine/ir/sym.h"
#include "engine/schedule/in_place.h"
#include "engine/schedule/inline_constant.h"
#include "engine/schedule/iteration_space.h"

#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"
#include "engine/tensor/half.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace kiln::schedule {

namespace {

// A type's sizes as hints (a symbolic dim's value at the captured shape).
std::vector<int64_t> sizesOrThrow(const ir::TensorType& t) {
  std::vector<int64_t> s;
  for (const auto& d : t.sizes) s.push_back(d.value);
  return s;
}

// Element strides as Dims: a size expression where dynamic shapes make them one.
std::vector<ir::Dim> stridesOf(const ir::TensorType& t) { return t.strides.empty() ? ir::contiguousStrides(t.sizes) : t.strides; }

std::vector<int64_t> hints(const std::vector<ir::Dim>& ds) {
  std::vector<int64_t> v;
  for (const auto& d : ds) v.push_back(d.value);
  return v;
}

// Thrown when a fused group's members disagree symbolically although their hints agree (fusion
// decided on hints): the graph's kernels are then compiled per shape.
struct SymbolicMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Appends instructions to a kernel, reusing an identical earlier instruction instead of adding
// a copy (a kernel-local CSE: layer_norm's mean and var both start with the same sum).
//
// 16-bit floats (f16, bf16) are computed in f32, as Inductor does: an op body asking for a 16-bit
// result gets an f32 instruction, loads of 16-bit buffers widen to f32 (exact) and stores round
// to nearest even, so the values between the ops of one kernel keep f32 precision. Only an
// explicit conversion to a 16-bit type (x.to(torch.bfloat16), autocast's casts) rounds inside a
// kernel: a cast to the 16-bit type and back to f32.
class Emitter : public ops::PointwiseEmitter {
 public:
  explicit Emitter(kir::Kernel& k) : k_(k) {}
  int emit(kir::Op op, std::vector<int> operands, ir::DType dtype) override {
    if (op == kir::Op::Cast && operands.size() == 1) {
      const int x = operands[0];
      if (ir::isReducedFloat(dtype)) {
        int rounded = raw(kir::Op::Cast, {x}, dtype);
        return widened(raw(kir::Op::Cast, {rounded}, ir::DType::Float32));
      }
      // A 16-bit value already is an f32 register.
      if (dtype == ir::DType::Float32 && widened_.count(x)) return x;
    }
    const bool narrow = ir::isReducedFloat(dtype);
    int id = raw(op, std::move(operands), computeType(dtype));
    return narrow ? widened(id) : id;
  }
  int constant(double v, ir::DType dtype) override {
    kir::Instr i;
    i.op = kir::Op::Const;
    i.constant = v;
    i.dtype = computeType(dtype);
    return add(std::move(i));
  }
  // The register type of a value of dtype d.
  static ir::DType computeType(ir::DType d) { return ir::isReducedFloat(d) ? ir::DType::Float32 : d; }
  // Marks SSA value id as an f32 register standing for a 16-bit value.
  int widened(int id) {
    widened_.insert(id);
    return id;
  }
  int load(int buffer, kir::IndexExpr idx, ir::DType dtype) {
    kir::Instr i;
    i.op = kir::Op::Load;
    i.buffer = buffer;
    i.index = std::move(idx);
    i.dtype = dtype;
    return add(std::move(i));
  }
  void store(int buffer, kir::IndexExpr idx, int value, ir::DType dtype) {
    kir::Instr i;
    i.op = kir::Op::Store;
    i.buffer = buffer;
    i.index = std::move(idx);
    i.operands = {value};
    i.dtype = dtype;
    i.node = node;
    k_.body.push_back(i);
  }

  int node = -1;  // the graph node being emitted: every instruction added records it

 public:
  int add(kir::Instr i) {
    for (const auto& prev : k_.body) {
      if (prev.op == kir::Op::Store) continue;
      kir::Instr probe = i;
      probe.id = prev.id;
      probe.node = prev.node;  // shared with the node that made it first
      if (probe == prev) return prev.id;
    }
    i.id = next_++;
    i.node = node;
    k_.body.push_back(i);
    return i.id;
  }

 private:
  int raw(kir::Op op, std::vector<int> operands, ir::DType dtype) {
    kir::Instr i;
    i.op = op;
    i.operands = std::move(operands);
    i.dtype = dtype;
    return add(std::move(i));
  }

  kir::Kernel& k_;
  int next_ = 0;
  std::set<int> widened_;
};

// The loop each dim of a node's value runs over (-1: a size-1 dim of a keepdim reduction).
using DimLoops = std::vector<int>;

// Builds one kernel for a fused group: pointwise nodes over one iteration shape, or a group
// around reductions that all reduce the same dims R of the same input shape S. Loops are S's
// kept dims (parallel) then its reduced dims (reduction); a node whose value has shape S runs
// per point of all loops, a node of the reduced shape (keepdim or not) once per parallel point
// (kir::place sorts out the nests). Inputs are loaded where a member first needs them, with
// their own (guarded) strides for graph inputs and contiguously for everything else (the
// runtime re-lays an input out if its strides differ); outputs are stored contiguously.
class FusedKernelBuilder {
 public:
  FusedKernelBuilder(const ir::Graph& g, const std::string& name, const std::vector<int>& members) : g_(g), members_(members), em_(k_) {
    k_.name = name;
    k_.sourceNodes = members;
  }

  // `users`: every node's users in the graph (node id -> ids of the nodes whose args name it),
  // made once per graph: scanning the whole graph per kernel made scheduling quadratic (a
  // 200-layer model's 1,600 kernels x 17,000 nodes took 14 s).
  kir::Kernel build(const std::unordered_map<int, std::vector<int>>& users, std::vector<int>& inputs, std::vector<int>& outputs,
                    std::vector<std::vector<int64_t>>& inputStrides) {
    std::set<int> in(members_.begin(), members_.end());
    // Inputs: values used by members but defined outside; outputs: members used outside.
    for (int m : members_)
      ir::forEachNodeArg(*g_.find(m), [&](int a) {
        if (inlineConstant(*g_.find(a))) return;  // a literal, not a buffer
        if (!in.count(a) && std::find(inputs.begin(), inputs.end(), a) == inputs.end()) inputs.push_back(a);
      });
    for (int m : members_) {
      auto it = users.find(m);
      if (it == users.end()) continue;
      for (int u : it->second)
        if (!in.count(u)) {
          outputs.push_back(m);
          break;
        }
    }
    std::sort(outputs.begin(), outputs.end(), [&](int a, int b) { return g_.indexOf(a) < g_.indexOf(b); });
    for (int id : inputs) addBuffer(id, false);
    for (int id : outputs) addBuffer(id, true);
    for (size_t i = 0; i < inputs.size(); ++i) inputStrides.push_back(hints(strides_[i]));
    iterationSpace();

    for (int m : members_) {
      const ir::Node& n = *g_.find(m);
      const ops::OpDef& op = ops::op(n.target);
      em_.node = m;
      // A pointwise op reads its operands broadcast to its own shape, a reduction its input
      // over the whole iteration space.
      const DimLoops layout = op.pointwise ? dimLoops(n) : full_;
      std::vector<int> operands;
      std::vector<ops::Val> args;
      for (const auto& a : n.args) {
        args.push_back(ops::GraphDispatcher::fromArg(g_, a));
        if (a.kind == ir::Arg::Kind::Node) operands.push_back(valueOf(a.node, layout));
      }
      ssa_[m] = op.pointwise
                    ? op.pointwise(em_, operands, args, n.types.at(0).dtype)
                    : emitReduction(op.reduction(args), operands.at(0), Emitter::computeType(g_.find(n.args[0].node)->types[0].dtype),
                                    Emitter::computeType(n.types[0].dtype));
      if (ir::isReducedFloat(n.types[0].dtype)) em_.widened(ssa_[m]);
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      int b = static_cast<int>(inputs.size() + o);
      em_.node = outputs[o];
      em_.store(b, indexFor(b, dimLoops(*g_.find(outputs[o]))), ssa_.at(outputs[o]), k_.buffers[b].dtype);
    }
    kir::collapseLoops(k_);
    kir::storeOnceReloadLater(k_);
    if (std::string err = kir::verify(k_); !err.empty()) throw std::logic_error("kernel " + k_.name + ": " + err);
    return std::move(k_);
  }

 private:
  void addBuffer(int id, bool output) {
    const ir::Node& n = *g_.find(id);
    const ir::TensorType& t = n.types.at(0);
    kir::Buffer b;
    b.name = (output ? "out_" : "in_") + n.name;
    b.dtype = t.dtype;
    b.shape = sizesOrThrow(t);
    for (size_t d = 0; d < t.sizes.size(); ++d)
      if (t.sizes[d].symbolic()) {
        b.shapeSym.resize(t.sizes.size());
        b.shapeSym[d] = t.sizes[d].symbol;
      }
    dims_.push_back(t.sizes);
    b.output = output;
    // Outputs are written contiguously; inputs are read with the strides their type records
    // (graph inputs: guarded; views: computed by the view's meta), contiguous when it has none.
    strides_.push_back(output ? ir::contiguousStrides(t.sizes) : stridesOf(t));
    bufferOf_[id] = static_cast<int>(k_.buffers.size());
    k_.buffers.push_back(std::move(b));
  }

  // S and R from the group's reductions (all alike, as fusion guarantees), else the pointwise
  // shape; then the loops.
  void iterationSpace() {
    bool haveReduction = false;
    for (int m : members_) {
      const ir::Node& n = *g_.find(m);
      if (ops::op(n.target).pointwise) continue;
      auto space = reductionSpace(g_, n);
      if (!space) throw std::logic_error("kernel " + k_.name + ": " + n.name + " is not a reduction code generation can emit");
      if (haveReduction && (space->shape != shape_ || space->reduced != reduced_))
        throw std::logic_error("kernel " + k_.name + ": reductions over different iteration spaces");
      haveReduction = true;
      shape_ = space->shape;
      reduced_ = space->reduced;
      shapeDims_ = g_.find(n.args.at(0).node)->types.at(0).sizes;
    }
    if (!haveReduction) {
      shapeDims_ = g_.find(members_.front())->types.at(0).sizes;
      shape_ = sizesOrThrow(g_.find(members_.front())->types.at(0));
    }
    k_.kind = haveReduction ? "reduction" : "pointwise";
    full_.assign(shape_.size(), -1);
    int nr = 0;
    for (bool reduction : {false, true})
      for (size_t d = 0; d < shape_.size(); ++d) {
        if (std::binary_search(reduced_.begin(), reduced_.end(), static_cast<int64_t>(d)) != reduction) continue;
        full_[d] = static_cast<int>(k_.loops.size());
        std::string var = reduction ? "r" + std::to_string(nr++) : "i" + std::to_string(k_.loops.size());
        k_.loops.push_back(kir::Loop{var, shape_[d], reduction, shapeDims_[d].symbol});
      }
    // A reduction over no dims (a 0-d input) still needs a reduction loop: one point.
    if (haveReduction && reduced_.empty()) k_.loops.push_back(kir::Loop{.var = "r0", .extent = 1, .reduction = true});
  }

  // Where each dim of node n's value runs: the full iteration shape, or the reduced shape with
  // or without the kept size-1 dims.
  DimLoops dimLoops(const ir::Node& n) const {
    const Layout layout = layoutIn(IterationSpace{shape_, reduced_}, sizesOrThrow(n.types.at(0)));
    if (layout == Layout::None) throw std::logic_error("kernel " + k_.name + ": " + n.name + " does not fit the kernel's iteration space");
    DimLoops loops;
    std::vector<ir::Dim> expect;
    for (size_t d = 0; d < shape_.size(); ++d) {
      const bool r = layout != Layout::Full && std::binary_search(reduced_.begin(), reduced_.end(), static_cast<int64_t>(d));
      if (!r) loops.push_back(full_[d]), expect.push_back(shapeDims_[d]);
      else if (layout == Layout::KeepDims) loops.push_back(-1), expect.push_back(ir::Dim(1));
    }
    if (expect != n.types.at(0).sizes)
      throw SymbolicMismatch("kernel " + k_.name + ": " + n.name + " is " + n.types[0].str() + " in a kernel over " +
                             ir::TensorType{.dtype = n.types[0].dtype, .sizes = shapeDims_}.str());
    return loops;
  }

  // Buffer b read or written in a value laid out over `loops`; its dims align to the right
  // (broadcasting), size-1 and stride-0 dims add no term.
  kir::IndexExpr indexFor(int b, const DimLoops& loops) const {
    const auto& shape = k_.buffers[b].shape;
    size_t lead = loops.size() - shape.size();
    kir::IndexExpr e;
    for (size_t i = 0; i < shape.size(); ++i) {
      int l = loops[lead + i];
      const ir::Dim& st = strides_[b][i];
      if (l < 0 || shape[i] == 1 || (!st.symbolic() && st.value == 0)) continue;
      const ir::Dim& dim = dims_[b][i];
      if (dim != ir::dimOf(k_.loops[l].extent, k_.loops[l].extentSym))
        throw SymbolicMismatch("kernel " + k_.name + ": buffer " + k_.buffers[b].name + " dim " + dim.str() + " runs over loop " +
                               (k_.loops[l].extentSym.empty() ? std::to_string(k_.loops[l].extent) : k_.loops[l].extentSym));
      e.terms.push_back(kir::IndexTerm{l, st.value, st.symbol});
    }
    std::sort(e.terms.begin(), e.terms.end(), [](const auto& a, const auto& b) { return a.loop < b.loop; });
    return e;
  }

  // The SSA value of node id as seen by a consumer laid out over `loops`: a member's value, or a
  // load of the input (once per layout).
  int valueOf(int id, const DimLoops& loops) {
    if (auto it = ssa_.find(id); it != ssa_.end()) return it->second;
    const ir::Node& n = *g_.find(id);
    if (auto c = inlineConstant(n)) {
      ssa_[id] = em_.constant(storedValue(*c, n.types[0].dtype), n.types[0].dtype);
      return ir::isReducedFloat(n.types[0].dtype) ? em_.widened(ssa_[id]) : ssa_[id];
    }
    int b = bufferOf_.at(id);
    kir::IndexExpr idx = indexFor(b, loops);
    for (const auto& [key, v] : loads_)
      if (key.first == b && key.second == idx) return v;
    // A 16-bit buffer is loaded widened to f32 (`load ... : f32`); the store rounds back.
    const ir::DType dt = k_.buffers[b].dtype;
    int v = em_.load(b, idx, Emitter::computeType(dt));
    if (ir::isReducedFloat(dt)) em_.widened(v);
    loads_.push_back({{b, idx}, v});
    return v;
  }

  // The value a constant tensor of dtype d holds: a 16-bit constant is rounded to its type, as
  // the eager tensor stores it.
  static double storedValue(double v, ir::DType d) {
    if (d == ir::DType::BFloat16) return tensor::bf16ToFloat(tensor::floatToBf16(static_cast<float>(v)));
    if (d == ir::DType::Float16) return tensor::f16ToFloat(tensor::floatToF16(static_cast<float>(v)));
    return v;
  }

  // float32 sums accumulate in float64, like the eager kernels: the result is the correctly
  // rounded sum, so it agrees with PyTorch's cascade summation to the last bit in practice
  // (values that come back to Python through .item() are compared exactly by guards). Over 16-bit
  // inputs inDt and outDt are their f32 compute type: sums accumulate in float64 as well, max and
  // min in f32, and the store rounds the result.
  int emitReduction(const ops::ReductionSpec& spec, int x, ir::DType inDt, ir::DType outDt) {
    int64_t count = 1;
    ir::Dim countDim(1);
    for (int64_t d : reduced_) count *= shape_[d], countDim = ir::dimMul(countDim, shapeDims_[static_cast<size_t>(d)]);
    // With dynamic shapes the element count is a size expression: 1/n is computed in the kernel
    // (in the accumulation type, as exact as the folded constant).
    auto countConst = [&](ir::DType dt) {
      kir::Instr c;
      c.op = kir::Op::Const;
      c.constant = static_cast<double>(count);
      c.constSym = countDim.symbol;
      c.dtype = dt;
      return em_.add(std::move(c));
    };
    auto inverseCount = [&](ir::DType dt) {
      if (!countDim.symbolic()) return em_.constant(1.0 / static_cast<double>(count), dt);
      return em_.emit(kir::Op::Recip, {countConst(dt)}, dt);
    };
    ir::DType acc = spec.op == kir::Op::ReduceSum && outDt == ir::DType::Float32 ? ir::DType::Float64 : outDt;
    if (inDt != acc) x = em_.emit(kir::Op::Cast, {x}, acc);
    int r;
    if (spec.variance) {  // two passes, as the eager kernel: the mean, then squared deviations
      int mean = em_.emit(kir::Op::Mul, {em_.emit(kir::Op::ReduceSum, {x}, acc), inverseCount(acc)}, acc);
      int dev = em_.emit(kir::Op::Sub, {x, mean}, acc);
      int ss = em_.emit(kir::Op::ReduceSum, {em_.emit(kir::Op::Mul, {dev, dev}, acc)}, acc);
      int dof =
          countDim.symbolic()
              ? em_.emit(kir::Op::Max,
                         {em_.emit(kir::Op::Sub, {countConst(acc), em_.constant(spec.correction, acc)}, acc), em_.constant(0.0, acc)}, acc)
              : em_.constant(std::max(0.0, static_cast<double>(count) - spec.correction), acc);
      r = em_.emit(kir::Op::Div, {ss, dof}, acc);
      if (spec.sqrt) r = em_.emit(kir::Op::Sqrt, {r}, acc);
    } else {
      r = em_.emit(spec.op, {x}, acc);
      if (spec.mean) r = em_.emit(kir::Op::Mul, {r, inverseCount(acc)}, acc);
    }
    if (acc != outDt) r = em_.emit(kir::Op::Cast, {r}, outDt);
    return r;
  }

  const ir::Graph& g_;
  const std::vector<int>& members_;
  kir::Kernel k_;
  Emitter em_;
  std::vector<std::vector<ir::Dim>> strides_;  // per buffer, its element strides
  std::vector<std::vector<ir::Dim>> dims_;     // per buffer, its sizes
  std::map<int, int> bufferOf_;                // node id -> buffer index
  std::map<int, int> ssa_;                     // member node id -> SSA value
  std::vector<std::pair<std::pair<int, kir::IndexExpr>, int>> loads_;
  std::vector<int64_t> shape_, reduced_;
  std::vector<ir::Dim> shapeDims_;  // shape_ with size expressions
  DimLoops full_;
};

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
    if (!n.kernel.empty() && inlineConstant(n)) continue;  // a literal in its users' kernels
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
  std::unordered_map<int, std::vector<int>> users;
  for (const auto& n : g.nodes) ir::forEachNodeArg(n, [&](int a) { users[a].push_back(n.id); });
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
      s.kernels.push_back(FusedKernelBuilder(g, unitKernel[u], unitNodes[u]).build(users, st.inputNodes, st.outputNodes, st.inputStrides));
    } else {
      st.kind = Step::Kind::Extern;
      st.node = unitNodes[u].front();
    }
    s.steps.push_back(std::move(st));
    for (int v : succs[u])
      if (--waiting[v] == 0) ready.push({g.indexOf(unitNodes[v].front()), v});
  }
  if (s.steps.size() != nu) throw std::logic_error("scheduling: the fused graph has a cycle between kernels");
  reuseInPlace(g, s);
  return s;
}

}  // namespace kiln::schedule
