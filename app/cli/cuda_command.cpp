// kiln cuda FILE|- [--arch sm_XY] [--json]: kernel IR (the `kernel ... end` blocks kiln show
// --stage kernels prints) to what the GPU would run: CUDA C++, PTX, SASS (with nvdisasm), the
// launch the runtime would choose and ptxas's registers, shared memory and spills. No GPU is
// needed. The studio's CUDA, PTX and SASS tabs run it (--json, kernel IR on stdin) for sessions
// that ran on the CPU, so the studio itself never links the compiler.
//
// kiln cuda-views (internal, not in the help): what `kiln run` starts to make a GPU compile's
// views outside its own process (engine/driver/kernel_views_child.h), a JSON request on stdin,
// the views as JSON on stdout. main() runs it first, before plugins load; it dies with its parent.
#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "engine/codegen/cuda/cuda_views.h"
#include "engine/driver/kernel_views_child.h"
#include "engine/session/kernel_gpu_text.h"
#include "storage/graph_json.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace kiln::cli {

namespace {

// Every `kernel ... end` block of `in`, parsed.
std::vector<kir::Kernel> readKernels(std::istream& in) {
  std::vector<kir::Kernel> out;
  std::string block;
  bool inKernel = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("kernel ", 0) == 0) inKernel = true, block.clear();
    if (inKernel) block += line + "\n";
    if (inKernel && line == "end") {
      out.push_back(kir::parseKernel(block));
      inKernel = false;
    }
  }
  return out;
}

}  // namespace

int cmdCuda(const std::vector<std::string>& args) {
  Opts o = parse(args, {"arch"}, {"json"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 1) throw UsageError("expected one FILE of kernel IR (- for standard input)");
  std::vector<kir::Kernel> kernels;
  if (o.positional[0] == "-") {
    kernels = readKernels(std::cin);
  } else {
    std::ifstream in(o.positional[0]);
    if (!in) throw UsageError("cannot read " + o.positional[0]);
    kernels = readKernels(in);
  }
  if (kernels.empty()) throw UsageError("no kernel IR (kernel ... end) in " + o.positional[0]);
  codegen::cuda::CudaViewOptions opts;
  opts.arch = one(o, "arch");
  if (!opts.arch.empty() && opts.arch.rfind("sm_", 0) != 0) throw UsageError("--arch takes a real architecture: sm_75, sm_90 ...");
  const codegen::cuda::CudaViews v = codegen::cuda::cudaViews(kernels, opts);
  if (o.flags.count("json")) {
    nlohmann::json j{{"arch", v.arch}, {"notes", v.notes}, {"kernels", nlohmann::json::array()}};
    for (size_t i = 0; i < v.kernels.size(); ++i) {
      const session::KernelGpuInfo g = codegen::cuda::gpuInfo(v, i);
      // "gpu" is the store's kernels.gpu_json (storage/graph_json.h), which the studio reads back.
      j["kernels"].push_back({{"name", v.kernels[i].name},
                              {"source", v.kernels[i].source},
                              {"ptx", g.ptx},
                              {"sass", g.sass},
                              {"gpu", nlohmann::json::parse(storage::gpuInfoToJson(g))}});
    }
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  for (size_t i = 0; i < v.kernels.size(); ++i) {
    const auto& kv = v.kernels[i];
    std::cout << "# " << kv.name << "\n// " << session::gpuSummary(codegen::cuda::gpuInfo(v, i)) << "\n"
              << "## CUDA C++\n"
              << kv.source << "## PTX\n"
              << kv.ptx << "## SASS\n"
              << (kv.sass.empty() ? "(none)\n" : kv.sass);
  }
  if (!v.notes.empty()) std::cout << "// " << v.notes;
  return 0;
}

int cmdCudaViews(const std::vector<std::string>& args) {
  // Bound to its parent before anything else: a kiln killed abruptly takes its child with it.
  if (!driver::bindKernelViewsChildToParent())
    throw std::runtime_error(std::string("its parent (") + driver::kViewsParentEnv + "=" + std::getenv(driver::kViewsParentEnv) +
                             ") is gone; exiting");
  if (!args.empty()) throw UsageError("takes no arguments: a views request (JSON) on standard input, from kiln run");
  driver::serveKernelViews(std::cin, std::cout);
  return 0;
}

}  // namespace kiln::cli
