// mode="reduce-overhead" on the GPU: a compiled graph replayed as one CUDA graph, as Inductor's
// cudagraph trees do, so that a call costs one launch instead of one per kernel and the host
// work between them.
//
// The first call runs the graph as usual (a warm-up: every module is loaded and cuBLAS has its
// handle). The second records it: the stream is captured while the graph runs once, with every
// allocation taken from a private pool of the caching allocator (cuda_allocator.h), so the
// addresses the recorded kernels read and write stay the graph's. Later calls replay it.
//
// Inputs. An input at the address it had in the warm-up call (parameters, buffers, a tensor the
// caller passes again) is read in place: the recorded kernels read that address, and a replay
// first checks that the input is still there with the same layout. Any other input is copied
// into a static buffer of the graph's before each replay. An input that moves after it was
// recorded in place is re-recorded as a static one (each input at most once).
//
// Outputs are the graph's static blocks. A replay writes them again: where the caller still holds
// an output of an earlier call, that tensor is first handed a copy of its block (a swap of the
// memory behind its storage, tensor.h Storage::exchange), so no tensor a caller holds ever changes
// under it -- where PyTorch raises on reading an overwritten output, Kiln keeps it valid.
//
// Never a wrong answer: a graph with CPU inputs, or whose recording fails (an op that
// synchronizes with the host, a driver without CUDA graphs), runs as before without a CUDA graph,
// and `status()` says why.
#pragma once

#include "engine/runtime/cuda_graph.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::runtime::cuda {

class CudaGraphReplay {
 public:
  explicit CudaGraphReplay(std::shared_ptr<GpuGraph> graph);
  ~CudaGraphReplay();
  CudaGraphReplay(const CudaGraphReplay&) = delete;
  CudaGraphReplay& operator=(const CudaGraphReplay&) = delete;

  // As GpuGraph::run.
  std::vector<tensor::Tensor> run(const std::vector<tensor::Tensor>& inputs);

  // What happened: "warm-up", "replayed N times (K nodes; recorded R times, I inputs read in
  // place, S copied)" or "not used: <why>".
  std::string status() const;
  int records() const { return records_; }
  int replays() const { return replays_; }
  bool skipped() const { return !skipped_.empty(); }

  // Told ("record", the milliseconds recording took) after each recording, and (why, 0) when the
  // graph gives up on CUDA graphs.
  std::function<void(const std::string& what, double ms)> onEvent;

 private:
  struct Input {
    bool inPlace = true;  // read at the recorded address (else copied into `buffer`)
    unsigned long long ptr = 0;
    tensor::Shape sizes, strides;
    tensor::Tensor buffer;
  };
  enum class OutputKind { Private, InputInPlace, StaticBuffer };

  std::vector<tensor::Tensor> record(const std::vector<tensor::Tensor>& inputs);
  // Gives up on CUDA graphs for good (says why through onEvent) and runs the graph's kernels.
  std::vector<tensor::Tensor> runWithoutGraph(const std::string& why, const std::vector<tensor::Tensor>& inputs);
  std::vector<tensor::Tensor> replay(const std::vector<tensor::Tensor>& inputs);
  void handOverHeldOutputs();
  std::vector<tensor::Tensor> outputs() const;  // what a call returns
  void release();
  bool stillInPlace(size_t i, const tensor::Tensor& t) const;

  std::shared_ptr<GpuGraph> g_;
  int calls_ = 0, records_ = 0, replays_ = 0;
  std::string skipped_;  // set: runs without a CUDA graph from now on, and why
  std::vector<Input> in_;
  std::vector<tensor::Tensor> out_;
  std::vector<OutputKind> outKind_;
  void* graph_ = nullptr;
  void* exec_ = nullptr;
  int pool_ = 0;
  size_t nodes_ = 0;
};

}  // namespace kiln::runtime::cuda
