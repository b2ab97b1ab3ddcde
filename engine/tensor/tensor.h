// The eager runtime's tensor: a strided view over shared storage. This is the reference
// implementation every compiled result is checked against, so it favours clarity.
#pragma once

#include "engine/ir/types.h"
#include "engine/tensor/device.h"
#include "engine/tensor/tensor_iter.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::autograd {
class Node;
}

namespace kiln::tensor {

using ir::DType;
struct AutogradMeta;
using Shape = std::vector<int64_t>;

// A user-visible runtime error, worded like PyTorch's (RuntimeError, IndexError ...).
class TorchError : public std::runtime_error {
 public:
  TorchError(std::string type, const std::string& msg) : std::runtime_error(msg), type_(std::move(type)) {}
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

// A native op stopped at a stop request (engine/tensor/stop.h). The Python bindings raise the
// pending request instead (KeyboardInterrupt, or TimeoutError for a time limit); elsewhere it
// reads as a KeyboardInterrupt.
class Interrupted : public TorchError {
 public:
  Interrupted() : TorchError("KeyboardInterrupt", "the operation was stopped (Ctrl-C, a time limit or a stop request)") {}
};

// Makes the C allocator keep large blocks instead of returning each to the kernel (glibc maps
// every block over 32 MiB afresh, so each 64 MiB result page-faults on its first write and a
// fused elementwise kernel over 2^24 floats ran at a third of its speed: docs/perf.md). Called
// once by `kiln` (process policy belongs to the executable; the studio runs scripts through it).
void keepLargeAllocations();

// torch.inference_mode: tensors allocated while it is on (this thread) are inference tensors
// (Tensor.is_inference()); views share their base's flag, as PyTorch's do.
bool inferenceModeEnabled();
void setInferenceModeEnabled(bool enabled);

// A tensor allocation over the memory limit (RuntimeError in Python, as PyTorch's allocator
// raises); the driver marks a run that ends on one "out of memory".
class OutOfMemory : public TorchError {
 public:
  explicit OutOfMemory(const std::string& msg) : TorchError("RuntimeError", msg) {}
};

// The memory a script may hold in tensors (and, checked by the interpreter, in any one Python
// object): 80% of physical memory unless set (kiln run --memory-limit).
uint64_t defaultMemoryLimit();
void setMemoryLimit(uint64_t bytes);
uint64_t memoryLimit();
uint64_t memoryInUse();  // live tensor bytes
// Whether `bytes` more would fit the memory limit beside the tensors alive.
bool fitsMemoryLimit(uint64_t bytes);
// Bytes malloc holds for live allocations in the whole process, tensors included (glibc's
// mallinfo2: the arenas' used chunks and the mmapped ones). 0 where the allocator does not say
// (under AddressSanitizer). Walks malloc's free lists: for a timer, not for every allocation.
uint64_t heapInUse();
// PyTorch's allocator message for a request of `bytes`, with Kiln's limit.
std::string notEnoughMemory(uint64_t bytes);

// Raw bytes, 64-byte aligned so generated kernels can use aligned vector loads. On a CUDA
// device the bytes come from the device's backend (the caching allocator) and the host may not
// read them: data() throws, so no CPU kernel can ever compute on device memory by mistake;
// GPU code takes devicePtr().
//
// The eager op running on this thread (set by the ops layer's dispatcher for the op's extent),
// so that an error raised this deep, such as a host read of device memory, can name the op.
class RunningOp {
 public:
  explicit RunningOp(const char* name) : saved_(current()) { current() = name; }
  ~RunningOp() { current() = saved_; }
  RunningOp(const RunningOp&) = delete;
  RunningOp& operator=(const RunningOp&) = delete;
  static const char*& current() {
    static thread_local const char* name = nullptr;
    return name;
  }

 private:
  const char* saved_;
};

class Storage {
 public:
  explicit Storage(size_t bytes, Device device = Device::cpu());
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data() {
    if (!device_.isCpu()) throwHostAccess();
    return data_;
  }
  const void* data() const {
    if (!device_.isCpu()) throwHostAccess();
    return data_;
  }
  void* devicePtr() const { return data_; }
  size_t bytes() const { return bytes_; }
  const Device& device() const { return device_; }
  [[noreturn]] void throwHostAccess() const;
  // Swaps the memory behind two storages of one size on one device: every tensor of each now
  // reads the other's block. A replayed CUDA graph writes the block it was recorded with; before
  // it does, a user's tensor over that block is handed a copy this way (cuda_graph_replay.h).
  void exchange(Storage& other);

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  Device device_;
};

class Tensor {
 public:
  Tensor() = default;
  static Tensor empty(const Shape& sizes, DType dtype);
  static Tensor empty(const Shape& sizes, DType dtype, const Device& device);  // contiguous, on `device`
  static Tensor zeros(const Shape& sizes, DType dtype);
  static Tensor full(const Shape& sizes, double value, DType dtype);
  static Tensor scalar(double value, DType dtype);
  static Shape contiguousStrides(const Shape& sizes);

