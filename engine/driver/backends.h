// What happens to a captured graph: the backend named by torch.compile(backend=...).
//   eager     - run the captured graph op by op
//   aot_eager - lower to ATen, run the ATen graph op by op
//   inductor  - lower, run the pass pipeline, fuse, generate kernels (LLVM), run the wrapper
// Every stage is reported to the sink as it is produced.
#pragma once

#include "engine/capture/frame.h"
#include "engine/codegen/kernel_compiler.h"
#include "engine/passes/pass_manager.h"
#include "engine/session/sink.h"

#include <string>

namespace kiln::driver {

struct BackendOptions {
  std::string backend = "inductor";
  passes::PassManagerOptions passes;
};

// Throws std::runtime_error on an internal compiler failure (the caller falls back to eager).
// `shown` (when given) is the captured graph as the user sees it (symbolic sizes); `captured`
// is what gets compiled (concrete sizes).
capture::GraphRunner compileGraph(const ir::Graph& captured, const std::string& compileId, const BackendOptions& opts,
                                  session::SessionSink& sink, codegen::KernelCompiler* cpu, const ir::Graph* shown = nullptr);

}  // namespace kiln::driver
