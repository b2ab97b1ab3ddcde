// Eager ops on CUDA tensors (ops::setDeviceKernels): what the GPU runs today. Every op not
// handled here raises NotImplementedError naming it (ops/device_dispatch.cpp): none is computed
// on the CPU behind a CUDA tensor's back. Order: clones, cuBLAS, cuDNN (convolutions), pooling
// (cuda_pool_ops.h), tril / triu / nonzero (cuda_tri_nonzero_ops.h), the index / random /
// assembled ops of cuda_index_ops.h, then the one-node graph route (generated kernels), then the
// op's decomposition run op by op on the device.
#include "engine/ops/device_dispatch.h"
#include "engine/ops/op_table.h"
#include "engine/runtime/cuda_conv.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_index_ops.h"
#include "engine/runtime/cuda_pool_ops.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/cuda_tri_nonzero_ops.h"
#include "engine/tensor/device_convert.h"
#include "engine/tensor/tensor.h"

namespace kiln::runtime::cuda {

namespace {

// A contiguous copy: one device-to-device copy, or a generated copy kernel for a strided view.
std::optional<ops::Val> cloneContiguous(const tensor::Tensor& x, const tensor::Device& d) {
  if (!x.isContiguous()) return ops::Val::of(relayoutOnDevice(x, tensor::Tensor::contiguousStrides(x.sizes())));
  tensor::Tensor out = tensor::Tensor::empty(x.sizes(), x.dtype(), d);
  const size_t bytes = static_cast<size_t>(x.numel()) * ir::itemSize(x.dtype());
  if (bytes) driver().copyOnDevice(devicePtr(out), devicePtr(x), bytes);
  return ops::Val::of(out);
}

std::optional<ops::Val> run(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d) {
  if ((op.name == "aten.clone.default" || op.name == "aten.contiguous.default") && !args.empty() && args[0].kind == ops::Val::Kind::Tensor)
    return cloneContiguous(args[0].t, d);
  if (auto r = blasOnDevice(op, args, d)) return r;
  if (auto r = convOnDevice(op, args, d)) return r;
  if (auto r = poolOnDevice(op, args, d)) return r;
  if (auto r = triNonzeroOnDevice(op, args, d)) return r;
  if (auto r = indexOnDevice(op, args, d)) return r;
  if (auto r = graphOnDevice(op, args, d)) return r;
  return decomposedOnDevice(op, args, d);
}

}  // namespace

void installCudaKernels() {
  ops::setDeviceKernels(run);
  ops::setDeviceCopy([](tensor::Tensor& dst, const tensor::Tensor& src) {
    // copyInto's checks (leading 1-dims of src dropped, then it must expand to dst) before the kernel.
    tensor::Tensor s = src;
    while (s.dim() > dst.dim() && s.sizes()[0] == 1)
      s = s.view(tensor::Shape(s.sizes().begin() + 1, s.sizes().end()), tensor::Shape(s.strides().begin() + 1, s.strides().end()),
                 s.offset());
    if (tensor::broadcastShapes(dst.sizes(), s.sizes()) != dst.sizes())
      throw tensor::TorchError("RuntimeError", "The expanded size of the tensor " + tensor::shapeStr(s.sizes()) +
                                                   " must match the target sizes " + tensor::shapeStr(dst.sizes()));
    // An overlapping source (x[1:] = x[:-1]) is copied out first, as copyInto does on the CPU.
    copyOnDevice(dst, s.storage() == dst.storage() ? relayoutOnDevice(s, tensor::Tensor::contiguousStrides(s.sizes())) : s);
  });
  // Tensor::clone() / to(dtype) / contiguous() of a CUDA tensor (autograd's gradient
  // accumulation, retain_grad, the CPU-side helpers that make an input contiguous first).
  tensor::setDeviceConvert([](const tensor::Tensor& src, ir::DType dtype) {
    if (dtype == src.dtype()) return cloneContiguous(src, src.device())->t;
    tensor::Tensor out = tensor::Tensor::empty(src.sizes(), dtype, src.device());
    copyOnDevice(out, src);
    return out;
  });
}

}  // namespace kiln::runtime::cuda
