#include "engine/runtime/compiled_graph.h"

#include "engine/autograd/grad_mode.h"

#include "engine/ir/sym.h"
#include "engine/ir/text.h"
#include "engine/ops/autocast.h"
#include "engine/ops/gemm_algos.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/index_ops.h"
#include "engine/passes/torch_level.h"
#include "engine/runtime/reinplace.h"
#include "engine/runtime/thread_pool.h"
#include "engine/schedule/symbolic_shapes.h"
#include "engine/tensor/stop.h"

#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

namespace kiln::runtime {

namespace {

ops::Val argVal(const ir::Arg& a, const std::map<int, tensor::Tensor>& env) {
  switch (a.kind) {
    case ir::Arg::Kind::Node: return ops::Val::of(env.at(a.node));
    case ir::Arg::Kind::List: {
      std::vector<ops::Val> items;
      for (const auto& x : a.list) items.push_back(argVal(x, env));
      return ops::Val::listOf(std::move(items));
    }
    default: return ops::GraphDispatcher::fromArg(ir::Graph{}, a);
  }
}

std::vector<tensor::Tensor> collectOutputs(const ir::Graph& g, const std::map<int, tensor::Tensor>& env) {
  std::vector<tensor::Tensor> out;
  for (const auto& a : g.output()->args.at(0).list) out.push_back(env.at(a.node));
  return out;
}

void bindInputs(const ir::Graph& g, const std::vector<tensor::Tensor>& inputs, std::map<int, tensor::Tensor>& env) {
  auto ph = g.placeholders();
  if (ph.size() != inputs.size())
    throw std::runtime_error("compiled graph expects " + std::to_string(ph.size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < ph.size(); ++i) env[ph[i]->id] = inputs[i];
}

// Threshold above which a kernel's outer loop is split over the pool (small kernels lose more
// to synchronisation than they gain).
constexpr int64_t kParallelPoints = 1 << 16;

// Only a parallel outer loop can be split: a kernel whose outermost loop reduces (a reduction
// to a scalar) runs whole on one thread.
bool splitOverThreads(const kir::Kernel& k) {
  return !k.loops.empty() && !k.loops[0].reduction && k.loops[0].extent > 1 && k.pointCount() >= kParallelPoints;
}

// Whether t's strides are `strides` on every dim that has more than one element (the only ones
// a kernel's index uses).
bool sameLayout(const tensor::Tensor& t, const std::vector<int64_t>& strides) {
  if (t.strides().size() != strides.size()) return false;
  for (size_t d = 0; d < strides.size(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] != strides[d]) return false;
  return true;
}

// A copy of t laid out with `strides` (which may repeat elements: an expand's zero strides).
tensor::Tensor relayout(const tensor::Tensor& t, const std::vector<int64_t>& strides) {
  if (strides == tensor::Tensor::contiguousStrides(t.sizes())) return t.contiguous();
  int64_t extent = 1;
  for (size_t d = 0; d < strides.size(); ++d)
    if (t.sizes()[d] > 0) extent += (t.sizes()[d] - 1) * strides[d];
  tensor::Tensor out = tensor::Tensor::empty({extent}, t.dtype()).view(t.sizes(), strides, 0);
  ops::copyInto(out, t);
  return out;
}

}  // namespace

CompiledGraph::CompiledGraph(ir::Graph fused, schedule::ScheduledGraph sched, std::shared_ptr<codegen::CompiledModule> module)
    : g_(std::move(fused)), sched_(std::move(sched)), module_(std::move(module)) {
  plan_ = planMemory(g_, sched_);
  sizes_ = schedule::symbolValues(g_);
  slots_.resize(plan_.slotElements.size());
}

const std::map<int, size_t>& CompiledGraph::writeMutationsInPlace(const std::vector<std::pair<int, int>>& mutations) {
  writeInto_ = inPlaceMutations(g_, sched_, mutations);
  return writeInto_;
}

std::vector<tensor::Tensor> CompiledGraph::run(const std::vector<tensor::Tensor>& inputs, std::vector<double>* stepMs) const {
  std::map<int, tensor::Tensor> env;
  bindInputs(g_, inputs, env);
  if (stepMs) stepMs->clear();
  auto t0 = std::chrono::steady_clock::now();
  auto lap = [&] {
    if (!stepMs) return;
    auto t1 = std::chrono::steady_clock::now();
    stepMs->push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    t0 = t1;
  };
  for (const auto& st : sched_.steps) {
    if (st.kind == schedule::Step::Kind::Extern) {
      const ir::Node& n = *g_.find(st.node);
      const ops::OpDef& op = ops::op(n.target);
      std::vector<ops::Val> args;
      for (const auto& a : n.args) args.push_back(argVal(a, env));
      ops::EagerDispatcher eager;          // runs a decomposition when the op has no kernel of its own
      ops::GemmAlgoScope pinned(st.algo);  // max-autotune's choice of GEMM, "" for the default rule
      env[n.id] = eager.call(op, args).t;
      lap();
      continue;
    }
    const kir::Kernel& k = sched_.kernels[st.kernel];
    const codegen::CompiledKernel& ck = module_->kernels.at(st.kernel);
    std::vector<void*> bufs;
    for (size_t i = 0; i < st.inputNodes.size(); ++i) {
      int id = st.inputNodes[i];
      tensor::Tensor t = env.at(id);
      if (!sameLayout(t, st.inputStrides.at(i))) t = relayout(t, st.inputStrides[i]), env[id] = t;
      bufs.push_back(const_cast<void*>(t.data()));
    }
    for (int id : st.outputNodes) {
      const ir::TensorType& ty = g_.find(id)->types.at(0);
      tensor::Shape s;
      for (const auto& d : ty.sizes) s.push_back(d.value);
      tensor::Tensor t;
      auto slot = plan_.slotOf.find(id);
      if (auto w = writeInto_.find(id); w != writeInto_.end() && canWriteInto(inputs, w->second, ty, tensor::Device::cpu())) {
        t = inputs[w->second];  // the mutated input's new value, written in place
      } else if (slot != plan_.slotOf.end()) {
        tensor::Tensor& base = slots_[static_cast<size_t>(slot->second)];
        if (!base.defined()) base = tensor::Tensor::empty({plan_.slotElements[static_cast<size_t>(slot->second)]}, ty.dtype);
        t = base.view(s, tensor::Tensor::contiguousStrides(s), 0);
      } else {
        t = tensor::Tensor::empty(s, ty.dtype);
      }
      env[id] = t;
      bufs.push_back(env[id].data());
    }
    if (k.symbolic()) bufs.push_back(const_cast<int64_t*>(sizes_.data()));  // after the buffers
    for (const auto& [out, in] : st.inPlace) {
      tensor::Shape s;
      for (const auto& d : g_.find(out)->types.at(0).sizes) s.push_back(d.value);
      env[out] = env.at(in).view(s, tensor::Tensor::contiguousStrides(s), 0);
    }
    int64_t outer = k.loops.empty() ? 1 : k.loops[0].extent;
    void* const* bp = bufs.data();
    auto range = [&](int64_t lo, int64_t hi) { ck.fn(bp, lo, hi); };
    if (splitOverThreads(k)) {
      ThreadPool::instance().parallelFor(outer, range);
    } else if (!k.loops.empty() && !k.loops[0].reduction) {
      // Its outer loop's iterations are independent: run in slices with stop checks between.
      if (!ThreadPool::runSliced(0, outer, range)) tensor::throwStopped();
    } else {
      ck.fn(bp, 0, outer);  // one reduction over the outer loop: stopped only at its end
      tensor::checkStop();
    }
    lap();
  }
  return collectOutputs(g_, env);
}

// A view's size list as its result's sizes when they carry size expressions (view(x, [s0*s1,
// 64]) rather than the captured [6, 64]); any other argument as the graph text prints it.
std::string CompiledGraph::sizeListOrArg(const ir::Node& n, size_t i) const {
  const ir::Arg& a = n.args[i];
  static const std::set<std::string> kSized = {"aten.view.default", "aten._unsafe_view.default", "aten.expand.default"};
  if (i == 1 && a.kind == ir::Arg::Kind::List && kSized.count(n.target) && n.types.size() == 1 &&
      a.list.size() == n.types[0].sizes.size()) {
    std::string out = "[";
    bool symbolic = false;
    for (size_t d = 0; d < a.list.size(); ++d) {
      const ir::Dim& dim = n.types[0].sizes[d];
      if (a.list[d].kind != ir::Arg::Kind::Int || (a.list[d].i != dim.value && a.list[d].i != -1)) return ir::printArg(g_, a);
      symbolic = symbolic || dim.symbolic();
      out += (d ? ", " : "") + (a.list[d].i == -1 ? std::string("-1") : dim.str());
    }
    if (symbolic) return out + "]";
  }
  return ir::printArg(g_, a);
}

std::string CompiledGraph::wrapperText() const {
  std::string out = "# memory plan: " + plan_.summary() + "\n";
  out += "def call(args):\n    ";
  std::set<int> slotsUsed;
  for (const ir::Node* p : g_.placeholders()) out += p->name + ", ";
  out += "= args\n";
  for (const auto& st : sched_.steps) {
    if (st.kind == schedule::Step::Kind::Extern) {
      const ir::Node& n = *g_.find(st.node);
      out += "    " + n.name + " = extern_kernels." + n.target + "(";
      for (size_t i = 0; i < n.args.size(); ++i) out += (i ? ", " : "") + sizeListOrArg(n, i);
      out += ")  # " + n.types.at(0).str() + (st.algo.empty() ? ", eager fallback" : ", " + st.algoNote) + "\n";
      continue;
    }
    const kir::Kernel& k = sched_.kernels[st.kernel];
    for (int id : st.outputNodes) {
      const ir::Node& n = *g_.find(id);
      auto slot = plan_.slotOf.find(id);
      if (auto w = writeInto_.find(id); w != writeInto_.end())
        out += "    " + n.name + " = " + g_.placeholders().at(w->second)->name + "  # written in place (when contiguous, " +
               n.types.at(0).str() + ")\n";
      else if (slot != plan_.slotOf.end())
        out += "    " + n.name + " = slot" + std::to_string(slot->second) + ".view(" + n.types.at(0).str() + ")" +
               (slotsUsed.insert(slot->second).second ? "\n" : "  # reused buffer\n");
      else out += "    " + n.name + " = empty_strided_cpu(" + n.types.at(0).str() + ")\n";
    }
    for (const auto& [o, in] : st.inPlace)
      out += "    " + g_.find(o)->name + " = " + g_.find(in)->name + "; del " + g_.find(in)->name + "  # reuse, written in place\n";
    out += "    " + k.name + "(";
    std::vector<std::string> names;
    for (int id : st.inputNodes) names.push_back(g_.find(id)->name);
    for (int id : st.outputNodes) names.push_back(g_.find(id)->name);
    std::string points = std::to_string(k.pointCount());
    if (k.symbolic()) {  // the size symbols follow the buffers (Inductor's ks0, ks1 ...)
      std::set<int> used;
      ir::Dim count(1);
      for (const auto& l : k.loops) count = ir::dimMul(count, ir::dimOf(l.extent, l.extentSym));
      for (const auto& b : k.buffers)
        for (const auto& e : b.shapeSym)
          for (int v : ir::symbolsOf(e)) used.insert(v);
      for (const auto& l : k.loops)
        for (int v : ir::symbolsOf(l.extentSym)) used.insert(v);
      for (int v : used) names.push_back("s" + std::to_string(v));
      points = count.str() + " (" + std::to_string(k.pointCountAt(sizes_)) + ")";
    }
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    out += ")  # " + points + " points";
    if (splitOverThreads(k)) out += ", parallel over " + k.loops[0].var;
    out += "\n";
  }
  out += "    return (";
  const auto& refs = g_.output()->args.at(0).list;
  for (size_t i = 0; i < refs.size(); ++i) out += (i ? ", " : "") + ir::printArg(g_, refs[i]);
  out += refs.size() == 1 ? ",)\n" : ")\n";
  return out;
}

std::vector<tensor::Tensor> runAtenGraph(const ir::Graph& g, const std::vector<tensor::Tensor>& inputs) {
  std::map<int, tensor::Tensor> env;
  bindInputs(g, inputs, env);
  for (const auto& n : g.nodes) {
    if (!n.isCall()) continue;
    std::vector<ops::Val> args;
    for (const auto& a : n.args) args.push_back(argVal(a, env));
    ops::EagerDispatcher eager;
    env[n.id] = eager.call(ops::op(n.target), args).t;
  }
  return collectOutputs(g, env);
}

std::vector<tensor::Tensor> runTorchGraph(const ir::Graph& g, const std::vector<tensor::Tensor>& inputs, bool functional) {
  std::map<int, tensor::Tensor> env;
  bindInputs(g, inputs, env);
  ops::EagerDispatcher eager;
  const passes::TorchLevel& torch = passes::torchLevel();  // the torch-level definitions (engine/torch)
  std::map<int, std::vector<tensor::Tensor>> tuples;       // multi-result calls
  // functional: the values an in-place node replaced (node -> (in-place node id, old value)).
  std::map<int, std::vector<std::pair<int, tensor::Tensor>>> replaced;
  autograd::GradModeGuard gradMode(autograd::isGradEnabled());  // the graph's own grad-mode changes end with it
  ops::autocast::GraphRegions autocast;                         // and so do its autocast blocks
  for (const auto& n : g.nodes) {
    if (!n.isCall()) continue;
    if (n.target == "torch._C._set_grad_enabled") {
      if (!n.args.empty() && n.args[0].kind == ir::Arg::Kind::Bool) autograd::setGradEnabled(n.args[0].b);
      continue;
    }
    if (autocast.apply(n)) continue;
    if (n.target == passes::kAutogradFunctionApply && n.args.size() == 3) {
      // A torch.autograd.Function: its forward ran just before (its own nodes); its inputs are
      // read as they were when the forward began (a dirty one keeps its autograd history).
      const ir::Arg* first = n.kwarg("first_node");
      const int begin = first && first->kind == ir::Arg::Kind::Int ? static_cast<int>(first->i) : 0;
      auto values = [&](const ir::Arg& list, bool asBefore) {
        std::vector<tensor::Tensor> out;
        for (const auto& a : list.list) {
          if (!a.isNode()) {
            out.emplace_back();
            continue;
          }
          tensor::Tensor t = env.at(a.node);
          if (asBefore)
            if (auto r = replaced.find(a.node); r != replaced.end())
              for (const auto& [at, old] : r->second)
                if (at >= begin) {
                  t = old;
                  break;
                }
          out.push_back(t);
        }
        return out;
      };
      tuples[n.id] = torch.applyAutogradFunction(n, values(n.args[0], true), values(n.args[1], false), values(n.args[2], false));
      continue;
    }
    if (n.target == "_operator.getitem" && n.args.size() == 2 && n.args[0].isNode() && tuples.count(n.args[0].node)) {
      env[n.id] = tuples[n.args[0].node].at(static_cast<size_t>(n.args[1].i));
      continue;
    }
    if (!torch.defined(n)) throw std::runtime_error("no eager definition for captured op " + n.target);
    std::vector<ops::Val> args;
    std::vector<std::pair<std::string, ops::Val>> kwargs;
    for (const auto& a : n.args) args.push_back(argVal(a, env));
    for (const auto& [k, a] : n.kwargs) kwargs.emplace_back(k, argVal(a, env));
    ops::Val r;
    try {
      r = torch.call(n, eager, std::move(args), std::move(kwargs));
    } catch (const tensor::Interrupted&) { throw; } catch (const tensor::TorchError& e) {
      if (e.type() != "NotImplementedError") throw;  // PyTorch's own errors keep PyTorch's message
      // Kiln's own limit met in a graph run op by op (a GPU graph the CUDA backend cannot take):
      // say at which node, and the user's line it came from, since the Python traceback ends at
      // the compiled frame's call.
      std::string where = " (running node " + n.name + " = " + n.target;
      if (n.prov.loc.valid()) where += ", from " + n.prov.loc.file + ":" + std::to_string(n.prov.loc.line);
      if (!n.prov.loc.code.empty()) where += ": " + n.prov.loc.code;
      throw tensor::TorchError(e.type(), e.what() + where + ")");
    }
    if (r.kind == ops::Val::Kind::List) {
      for (const auto& x : r.list) tuples[n.id].push_back(x.t);
      continue;
    }
    if (torch.isInplace(n) && functional) {
      replaced[n.args[0].node].emplace_back(n.id, env.at(n.args[0].node));
      env[n.id] = r.t;
      env[n.args[0].node] = r.t;
      continue;
    }
    if (torch.isInplace(n)) {
      // A real in-place update: views of the same storage (and aliased inputs) see it, as in
      // the program. The op table computes the new value functionally; it is written back.
      tensor::Tensor dst = env.at(n.args[0].node);
      ops::copyInto(dst, r.t.storage() == dst.storage() ? r.t.clone() : r.t);
      env[n.id] = dst;
      continue;
    }
    env[n.id] = r.t;
  }
  return collectOutputs(g, env);
}

}  // namespace kiln::runtime
