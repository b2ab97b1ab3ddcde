// Pointwise ATen ops on CUDA tensors, eagerly, through the compiler's own path: the op becomes a
// one-node ATen graph, the fuse pass and the scheduler make its kernel IR (exactly the kernel a
// compiled graph of that op gets), engine/codegen/cuda prints it as CUDA C++ and NVRTC compiles
// it to PTX. Kernels are cached per process by their kernel IR text (op, dtypes and shapes), so
// an op at a shape is compiled once.
#include "engine/codegen/cuda/cuda_source.h"
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/schedule/fusion.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/tensor/tensor.h"

#include <map>
#include <memory>
#include <mutex>

namespace kiln::runtime::cuda {

namespace {

struct Decline {};

struct Loaded {
  void* fn = nullptr;
  int64_t points = 0;
};

std::mutex gMu;
std::map<std::string, Loaded>& cache() {
  static std::map<std::string, Loaded> c;
  return c;
}

Loaded compileKernel(const kir::Kernel& k) {
  const std::string key = kir::print(k);
  std::lock_guard<std::mutex> lock(gMu);
  if (auto it = cache().find(key); it != cache().end()) return it->second;
  std::string why;
  codegen::cuda::Nvrtc* nvrtc = codegen::cuda::Nvrtc::instance(&why);
  if (!nvrtc) throw tensor::TorchError("RuntimeError", "Kiln cannot compile CUDA kernels: " + why);
  // The whole module's PTX (a KernelCompiler's per-kernel PTX is a cut-out for display), for
  // this device's architecture.
  const std::string arch = "compute_" + std::to_string(driver().major()) + std::to_string(driver().minor());
  std::string ptx;
  try {
    ptx = nvrtc->compileToPtx(codegen::cuda::cudaSource({k}), "kiln_eager_" + k.name + ".cu", arch);
  } catch (const std::exception& e) {
    throw tensor::TorchError("RuntimeError", std::string("Kiln could not compile the CUDA kernel of an eager op: ") + e.what());
  }
  Loaded l;
  l.fn = driver().function(driver().loadModule(ptx), codegen::cuda::cudaSymbol(k));
  l.points = codegen::cuda::cudaPoints(k);
  cache()[key] = l;
  return l;
}

}  // namespace

std::optional<ops::Val> pointwiseOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d) {
  if (op.kind != ops::OpKind::Pointwise || !op.pointwise || op.eagerMulti) return std::nullopt;
  ir::Graph g;
  std::map<int, tensor::Tensor> inputs;  // placeholder id -> its tensor
  std::function<ops::Val(const ops::Val&)> symOf = [&](const ops::Val& v) -> ops::Val {
    if (v.kind == ops::Val::Kind::Tensor) {
      // A CPU scalar beside CUDA tensors and strided views: not yet (the caller says so).
      if (v.t.device() != d || !v.t.isContiguous()) throw Decline{};
      ir::Node p;
      p.kind = ir::NodeKind::Placeholder;
      p.name = p.target = "arg" + std::to_string(inputs.size());
      ir::TensorType ty = v.t.type();
      ty.requiresGrad = false;
      ty.device = "cpu";  // the scheduler's types; the device is this function's business
      p.types = {ty};
      const int id = g.add(p).id;
      inputs[id] = v.t;
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
  try {
    for (const auto& a : args) symArgs.push_back(symOf(a));
  } catch (const Decline&) {
    return std::nullopt;
  }
  ops::GraphDispatcher gd(g);
  ops::Val r = gd.call(op, symArgs);
  if (r.kind != ops::Val::Kind::Sym) return std::nullopt;
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = out.target = "output";
  out.args = {ir::Arg::listOf({ir::Arg::ref(r.node)})};
  g.add(out);
  ir::Graph fused = schedule::fuse(g, -1, [](const std::string&, int) {}).graph;
  schedule::ScheduledGraph s = schedule::scheduleGraph(fused);
  if (s.kernels.size() != 1 || s.steps.size() != 1) return std::nullopt;
  const schedule::Step& st = s.steps[0];
  const kir::Kernel& k = s.kernels[0];
  if (st.kind != schedule::Step::Kind::Kernel || !st.inPlace.empty() || k.symbolic() || st.outputNodes.size() != 1) return std::nullopt;
  std::vector<unsigned long long> ptrs;
  for (size_t i = 0; i < st.inputNodes.size(); ++i) {
    const tensor::Tensor& t = inputs.at(st.inputNodes[i]);
    if (st.inputStrides.at(i) != t.strides()) return std::nullopt;  // the kernel reads another layout
    ptrs.push_back(reinterpret_cast<unsigned long long>(static_cast<char*>(t.storage()->devicePtr()) + t.offset() * ir::itemSize(t.dtype())));
  }
  const ir::TensorType& oty = fused.find(st.outputNodes[0])->types.at(0);
  tensor::Shape shape;
  for (const auto& dim : oty.sizes) shape.push_back(dim.value);
  tensor::Tensor result = tensor::Tensor::empty(shape, oty.dtype, d);
  ptrs.push_back(reinterpret_cast<unsigned long long>(result.storage() ? result.storage()->devicePtr() : nullptr));
  if (result.numel() == 0) return ops::Val::of(result);
  Loaded l = compileKernel(k);
  long long points = l.points;
  std::vector<void*> params;
  for (auto& p : ptrs) params.push_back(&p);
  params.push_back(&points);
  const unsigned block = 256;
  const unsigned grid = static_cast<unsigned>(std::max<long long>(1, (points + block - 1) / block));
  driver().launch(l.fn, grid, block, params.data());
  return ops::Val::of(result);
}

}  // namespace kiln::runtime::cuda
