// Eager ATen ops on CUDA tensors through the compiler's own path: the op becomes a one-node ATen
// graph, the fuse pass and the scheduler make its kernels (exactly what a compiled graph of that
// op gets: a softmax is one block-per-row kernel, a sum over everything a split reduction) and a
// GpuGraph compiles and launches them. Steps the scheduler leaves as extern calls (matmuls) go
// back through the eager dispatcher to their own device kernels. The graphs are cached per op
// and argument description (dtypes, sizes, strides, scalars), so an op at a shape is scheduled
// and compiled once per process.
#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"
#include "engine/passes/pass_manager.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/schedule/fusion.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/tensor/tensor.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace kiln::runtime::cuda {

namespace {

struct Decline {};

// What the graph depends on: the op, each tensor's dtype, sizes and strides, other arguments'
// values.
void describe(const ops::Val& v, std::ostringstream& key) {
  switch (v.kind) {
    case ops::Val::Kind::Tensor:
      key << "T" << ir::shortName(v.t.dtype()) << tensor::shapeStr(v.t.sizes()) << tensor::shapeStr(v.t.strides())
          << (v.t.isCpu() ? "c" : "");
      break;
    case ops::Val::Kind::List:
      key << "[";
      for (const auto& x : v.list) describe(x, key), key << ",";
      key << "]";
      break;
    case ops::Val::Kind::Int: key << "i" << v.i; break;
    case ops::Val::Kind::Float: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "f%a", v.f);  // exact: 0.1 and 0.1000001 are two kernels
      key << buf;
      break;
    }
    case ops::Val::Kind::Bool: key << "b" << v.b; break;
    case ops::Val::Kind::DType: key << "d" << ir::shortName(v.dtype); break;
    case ops::Val::Kind::String: key << "s" << v.s; break;
    default: key << "n";
  }
  key << ";";
}

struct Entry {
  std::shared_ptr<GpuGraph> graph;  // null: the op is not one GpuGraph can run
  bool multi = false;               // the op returns a list
};

std::mutex gMu;
std::map<std::string, Entry>& cache() {
  static std::map<std::string, Entry> c;
  return c;
}

// The op as a one-node graph over placeholders for its tensor arguments (`inputs` gets those
// tensors, in placeholder order), through the compiled path's passes and the scheduler.
std::optional<EagerOpGraph> buildGraph(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d,
                                       std::vector<tensor::Tensor>& inputs) {
  ir::Graph g;
  std::function<ops::Val(const ops::Val&)> symOf = [&](const ops::Val& v) -> ops::Val {
    if (v.kind == ops::Val::Kind::Tensor) {
      if (v.t.device() != d && !(v.t.isCpu() && v.t.dim() == 0)) throw Decline{};
      ir::Node p;
      p.kind = ir::NodeKind::Placeholder;
      p.name = p.target = "arg" + std::to_string(inputs.size());
      ir::TensorType ty = v.t.type();
      ty.requiresGrad = false;
      ty.device = "cpu";  // the scheduler's types; the device is GpuGraph's business
      p.types = {ty};
      const int id = g.add(p).id;
      inputs.push_back(v.t);
      return ops::Val::sym(ty, id);
    }
    if (v.kind == ops::Val::Kind::List) {
      std::vector<ops::Val> items;
      for (const auto& x : v.list) items.push_back(symOf(x));
      return ops::Val::listOf(std::move(items));
    }
    return v;
  };
  std::vector<ops::Val> symArgs;
  for (const auto& a : args) symArgs.push_back(symOf(a));
  ops::GraphDispatcher gd(g);
  // An op with several results (native_layer_norm -> out, mean, rstd) is recorded as its
  // decomposition: a graph node has one result, so the op itself would be a node of its first
  // result only, which the decompose pass cannot replace by the decomposition's list.
  ops::Val r = op.metaMulti && op.decompose ? op.decompose(gd, symArgs) : gd.call(op, symArgs);
  // A decomposition that updates an argument in place (training batch_norm's running stats)
  // would lose the update here: such ops are not run this way.
  if (!gd.mutations.empty()) throw Decline{};
  EagerOpGraph e;
  std::vector<ir::Arg> outs;
  if (r.kind == ops::Val::Kind::Sym) {
    outs.push_back(ir::Arg::ref(r.node));
  } else if (r.kind == ops::Val::Kind::List) {
    e.multi = true;
    for (const auto& x : r.list) {
      if (x.kind != ops::Val::Kind::Sym) throw Decline{};
      outs.push_back(ir::Arg::ref(x.node));
    }
  } else {
    throw Decline{};
  }
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = out.target = "output";
  out.args = {ir::Arg::listOf(outs)};
  g.add(out);
  // The compiled path's pass pipeline (decompositions such as _softmax into its reductions, then
  // fusion), so the op gets the kernels a compiled graph of it gets.
  // A pipeline that cannot take the one-node graph leaves plain fusion, which declines such ops.
  passes::PassContext ctx;
  ir::Graph fused;
  try {
    fused = passes::runPipeline(g, ctx, passes::PassManagerOptions{}, [](const passes::PassSnapshot&) {});
  } catch (const std::logic_error&) {
    fused = schedule::fuse(g, -1, [](const std::string&, int) {}).graph;
  }
  schedule::ScheduledGraph s = schedule::scheduleGraph(fused);
  // Every output must be made by a step of its own (an output that is an input, or a view of
  // one, is the view op's business: runOnDevice runs views), and an extern step of this very op
  // would come straight back here.
  std::set<int> made;
  for (const auto& st : s.steps) {
    if (st.kind == schedule::Step::Kind::Extern) {
      if (fused.find(st.node)->target == op.name) throw Decline{};
      made.insert(st.node);
    }
    for (int id : st.outputNodes) made.insert(id);
    for (const auto& [o, i] : st.inPlace) (void)i, made.insert(o);
  }
  std::set<int> seen;
  for (const auto& a : fused.output()->args.at(0).list)
    if (!made.count(a.node) || !seen.insert(a.node).second) throw Decline{};  // one buffer per output
  if (s.kernels.empty()) throw Decline{};                                     // nothing of the op's own to run here
  e.fused = std::move(fused);
  e.sched = std::move(s);
  return e;
}

