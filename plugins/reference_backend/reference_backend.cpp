// kiln_reference: a reference backend for bisecting, as a plugin.
//
//   torch.compile(f, backend="kiln_reference")
//
// lowers the captured graph to ATen, runs Kiln's graph passes over it (every pass of the
// pipeline, plugins' included, except `fuse` and those the run disabled) and then interprets the
// resulting ATen graph node by node with the eager kernels (runtime::runAtenGraph) — no fusion,
// no generated code. So when a program's numbers differ under the default backend (inductor):
//   - eager vs kiln_reference differ: a graph pass (or lowering) changed them; bisect further
//     with `kiln run --disable-pass NAME`;
//   - kiln_reference agrees with eager but inductor does not: fusion, scheduling or code
//     generation did (kiln run --verify bisects the fusion decisions).
// Its stages (captured, aten, pass:NAME with the rules that fired) are reported like the built-in
// backends'. Graphs on a device run op by op as captured; backward is eager.
#include "plugin_host/kiln_plugin.h"

#include "engine/capture/backend.h"
#include "engine/ir/text.h"
#include "engine/passes/lower_to_aten.h"
#include "engine/passes/pass_manager.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/runtime/functional_outputs.h"

#include <chrono>

namespace {

using namespace kiln;

void emitStage(session::SessionSink& sink, const std::string& cid, const std::string& stage, int order, const ir::Graph& g, bool changed,
               std::vector<session::RuleHit> rules, double ms) {
  session::StageEvent e;
  e.compileId = cid;
  e.stage = stage;
  e.order = order;
  e.text = ir::printGraph(g);
  e.graph = g;
  e.changed = changed;
  e.rules = std::move(rules);
  e.ms = ms;
  sink.stage(e);
}

// What running a functional ATen graph leaves to its caller (runtime/functional_outputs.h).
std::vector<tensor::Tensor> finish(const passes::Lowered& l, const std::vector<tensor::Tensor>& in, std::vector<tensor::Tensor> outs) {
  return runtime::finishFunctionalOutputs(l.inputMutations, l.userOutputs, l.outputAliases, in, std::move(outs));
}

class ReferenceBackend : public capture::Backend {
 public:
  explicit ReferenceBackend(passes::PassManagerOptions opts) : opts_(std::move(opts)) { opts_.disabled.insert("fuse"); }

  bool reportsCapturedStage() const override { return true; }  // compile() emits "captured" itself

  capture::CompiledCode compile(const ir::Graph& captured, const std::string& cid, session::SessionSink& sink,
                                const capture::CompileRequest& request) override {
    int order = 0;
    emitStage(sink, cid, "captured", order++, request.shown ? *request.shown : captured, true, {}, 0.0);
    capture::CompiledCode out;
    for (const ir::Node* p : captured.placeholders())
      if (!p->types.empty() && p->types[0].device != "cpu") {
        out.run = [g = captured](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); };
        return out;
      }
    auto t0 = std::chrono::steady_clock::now();
    auto lowered = std::make_shared<passes::Lowered>(passes::lower(captured));
    emitStage(sink, cid, "aten", order++, lowered->graph, true, {}, msSince(t0));
    passes::PassContext ctx;
    lowered->graph = passes::runPipeline(lowered->graph, ctx, opts_, [&](const passes::PassSnapshot& s) {
      if (!s.skipped) emitStage(sink, cid, "pass:" + s.name, order++, *s.graph, s.changed, s.rules, s.ms);
    });
    out.run = [lowered](const std::vector<tensor::Tensor>& in) { return finish(*lowered, in, runtime::runAtenGraph(lowered->graph, in)); };
    return out;
  }

 private:
  static double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  passes::PassManagerOptions opts_;
};

void registerAll(plugin::Registrar& r) {
  r.addBackend("kiln_reference",
               "lower to ATen, run Kiln's graph passes (not fuse), interpret the ATen graph node by node with the eager kernels "
               "(plugin; for bisecting)",
               [](const capture::BackendConfig& config) { return std::make_shared<ReferenceBackend>(config.passes); });
}

}  // namespace

KILN_PLUGIN("kiln_reference", "a reference backend: Kiln's graph passes, then the ATen graph interpreted with the eager kernels",
            registerAll)
