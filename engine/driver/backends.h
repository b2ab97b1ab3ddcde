// What happens to a captured graph: the backend named by torch.compile(backend=...).
//   eager     - run the captured graph op by op
//   aot_eager - lower to ATen, run the ATen graph op by op
//   inductor  - lower, run the pass pipeline, fuse, generate kernels (LLVM), run the wrapper
// Every stage is reported to the sink as it is produced.
#pragma once

#include "engine/capture/backend.h"
#include "engine/codegen/kernel_compiler.h"
#include "engine/passes/pass_manager.h"
#include "engine/session/sink.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime {
class CompiledGraph;
namespace cuda {
class GpuGraph;
}
}  // namespace kiln::runtime

namespace kiln::driver {

// What `kiln bench` needs of each graph the inductor backend compiled: the captured graph (its
// eager reference), the wrapper, and a copy of the inputs of its first call.
struct CompiledFrame {
  std::string compileId;
  ir::Graph captured;
  std::shared_ptr<runtime::CompiledGraph> compiled;  // its CPU code, or
  std::shared_ptr<runtime::cuda::GpuGraph> gpu;      // its GPU code (over CUDA tensors)
  std::vector<tensor::Tensor> firstInputs;
  bool called = false;
};
struct CompiledFrameLog {
  std::vector<std::shared_ptr<CompiledFrame>> frames;
};

struct BackendOptions {
  std::string backend = "inductor";
  passes::PassManagerOptions passes;
  CompiledFrameLog* log = nullptr;  // when set, every inductor graph is recorded there
  std::string mode = "default";     // torch.compile's mode (capture::CompileRequest::mode)
};

// What a dynamic entry keeps so that a call at another shape runs the same generated code: its
// kernels over size symbols (hints cleared) and their compiled module.
struct DynamicCode : capture::ReusableCode {
  DynamicCode(std::vector<kir::Kernel> k, std::shared_ptr<codegen::CompiledModule> m) : kernels(std::move(k)), module(std::move(m)) {}
  std::vector<kir::Kernel> kernels;
  std::shared_ptr<codegen::CompiledModule> module;
  bool cuda = false;  // the kernels run on the GPU (no module here: NVRTC's, cached by source)
};

// The compiled backward of a graph whose inputs require grad (passes/backward_graph.h), built and
// compiled on its first call; it returns nullopt when that failed (the caller then
// differentiates eagerly; the wrapper says why).
using BackwardCode = capture::BackwardCode;

// The built-in backends compileGraph runs, by name, with a one-line description each.
std::vector<std::pair<std::string, std::string>> builtinBackendNames();

// Throws std::runtime_error on an internal compiler failure (the caller falls back to eager).
// `shown` (when given) is the captured graph as the user sees it (symbolic sizes); `captured`
// is what gets compiled (concrete sizes). With `dynamicInputs` (one type per placeholder, with
// the size symbols of a dynamic entry), the kernels are generated over those symbols where the
// graph allows it (schedule/symbolic_shapes.h) and `dynamicCode` receives them for reuse.
capture::GraphRunner compileGraph(const ir::Graph& captured, const std::string& compileId, const BackendOptions& opts,
                                  session::SessionSink& sink, codegen::KernelCompiler* cpu, const ir::Graph* shown = nullptr,
                                  const std::vector<ir::TensorType>* dynamicInputs = nullptr,
                                  std::shared_ptr<DynamicCode>* dynamicCode = nullptr,
                                  std::shared_ptr<BackwardCode>* backwardCode = nullptr);

// A dynamic entry called at a new shape: `captured` (that shape's capture) goes through
// lowering, the passes and scheduling over the same symbols; when the kernels come out the same
// as `code`'s, the returned runner runs `code`'s module at the new sizes (no code generation).
// Otherwise nullptr, with the reason in `why`.
capture::GraphRunner reuseDynamicCode(const ir::Graph& captured, const std::vector<ir::TensorType>& dynamicInputs, const DynamicCode& code,
                                      const BackendOptions& opts, std::string* why);

}  // namespace kiln::driver
