// A scheduled graph on the GPU: the kernel steps of a `schedule::ScheduledGraph` printed as one
// CUDA C++ translation unit (engine/codegen/cuda), compiled by NVRTC for this device and loaded
// once per process (modules are cached by their source), each launched with the configuration
// `cudaLaunch()` chose and recorded here; extern steps run through the eager dispatcher on the
// device tensors (cuBLAS for matmuls, other device kernels, or PyTorch's NotImplementedError).
// Inputs whose strides differ from what a kernel reads are re-laid out on the device first.
//
// Used for compiled graphs over CUDA tensors (engine/driver) and for eager ops on CUDA tensors
// (cuda_ops.cpp: an op becomes a one-node graph and goes through fuse and schedule, so an eager
// softmax is the kernel a compiled softmax gets).
#pragma once

#include "engine/codegen/cuda/cuda_source.h"
#include "engine/ir/graph.h"
#include "engine/ops/op_table.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/tensor/tensor.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime::cuda {

class GpuGraph {
 public:
  // Compiles the kernels. Throws std::runtime_error saying why the graph cannot run on the GPU
  // (a dtype the CUDA backend lacks, NVRTC's log); nothing runs on the CPU. Kernels over size
  // symbols (dynamic shapes) run at the shape `fused`'s types give (schedule::symbolValues).
  GpuGraph(ir::Graph fused, schedule::ScheduledGraph sched);
  ~GpuGraph();

  // Inputs in placeholder order, on the device; fresh output tensors on the device, except the
  // new values of mutated inputs written in place (writeMutationsInPlace), which are the inputs.
  // With `stepMs`, each schedule step (a kernel launch or an extern call) is bracketed by CUDA
  // events and its GPU time in ms left there, one per step; the call then waits for the GPU.
  std::vector<tensor::Tensor> run(const std::vector<tensor::Tensor>& inputs, std::vector<double>* stepMs = nullptr) const;

  // The functional graph's mutations (input index, graph output index): those whose kernel may
  // write the new value straight into the input do so when the input allows it at the call
  // (runtime/reinplace.h). Returns the output node ids that may.
  const std::map<int, size_t>& writeMutationsInPlace(const std::vector<std::pair<int, int>>& mutations);

  const ir::Graph& graph() const { return g_; }
  const schedule::ScheduledGraph& schedule() const { return sched_; }
  const std::vector<codegen::cuda::CudaLaunch>& launches() const { return launches_; }  // per kernel
  const std::string& source() const { return source_; }                                 // every kernel's CUDA C++
  // The PTX NVRTC made: one entry per distinct kernel body; kernel i runs through entry(i). A
  // graph of many bodies is compiled as several units side by side: their PTX one after another.
  const std::string& ptx() const { return ptx_; }
  const std::string& entry(size_t i) const { return entries_.at(i); }  // "" for a plain copy
  // Kernel i only copies one contiguous buffer into another of its dtype: it runs as a device
  // memcpy of this many bytes, compiled by nobody (0: a launch).
  size_t deviceCopyBytes(size_t i) const { return copyBytes_.at(i); }
  double compileMs() const { return compileMs_; }  // NVRTC and loading, wall time

 private:
  ir::Graph g_;
  schedule::ScheduledGraph sched_;
  std::string source_, ptx_;
  double compileMs_ = 0;
  std::vector<void*> fns_;
  std::vector<size_t> copyBytes_;     // per kernel: deviceCopyBytes
  std::vector<std::string> entries_;  // per kernel: the symbol it runs through (its body's first kernel's)
  std::vector<codegen::cuda::CudaLaunch> launches_;
  std::map<int, size_t> writeInto_;  // output node id -> the input it is written into
  std::vector<int64_t> sizes_;       // the size symbols' values at this graph's shape (s<N> at N)
  tensor::Tensor ks_;                // the same on the device, for kernels over size symbols
  // Split reductions: per kernel, its partials and counters (zeroed once; kernels reset them).
  std::vector<tensor::Tensor> scratch_, counters_;
};

// `src`'s elements (broadcast to dst's sizes, converted to dst's dtype) written into `dst`, both
// on the device, any strides: one generated copy kernel per layout.
void copyOnDevice(tensor::Tensor& dst, const tensor::Tensor& src);
// A tensor laid out with `strides` (contiguous ones or an input's recorded view strides) holding
// t's elements, on t's device.
tensor::Tensor relayoutOnDevice(const tensor::Tensor& t, const std::vector<int64_t>& strides);
// Every element of `dst` (on the device, any strides) set to `value` (converted to its dtype): a
// generated kernel of one constant store, like the copy kernel.
void fillOnDevice(tensor::Tensor& dst, double value);
// Its kernel (tests print it for NVRTC and run it with the LLVM backend).
kir::Kernel fillKernel(const tensor::Tensor& dst, double value);

// The entry point `symbol` of a CUDA C++ translation unit, compiled by NVRTC for this device
// and loaded once per process and source (the modules GpuGraph uses are cached the same way).
void* deviceFunction(const std::string& source, const std::string& unitName, const std::string& symbol);
// The device address of t's first element (its storage plus its offset); 0 for no storage.
unsigned long long devicePtr(const tensor::Tensor& t);

// The one-node graph an eager op on device tensors runs as (cuda_eager_graph.cpp): the op's
// graph after the compiled path's passes, its schedule, and whether the op returns a list.
// nullopt where the op gets no kernel of its own that way (an extern call, a view, an output
// that is an input). Needs no GPU: tests build it for CPU tensors (`device` cpu) and run the
// same kernels with the LLVM backend, and print them as CUDA C++ for NVRTC.
struct EagerOpGraph {
  ir::Graph fused;
  schedule::ScheduledGraph sched;
  bool multi = false;
};
std::optional<EagerOpGraph> eagerOpGraph(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device);

}  // namespace kiln::runtime::cuda