Entry build(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d, std::vector<tensor::Tensor>& inputs) {
  std::optional<EagerOpGraph> g = buildGraph(op, args, d, inputs);
  Entry e;
  e.multi = g->multi;
  e.graph = std::make_shared<GpuGraph>(std::move(g->fused), std::move(g->sched));
  return e;
}

}  // namespace

std::optional<EagerOpGraph> eagerOpGraph(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device) {
  if (op.kind == ops::OpKind::View) return std::nullopt;
  std::vector<tensor::Tensor> inputs;
  try {
    return buildGraph(op, args, device, inputs);
  } catch (const Decline&) { return std::nullopt; }
}

std::optional<ops::Val> graphOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d) {
  if (op.kind == ops::OpKind::View) return std::nullopt;  // runOnDevice makes views without a kernel
  std::ostringstream key;
  key << op.name << "(";
  for (const auto& a : args) describe(a, key);
  std::vector<tensor::Tensor> inputs;
  Entry e;
  {
    std::lock_guard<std::mutex> lock(gMu);
    auto it = cache().find(key.str());
    if (it != cache().end()) e = it->second;
  }
  if (!e.graph) {
    {
      std::lock_guard<std::mutex> lock(gMu);
      if (cache().count(key.str())) return std::nullopt;  // declined before
    }
    try {
      e = build(op, args, d, inputs);
    } catch (const Decline&) {
      std::lock_guard<std::mutex> lock(gMu);
      cache()[key.str()] = Entry{};
      return std::nullopt;
    } catch (const std::runtime_error& err) {
      // A kernel the CUDA backend cannot print (f16 ...) or NVRTC rejected: said, never run on
      // the CPU.
      throw tensor::TorchError("NotImplementedError", "Kiln cannot run " + op.name + " on " + d.str() + " tensors: " + err.what());
    }
    std::lock_guard<std::mutex> lock(gMu);
    cache()[key.str()] = e;
  } else {
    std::function<void(const ops::Val&)> collect = [&](const ops::Val& v) {
      if (v.kind == ops::Val::Kind::Tensor) inputs.push_back(v.t);
      if (v.kind == ops::Val::Kind::List)
        for (const auto& x : v.list) collect(x);
    };
    for (const auto& a : args) collect(a);
  }
  std::vector<tensor::Tensor> outs = e.graph->run(inputs);
  if (!e.multi) return ops::Val::of(outs.at(0));
  std::vector<ops::Val> items;
  for (auto& t : outs) items.push_back(ops::Val::of(std::move(t)));
  return ops::Val::listOf(std::move(items));
}

}  // namespace kiln::runtime::cuda
