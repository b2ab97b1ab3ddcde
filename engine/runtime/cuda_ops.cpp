// Eager ops on CUDA tensors (ops::setDeviceKernels): what the GPU runs today. Every op not
// handled here raises NotImplementedError naming it (ops/device_dispatch.cpp): none is computed
// on the CPU behind a CUDA tensor's back.
#include "engine/ops/device_dispatch.h"
#include "engine/ops/op_table.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/tensor/tensor.h"

namespace kiln::runtime::cuda {

namespace {

// A contiguous copy of a contiguous tensor: one device-to-device copy.
std::optional<ops::Val> cloneContiguous(const tensor::Tensor& x, const tensor::Device& d) {
  if (!x.isContiguous()) return std::nullopt;
  tensor::Tensor out = tensor::Tensor::empty(x.sizes(), x.dtype(), d);
  const size_t bytes = static_cast<size_t>(x.numel()) * ir::itemSize(x.dtype());
  if (bytes)
    driver().copyOnDevice(reinterpret_cast<uint64_t>(out.storage()->devicePtr()),
                          reinterpret_cast<uint64_t>(static_cast<char*>(x.storage()->devicePtr()) + x.offset() * ir::itemSize(x.dtype())),
                          bytes);
  return ops::Val::of(out);
}

std::optional<ops::Val> run(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d) {
  if ((op.name == "aten.clone.default" || op.name == "aten.contiguous.default") && !args.empty() && args[0].kind == ops::Val::Kind::Tensor)
    return cloneContiguous(args[0].t, d);
  return pointwiseOnDevice(op, args, d);
}

}  // namespace

void installCudaKernels() { ops::setDeviceKernels(run); }

}  // namespace kiln::runtime::cuda
