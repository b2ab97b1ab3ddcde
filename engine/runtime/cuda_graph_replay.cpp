#include "engine/runtime/cuda_graph_replay.h"

#include "engine/runtime/cuda_runtime.h"
#include "engine/tensor/current_device.h"

#include <chrono>
#include <map>
#include <stdexcept>

namespace kiln::runtime::cuda {

namespace {

tensor::Device device() { return tensor::Device::cuda(tensor::currentCudaIndex()); }

}  // namespace

CudaGraphReplay::CudaGraphReplay(std::shared_ptr<GpuGraph> graph) : g_(std::move(graph)) {}

CudaGraphReplay::~CudaGraphReplay() { release(); }

void CudaGraphReplay::release() {
  if (graph_ || exec_) driver().destroyGraph(graph_, exec_);
  graph_ = exec_ = nullptr;
  // The pool's blocks return to the shared cache (those still held, when they are released).
  // Queued replays finish first: everything is on the one stream.
  if (pool_) allocator().retirePool(pool_);
  pool_ = 0;
}

bool CudaGraphReplay::stillInPlace(size_t i, const tensor::Tensor& t) const {
  const Input& in = in_[i];
  return t.defined() && !t.isCpu() && devicePtr(t) == in.ptr && t.sizes() == in.sizes && t.strides() == in.strides;
}

std::vector<tensor::Tensor> CudaGraphReplay::run(const std::vector<tensor::Tensor>& inputs) {
  ++calls_;
  if (!skipped_.empty()) return g_->run(inputs);
  if (calls_ == 1) {
    // The warm-up call: modules load, cuBLAS makes its handle, and the inputs' addresses are
    // noted (those the next call passes again are read in place).
    in_.assign(inputs.size(), Input{});
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined() || inputs[i].isCpu()) continue;
      in_[i].ptr = devicePtr(inputs[i]);
      in_[i].sizes = inputs[i].sizes(), in_[i].strides = inputs[i].strides();
    }
    return g_->run(inputs);
  }
  if (!exec_) {
    for (size_t i = 0; i < inputs.size(); ++i) in_[i].inPlace = stillInPlace(i, inputs[i]);
    return record(inputs);
  }
  return replay(inputs);
}

std::vector<tensor::Tensor> CudaGraphReplay::runWithoutGraph(const std::string& why, const std::vector<tensor::Tensor>& inputs) {
  skipped_ = why;
  release();
  if (onEvent) onEvent(why, 0);
  return g_->run(inputs);
}

std::vector<tensor::Tensor> CudaGraphReplay::record(const std::vector<tensor::Tensor>& inputs) {
  auto skip = [&](const std::string& why) { return runWithoutGraph(why, inputs); };
  if (!driver().canCapture()) return skip("the CUDA driver has no stream capture (cuStreamBeginCapture)");
  const auto ph = g_->graph().placeholders();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].defined() || inputs[i].isCpu())
      return skip("skipping cudagraphs due to cpu device (" + (i < ph.size() ? ph[i]->name : "input " + std::to_string(i)) + ")");
  release();
  std::vector<tensor::Tensor> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input& in = in_[i];
    in.ptr = devicePtr(inputs[i]);
    in.sizes = inputs[i].sizes(), in.strides = inputs[i].strides();
    if (in.inPlace) {
      args.push_back(inputs[i]);
      continue;
    }
    // A static buffer of the graph's, contiguous (a kernel that reads other strides gets a
    // re-layout recorded in the graph, as a call without one would).
    in.buffer = tensor::Tensor::empty(inputs[i].sizes(), inputs[i].dtype(), device());
    copyOnDevice(in.buffer, inputs[i]);
    args.push_back(in.buffer);
  }
  const auto t0 = std::chrono::steady_clock::now();
  pool_ = allocator().beginPool();
  std::vector<tensor::Tensor> outs;
  try {
    driver().beginCapture();
    try {
      outs = g_->run(args);
    } catch (...) {
      driver().abandonCapture();
      throw;
    }
    graph_ = driver().endCapture();
    exec_ = driver().instantiate(graph_);
    nodes_ = driver().graphNodes(graph_);
  } catch (const std::exception& e) {
    allocator().endPool();
    return skip(std::string("recording the CUDA graph failed: ") + e.what());
  }
  allocator().endPool();
  out_ = std::move(outs);
  outKind_.assign(out_.size(), OutputKind::Private);
  for (size_t k = 0; k < out_.size(); ++k)
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!out_[k].storage()) break;
      if (out_[k].storage() == args[i].storage()) outKind_[k] = in_[i].inPlace ? OutputKind::InputInPlace : OutputKind::StaticBuffer;
    }
  ++records_;
  if (onEvent) onEvent("record", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  driver().launchGraph(exec_);  // capturing ran nothing: this call's results
  return outputs();
}

