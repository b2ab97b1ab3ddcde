// The kernels in Inductor's output code (the `inductor_output_code` record of a TORCH_TRACE
// log): each `NAME = async_compile.KIND(...)` definition with its source (Triton Python or C++)
// and the provenance comments Inductor writes above it (`# Topologically Sorted Source Nodes:
// [...]`, `# Source node to ATen node mapping:`), which tie the kernel to graph nodes.
#pragma once

#include <string>
#include <vector>

namespace kiln::importers::torch_trace {

struct InductorKernel {
  std::string name;                      // triton_per_fused_native_layer_norm_relu_0, cpp_fused_add_0
  std::string compiler;                  // triton | cpp_pybinding | cpp | ...
  std::string kind;                      // pointwise | reduction | template | cpp
  std::string source;                    // the kernel's code
  std::vector<std::string> sourceNodes;  // "Topologically Sorted Source Nodes": names in the pre-ATen graph
  std::vector<std::string> atenNodes;    // from the mapping: names of post-grad graph nodes
};

std::vector<InductorKernel> inductorKernels(const std::string& outputCode);

}  // namespace kiln::importers::torch_trace