  bool defined() const { return storage_ != nullptr; }
  // Where the storage lives (the CPU for a tensor without storage).
  Device device() const { return storage_ ? storage_->device() : Device::cpu(); }
  bool isCpu() const { return device().isCpu(); }
  // The same elements, contiguous, on `d` (a copy unless already there; the tensor itself then).
  Tensor toDevice(const Device& d) const;
  DType dtype() const { return dtype_; }
  const Shape& sizes() const { return sizes_; }
  const Shape& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const;
  int64_t size(int64_t d) const;
  bool isContiguous() const;
  // Autograd state lives in an AutogradMeta shared by every copy of this handle (like
  // PyTorch's TensorImpl); views, clones and conversions are new tensors without it.
  bool requiresGrad() const;
  void setRequiresGrad(bool v);
  const std::shared_ptr<AutogradMeta>& autograd() const { return autograd_; }
  void setAutograd(std::shared_ptr<AutogradMeta> m) { autograd_ = std::move(m); }
  // The same data as a new tensor outside the autograd graph (Tensor.detach()).
  Tensor detach() const {
    Tensor t = *this;
    t.autograd_.reset();
    return t;
  }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  Storage& checkedStorage() const {
    if (!storage_) throwNoStorage();
    return *storage_;
  }
  [[noreturn]] static void throwNoStorage();
  bool isInference() const { return inference_; }

  // A Tensor made by default has no storage: reading it is a bug in Kiln (a number passed where an
  // op wants a tensor, found by tests/fuzz), reported as an internal error instead of a crash.
  void* data() { return static_cast<char*>(checkedStorage().data()) + offset_ * ir::itemSize(dtype_); }
  const void* data() const { return static_cast<const char*>(checkedStorage().data()) + offset_ * ir::itemSize(dtype_); }
  template <typename T>
  T* ptr() {
    return static_cast<T*>(data());
  }
  template <typename T>
  const T* ptr() const {
    return static_cast<const T*>(data());
  }

  // Element access by storage offset (relative to data()), converting to/from double.
  double loadAt(int64_t elemOffset) const;
  void storeAt(int64_t elemOffset, double v);
  int64_t loadIntAt(int64_t elemOffset) const;
  void storeIntAt(int64_t elemOffset, int64_t v);

  // Views share storage.
  Tensor view(const Shape& sizes, const Shape& strides, int64_t offset) const;
  // The same elements' bytes read as another dtype of the same item size (Tensor.view(dtype)).
  Tensor reinterpret(DType d) const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(DType d) const;
  ir::TensorType type() const;

  // Every element in row-major order as double (for printing, comparison, JSON).
  std::vector<double> toDoubles() const;

 private:
  std::shared_ptr<Storage> storage_;
  DType dtype_ = DType::Float32;
  Shape sizes_;
  Shape strides_;
  int64_t offset_ = 0;
  bool inference_ = false;
  std::shared_ptr<AutogradMeta> autograd_;
};

// Per-tensor autograd state (engine/autograd records the graph; the tensor only carries it).
struct AutogradMeta {
  bool requiresGrad = false;
  std::shared_ptr<autograd::Node> gradFn;         // null for leaves
  int outputNr = 0;                               // which output of gradFn this tensor is
  std::weak_ptr<autograd::Node> gradAccumulator;  // leaves: where backward accumulates .grad
  Tensor grad;                                    // .grad (undefined = None)
  bool retainsGrad = false;                       // non-leaf with retain_grad()
  // Leaves: run by backward right after .grad was accumulated
  // (Tensor.register_post_accumulate_grad_hook; DDP launches its bucket all-reduces from them).
  std::vector<std::function<void()>> postAccumulateGradHooks;
};

inline bool Tensor::requiresGrad() const { return autograd_ && autograd_->requiresGrad; }
inline void Tensor::setRequiresGrad(bool v) {
  if (!v && !autograd_) return;
  if (!autograd_) autograd_ = std::make_shared<AutogradMeta>();
  autograd_->requiresGrad = v;
}

// A double converted to an integer type the way the x86 instruction PyTorch's CPU kernels
// compile to (cvttsd2si) converts it: truncated toward zero, and NaN or a value out of the type's
// range gives its minimum. A plain static_cast of those is undefined behaviour.
template <typename I>
I truncToInt(double v) {
  constexpr double lo = -static_cast<double>(uint64_t{1} << (sizeof(I) * 8 - 1));
  if (v >= lo && v < -lo) return static_cast<I>(v);
  return std::numeric_limits<I>::min();
}

std::string shapeStr(const Shape& s);  // [2, 3]
// The product of `sizes`; throws TorchError where it does not fit int64 (PyTorch's message).
int64_t checkedNumel(const Shape& sizes);
// a * b wrapping past int64 (computed unsigned: defined behaviour), for products of some of a
// tensor's sizes (a count of reduced elements, planes, an outer extent). They fit for every
// non-empty tensor (its numel was checked when it was made); only an empty tensor's other dims
// may multiply past int64 ([2^62, 5, 0]), and then the product is never used for an element or
// is itself multiplied by the 0.
inline int64_t sizeMul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
// base + index * stride, a view's storage offset. It fits for a non-empty view (its elements lie
// in its storage); an empty view's strides are not bounded by its storage and may overflow it:
// refused as an invalid storage offset (TorchError), as a view's offset past int64 cannot exist.
int64_t viewOffset(int64_t base, int64_t index, int64_t stride);
// Throws TorchError (PyTorch's setStorage message) unless every element of the view lies inside
// a storage of `storageBytes` bytes. Arithmetic is checked: overflowed sizes are refused.
void checkInBounds(const Shape& sizes, const Shape& strides, int64_t offset, DType dtype, size_t storageBytes);
// Broadcasts two shapes the way PyTorch does; throws TorchError on mismatch.
Shape broadcastShapes(const Shape& a, const Shape& b);
// Strides of `t` expanded to `to` (0 for broadcast dims).
Shape broadcastStrides(const Tensor& t, const Shape& to);

}  // namespace kiln::tensor
