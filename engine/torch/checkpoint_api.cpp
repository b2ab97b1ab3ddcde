// torch.utils.checkpoint under torch.compile. Dynamo does not step into checkpoint: it traces the
// checkpointed function as the body of a torch.ops.higher_order.tag_activation_checkpoint node,
// which AOTAutograd inlines, tagging every node of the body with the region (ac_graph_id) and
// CheckpointPolicy.MUST_RECOMPUTE; its min-cut partitioner then recomputes those nodes in the
// backward instead of saving them. Kiln's captured graph is flat: the body's ops are recorded
// in place and each call node carries the region in its provenance (checkpointRegion), which
// lowering and the joint graph copy to what the node becomes, and passes/partition.cpp reads.
#include "engine/torch/checkpoint_api.h"

#include "engine/ops/random.h"
#include "engine/torch/capture_hooks.h"

#include <algorithm>

namespace kiln::torchapi {

namespace {

// Calls fn(*args, **kwargs); while capturing, stamps the call nodes it recorded with a new
// region (one more than the graph's last; nodes of a checkpoint nested inside keep theirs).
py::Value checkpointRegion(py::Interpreter& in, py::CallArgs& a) {
  if (a.args.empty()) in.raise("TypeError", "_kiln_checkpoint_region() missing the function to call");
  py::CallArgs call;
  call.args.assign(a.args.begin() + 1, a.args.end());
  call.kwargs = a.kwargs;
  call.span = a.span;
  if (!in.tracer) return in.call(a.args[0], call);
  ir::Graph& g = tracerOf(in)->capturedGraph();
  const int first = g.nextId();
  int region = 0;
  for (const auto& n : g.nodes) region = std::max(region, n.prov.checkpointRegion + 1);
  py::Value out = in.call(a.args[0], call);
  for (auto& n : g.nodes)
    if (n.id >= first && n.isCall() && n.prov.checkpointRegion < 0) n.prov.checkpointRegion = region;
  return out;
}

// _kiln_rng_state(generator, save): save=True copies the default CPU generator's state into the
// torch.Generator `generator`, save=False copies it back: preserve_rng_state's
// torch.get_rng_state / set_rng_state around the recomputation, so that a random op inside the
// region draws in the backward what it drew in the forward.
py::Value rngState(py::Interpreter& in, py::CallArgs& a) {
  const py::Value g = a.args.empty() ? nullptr : a.args[0];
  if (!g || g->kind != py::VK::Instance || py::as<py::InstanceObj>(g)->cls->name != "Generator" || !py::as<py::InstanceObj>(g)->native)
    in.raise("TypeError", "_kiln_rng_state() expects a torch.Generator");
  auto* other = static_cast<Generator*>(py::as<py::InstanceObj>(g)->native.get());
  if (a.args.size() > 1 && in.truthy(a.args[1])) *other = defaultGenerator();
  else defaultGenerator() = *other;
  return py::None();
}

}  // namespace

void installCheckpoint(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& checkpointModule) {
  (void)in;
  auto fn = py::makeBuiltin("torch.utils.checkpoint._kiln_checkpoint_region", checkpointRegion);
  py::as<py::BuiltinObj>(fn)->isMethod = false;
  checkpointModule->scope->vars["_kiln_checkpoint_region"] = fn;
  auto rng = py::makeBuiltin("torch.utils.checkpoint._kiln_rng_state", rngState);
  py::as<py::BuiltinObj>(rng)->isMethod = false;
  checkpointModule->scope->vars["_kiln_rng_state"] = rng;
}

}  // namespace kiln::torchapi