std::vector<tensor::Tensor> CudaGraphReplay::replay(const std::vector<tensor::Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || inputs[i].isCpu()) return record(inputs);  // says why it cannot
    if (in_[i].inPlace && !stillInPlace(i, inputs[i])) {
      in_[i].inPlace = false;  // moved: copied into a static buffer from now on
      return record(inputs);
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (in_[i].inPlace) continue;
    if (inputs[i].sizes() != in_[i].buffer.sizes() || inputs[i].dtype() != in_[i].buffer.dtype()) {
      // Another shape or dtype is another graph: guards make that a recompile, so this is a
      // caller running the graph outside its guards. Run it without the CUDA graph.
      return runWithoutGraph("an input's shape or dtype changed after recording", inputs);
    }
    copyOnDevice(in_[i].buffer, inputs[i]);
  }
  handOverHeldOutputs();
  driver().launchGraph(exec_);
  ++replays_;
  return outputs();
}

void CudaGraphReplay::handOverHeldOutputs() {
  // Our own references to each output block; any beyond them are a caller's.
  std::map<const tensor::Storage*, long> ours;
  for (size_t k = 0; k < out_.size(); ++k)
    if (outKind_[k] == OutputKind::Private && out_[k].storage()) ++ours[out_[k].storage().get()];
  std::map<const tensor::Storage*, tensor::Tensor> moved;  // held block -> our new storage of it
  for (size_t k = 0; k < out_.size(); ++k) {
    if (outKind_[k] != OutputKind::Private || !out_[k].storage()) continue;
    const std::shared_ptr<tensor::Storage> held = out_[k].storage();
    auto m = moved.find(held.get());
    if (m == moved.end()) {
      if (held.use_count() - 1 <= ours[held.get()]) continue;  // -1: `held` itself
      // The caller keeps a tensor over this block: it gets a copy of the block (its storage now
      // holds the copy), and the graph keeps writing its own block, now under a new storage.
      const size_t item = ir::itemSize(out_[k].dtype());
      tensor::Tensor fresh = tensor::Tensor::empty({static_cast<int64_t>(held->bytes() / item)}, out_[k].dtype(), device());
      if (fresh.storage()->bytes() != held->bytes()) continue;  // cannot happen: blocks hold whole elements
      driver().copyOnDevice(reinterpret_cast<uint64_t>(fresh.storage()->devicePtr()), reinterpret_cast<uint64_t>(held->devicePtr()),
                            held->bytes());
      held->exchange(*fresh.storage());
      m = moved.emplace(held.get(), fresh).first;
    }
    out_[k] = m->second.view(out_[k].sizes(), out_[k].strides(), out_[k].offset());
  }
}

std::vector<tensor::Tensor> CudaGraphReplay::outputs() const {
  std::vector<tensor::Tensor> r;
  for (size_t k = 0; k < out_.size(); ++k) {
    if (outKind_[k] != OutputKind::StaticBuffer) {
      r.push_back(out_[k]);
      continue;
    }
    // A static input buffer (an input returned, or a mutated input's new value): the next call
    // copies its input over it, so the caller gets its own copy.
    tensor::Tensor c = tensor::Tensor::empty(out_[k].sizes(), out_[k].dtype(), device());
    copyOnDevice(c, out_[k]);
    r.push_back(std::move(c));
  }
  return r;
}

std::string CudaGraphReplay::status() const {
  if (!skipped_.empty()) return "not used: " + skipped_;
  if (!exec_) return calls_ == 0 ? "not called yet" : "warm-up";
  size_t inPlace = 0;
  for (const auto& in : in_) inPlace += in.inPlace;
  return "replayed " + std::to_string(replays_) + " times (" + std::to_string(nodes_) + " nodes; recorded " + std::to_string(records_) +
         " times, " + std::to_string(inPlace) + " inputs read in place, " + std::to_string(in_.size() - inPlace) + " copied)";
}

}  // namespace kiln::runtime::cuda
