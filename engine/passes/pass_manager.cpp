#include "engine/passes/pass_manager.h"

#include "engine/ir/verify.h"
#include "engine/passes/pipeline.h"

#include <chrono>
#include <stdexcept>

namespace kiln::passes {

ir::Graph runPipeline(const ir::Graph& input, PassContext& ctx, const PassManagerOptions& opts,
                      const std::function<void(const PassSnapshot&)>& onPass) {
  return runPipeline(ir::Graph(input), ctx, opts, onPass);
}

ir::Graph runPipeline(ir::Graph&& input, PassContext& ctx, const PassManagerOptions& opts,
                      const std::function<void(const PassSnapshot&)>& onPass) {
  ir::Graph g = std::move(input);
  const std::vector<PassInfo> list = pipeline();
  checkPassNames(opts.disabled);  // a name that matches nothing would silently disable nothing
  ctx.fusionLimit = opts.fusionLimit;
  for (size_t i = 0; i < list.size(); ++i) {
    const PassInfo& p = list[i];
    PassSnapshot snap;
    snap.name = p.name;
    snap.index = static_cast<int>(i);
    if (opts.disabled.count(p.name) || (opts.stopAfter >= 0 && static_cast<int>(i) > opts.stopAfter)) {
      snap.skipped = true;
      snap.graph = &g;
      if (onPass) onPass(snap);
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    PassResult r = p.run(g, ctx);
    snap.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (std::string err = ir::verify(r.graph); !err.empty())
      throw std::logic_error("pass '" + p.name + "' produced an invalid graph: " + err);
    g = std::move(r.graph);
    snap.graph = &g;
    snap.changed = r.changed;
    snap.rules = std::move(r.rules);
    snap.applications = std::move(r.applications);
    if (onPass) onPass(snap);
  }
  return g;
}

}  // namespace kiln::passes
