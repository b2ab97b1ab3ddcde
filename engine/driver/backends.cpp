#include "engine/driver/backends.h"

#include "engine/ir/text.h"
#include "engine/passes/lower_to_aten.h"
#include "engine/passes/pipeline.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/schedule/kernel_builder.h"

#include <chrono>
#include <stdexcept>

namespace kiln::driver {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void emitStage(session::SessionSink& sink, const std::string& cid, const std::string& stage, int order, const ir::Graph& g,
               bool changed, std::vector<session::RuleHit> rules, double ms) {
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

// User source lines of the nodes a kernel was built from (through provenance).
std::vector<int> sourceLines(const ir::Graph& g, const std::vector<int>& nodes) {
  std::vector<int> lines;
  for (int id : nodes)
    if (const ir::Node* n = g.find(id); n && n->prov.loc.line > 0 &&
                                        std::find(lines.begin(), lines.end(), n->prov.loc.line) == lines.end())
      lines.push_back(n->prov.loc.line);
  return lines;
}

}  // namespace

capture::GraphRunner compileGraph(const ir::Graph& captured, const std::string& cid, const BackendOptions& opts,
                                  session::SessionSink& sink, codegen::KernelCompiler* cpu, const ir::Graph* shown) {
  int order = 0;
  emitStage(sink, cid, "captured", order++, shown ? *shown : captured, true, {}, 0.0);
  if (opts.backend == "eager") {
    ir::Graph g = captured;
    return [g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); };
  }
  auto t0 = std::chrono::steady_clock::now();
  ir::Graph aten = passes::lowerToAten(captured);
  double lowerMs = msSince(t0);
  emitStage(sink, cid, "aten", order++, aten, true, {}, lowerMs);
  sink.timing(session::TimingEvent{cid, "lower", lowerMs});
  if (opts.backend == "aot_eager") {
    return [aten](const std::vector<tensor::Tensor>& in) { return runtime::runAtenGraph(aten, in); };
  }
  if (opts.backend != "inductor") throw std::runtime_error("unknown backend '" + opts.backend + "'");

  passes::PassContext ctx;
  t0 = std::chrono::steady_clock::now();
  ir::Graph fused = passes::runPipeline(aten, ctx, opts.passes, [&](const passes::PassSnapshot& s) {
    emitStage(sink, cid, std::string(s.name == "fuse" ? "fused" : "pass:" + s.name), order++, *s.graph, s.changed, s.rules, s.ms);
  });
  sink.timing(session::TimingEvent{cid, "passes", msSince(t0)});

  t0 = std::chrono::steady_clock::now();
  schedule::ScheduledGraph sched = schedule::scheduleGraph(fused);
  sink.timing(session::TimingEvent{cid, "schedule", msSince(t0)});

  t0 = std::chrono::steady_clock::now();
  std::shared_ptr<codegen::CompiledModule> module;
  if (!sched.kernels.empty()) {
    if (!cpu) throw std::runtime_error("no CPU code generator available");
    module = cpu->compile(sched.kernels, "graph_" + cid);
  }
  sink.timing(session::TimingEvent{cid, "codegen", msSince(t0)});
  for (size_t i = 0; i < sched.kernels.size(); ++i) {
    const kir::Kernel& k = sched.kernels[i];
    session::KernelEvent e;
    e.compileId = cid;
    e.name = k.name;
    e.kind = k.kind;
    e.kernelIr = kir::print(k);
    e.llvmIr = module->kernels[i].llvmIr;
    e.assembly = module->kernels[i].assembly;
    e.source = module->kernels[i].source;
    e.nodeIds = k.sourceNodes;
    e.sourceLines = sourceLines(fused, k.sourceNodes);
    e.compileMs = module->kernels[i].compileMs;
    sink.kernel(e);
  }
  auto graph = std::make_shared<runtime::CompiledGraph>(fused, std::move(sched), module);
  sink.wrapper(session::WrapperEvent{cid, graph->wrapperText()});
  if (opts.log) {
    auto frame = std::make_shared<CompiledFrame>(CompiledFrame{cid, captured, graph, {}, false});
    opts.log->frames.push_back(frame);
    return [graph, frame](const std::vector<tensor::Tensor>& in) {
      if (!frame->called) {
        frame->called = true;
        for (const auto& t : in) frame->firstInputs.push_back(t.clone());
      }
      return graph->run(in);
    };
  }
  return [graph](const std::vector<tensor::Tensor>& in) { return graph->run(in); };
}

}  // namespace kiln::driver
