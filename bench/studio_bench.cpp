// The studio's scale (issue 6): how long a large ATen graph takes to appear folded by module,
// to expand a module, and (for reference) to lay out in full. The graphs are shaped like the
// seed MiniTransformer's ATen graph: per block, layer norms of 16 nodes, an attention of 52
// with its qkv / out projections of 8, a feed-forward of 8 + 2 + 8, residual adds in the block's
// own scope (about 120 nodes and 140 edges per block), each node carrying its module path.
#include "viewers/graph_layout.h"
#include "viewers/module_collapse.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace kiln;

ir::Graph transformer(int blocks) {
  ir::Graph g;
  auto add = [&](const std::string& target, std::vector<int> args, const std::string& module) {
    ir::Node n;
    n.kind = args.empty() ? ir::NodeKind::Placeholder : ir::NodeKind::CallFunction;
    n.target = target;
    n.id = static_cast<int>(g.nodes.size());
    n.name = target.substr(target.find('.') + 1, target.rfind('.') - target.find('.') - 1) + "_" + std::to_string(n.id);
    for (int a : args) n.args.push_back(ir::Arg::ref(a));
    n.types.push_back(ir::TensorType{.dtype = ir::DType::Float32, .sizes = {2, 16, 64}});
    n.prov.modulePath = module;
    g.nodes.push_back(std::move(n));  // unique names already: Graph::add's name check is O(n)
    g.reserveIds(g.nodes.back().id + 1);
    return g.nodes.back().id;
  };
  // A chain of `len` ops in `module` starting from `from`, every third reading `side` too.
  auto chain = [&](int from, int len, const std::string& module, int side) {
    int last = from;
    for (int i = 0; i < len; ++i)
      last = add(i % 3 == 2 ? "aten.add.Tensor" : "aten.mul.Tensor", i % 3 == 2 ? std::vector<int>{last, side} : std::vector<int>{last},
                 module);
    return last;
  };
  int x = add("aten.embedding.default", {}, "");
  for (int b = 0; b < blocks; ++b) {
    const std::string blk = "transformer_blocks." + std::to_string(b);
    int n1 = chain(x, 16, blk + ".norm1", x);
    int q = chain(n1, 8, blk + ".attention.qkv_proj", n1);
    int a = chain(q, 52, blk + ".attention", q);
    int o = chain(a, 8, blk + ".attention.out_proj", a);
    int r1 = add("aten.add.Tensor", {x, o}, blk);
    int n2 = chain(r1, 16, blk + ".norm2", r1);
    int f = chain(chain(chain(n2, 8, blk + ".feed_forward.0", n2), 2, blk + ".feed_forward.1", n2), 8, blk + ".feed_forward.3", n2);
    x = add("aten.add.Tensor", {r1, f}, blk);
  }
  int c = chain(x, 4, "classifier", x);
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = out.target = "output";
  out.args.push_back(ir::Arg::listOf({ir::Arg::ref(c)}));
  out.id = static_cast<int>(g.nodes.size());
  g.nodes.push_back(std::move(out));
  return g;
}

int blocksFor(int64_t nodes) { return static_cast<int>(nodes / 120); }

// Opening a stage: fold everything, lay out the few boxes left.
void BM_OpenFolded(benchmark::State& state) {
  const ir::Graph g = transformer(blocksFor(state.range(0)));
  for (auto _ : state) {
    auto shown = viewers::collapseByModule(g, {});
    benchmark::DoNotOptimize(viewers::computeGraphLayout(shown.graph, {}));
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
}

// Expanding the ModuleList: one box per block.
void BM_ExpandBlocks(benchmark::State& state) {
  const ir::Graph g = transformer(blocksFor(state.range(0)));
  for (auto _ : state) {
    auto shown = viewers::collapseByModule(g, {"transformer_blocks"});
    benchmark::DoNotOptimize(viewers::computeGraphLayout(shown.graph, {}));
    state.counters["shown"] = static_cast<double>(shown.graph.nodes.size());
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
}

// Then expanding one block: its norms, attention and feed-forward as boxes, the others folded.
void BM_ExpandOneBlock(benchmark::State& state) {
  const ir::Graph g = transformer(blocksFor(state.range(0)));
  for (auto _ : state) {
    auto shown = viewers::collapseByModule(g, {"transformer_blocks", "transformer_blocks.3"});
    benchmark::DoNotOptimize(viewers::computeGraphLayout(shown.graph, {}));
    state.counters["shown"] = static_cast<double>(shown.graph.nodes.size());
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
}

// Everything expanded: what the studio did before collapse by module.
void BM_FullLayout(benchmark::State& state) {
  const ir::Graph g = transformer(blocksFor(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(viewers::computeGraphLayout(g, {}));
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
}

BENCHMARK(BM_OpenFolded)->Arg(5000)->Arg(50000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpandBlocks)->Arg(5000)->Arg(50000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ExpandOneBlock)->Arg(5000)->Arg(50000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullLayout)->Arg(1000)->Arg(2000)->Arg(5000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
