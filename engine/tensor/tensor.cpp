#include "engine/tensor/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <malloc.h>

namespace kiln::tensor {

namespace {
// Guard against scripts that ask for absurd amounts of memory: a clear error beats an OOM kill.
constexpr size_t kMaxTensorBytes = size_t(8) << 30;
thread_local bool inferenceMode = false;
}

bool inferenceModeEnabled() { return inferenceMode; }
void setInferenceModeEnabled(bool enabled) { inferenceMode = enabled; }

void keepLargeAllocations() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // blocks up to 1 GiB come from the heap and are reused
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // freed heap tops are kept up to 1 GiB
}

Storage::Storage(size_t bytes) : bytes_(bytes) {
  if (bytes > kMaxTensorBytes)
    throw TorchError("RuntimeError", "[enforce fail] tensor of " + std::to_string(bytes) +
                                         " bytes exceeds Kiln's allocation limit of 8 GiB");
  size_t rounded = (bytes + 63) / 64 * 64;
  data_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (!data_) throw TorchError("RuntimeError", "out of memory allocating " + std::to_string(bytes) + " bytes");
}

Storage::~Storage() { std::free(data_); }

Shape Tensor::contiguousStrides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    st[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return st;
}

Tensor Tensor::empty(const Shape& sizes, DType dtype) {
  int64_t n = 1;
  for (auto s : sizes) {
    if (s < 0) throw TorchError("RuntimeError", "Trying to create tensor with negative dimension " + std::to_string(s) + ": " + shapeStr(sizes));
    n *= s;
  }
  Tensor t;
  t.storage_ = std::make_shared<Storage>(static_cast<size_t>(n) * ir::itemSize(dtype));
  t.dtype_ = dtype;
  t.sizes_ = sizes;
  t.strides_ = contiguousStrides(sizes);
  t.inference_ = inferenceMode;
  return t;
}

Tensor Tensor::zeros(const Shape& sizes, DType dtype) {
  Tensor t = empty(sizes, dtype);
  std::memset(t.storage_->data(), 0, t.storage_->bytes());
  return t;
}

Tensor Tensor::full(const Shape& sizes, double value, DType dtype) {
  Tensor t = empty(sizes, dtype);
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) t.storeAt(i, value);
  return t;
}

Tensor Tensor::scalar(double value, DType dtype) { return full({}, value, dtype); }

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (auto s : sizes_) n *= s;
  return n;
}

int64_t Tensor::size(int64_t d) const {
  int64_t nd = dim();
  if (d < -nd || d >= std::max<int64_t>(nd, 1))
    throw TorchError("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-std::max<int64_t>(nd, 1)) +
                                       ", " + std::to_string(std::max<int64_t>(nd, 1) - 1) + "], but got " + std::to_string(d) + ")");
  if (nd == 0) return 1;
  return sizes_[d < 0 ? d + nd : d];
}

bool Tensor::isContiguous() const {
  int64_t expect = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] != 1 && strides_[i] != expect) return false;
    expect *= sizes_[i];
  }
  return true;
}

double Tensor::loadAt(int64_t o) const {
  const void* p = data();
  switch (dtype_) {
    case DType::Float32: return static_cast<const float*>(p)[o];
    case DType::Float64: return static_cast<const double*>(p)[o];
    case DType::Int64: return static_cast<double>(static_cast<const int64_t*>(p)[o]);
    case DType::Int32: return static_cast<const int32_t*>(p)[o];
    case DType::Bool: return static_cast<const uint8_t*>(p)[o] ? 1.0 : 0.0;
    case DType::Float16:
    case DType::BFloat16: break;
  }
  throw TorchError("RuntimeError", "dtype " + std::string(ir::torchName(dtype_)) + " is not supported by Kiln's eager kernels yet");
}

void Tensor::storeAt(int64_t o, double v) {
  void* p = data();
  switch (dtype_) {
    case DType::Float32: static_cast<float*>(p)[o] = static_cast<float>(v); return;
    case DType::Float64: static_cast<double*>(p)[o] = v; return;
    case DType::Int64: static_cast<int64_t*>(p)[o] = static_cast<int64_t>(v); return;
    case DType::Int32: static_cast<int32_t*>(p)[o] = static_cast<int32_t>(v); return;
    case DType::Bool: static_cast<uint8_t*>(p)[o] = v != 0.0; return;
    case DType::Float16:
    case DType::BFloat16: break;
  }
  throw TorchError("RuntimeError", "dtype " + std::string(ir::torchName(dtype_)) + " is not supported by Kiln's eager kernels yet");
}

int64_t Tensor::loadIntAt(int64_t o) const {
  switch (dtype_) {
    case DType::Int64: return static_cast<const int64_t*>(data())[o];
    case DType::Int32: return static_cast<const int32_t*>(data())[o];
    case DType::Bool: return static_cast<const uint8_t*>(data())[o] ? 1 : 0;
    default: return static_cast<int64_t>(loadAt(o));
  }
}

void Tensor::storeIntAt(int64_t o, int64_t v) {
  switch (dtype_) {
    case DType::Int64: static_cast<int64_t*>(data())[o] = v; return;
    case DType::Int32: static_cast<int32_t*>(data())[o] = static_cast<int32_t>(v); return;
    case DType::Bool: static_cast<uint8_t*>(data())[o] = v != 0; return;
    default: storeAt(o, static_cast<double>(v));
  }
}

Tensor Tensor::view(const Shape& sizes, const Shape& strides, int64_t offset) const {
  Tensor t = *this;
  t.sizes_ = sizes;
  t.strides_ = strides;
  t.offset_ = offset;
  t.autograd_.reset();  // a view is a new tensor (its own autograd identity)
  return t;
}

Tensor Tensor::contiguous() const { return isContiguous() ? *this : clone(); }

Tensor Tensor::clone() const { return to(dtype_); }

Tensor Tensor::to(DType d) const {
  Tensor out = empty(sizes_, d);
  Shape os = out.strides_;
  const bool ints = !ir::isFloating(d) && !ir::isFloating(dtype_);
  forEachIndex<2>(sizes_, {&os, &strides_}, [&](const std::array<int64_t, 2>& o) {
    if (ints)
      out.storeIntAt(o[0], loadIntAt(o[1]));
    else
      out.storeAt(o[0], loadAt(o[1]));
  });
  return out;
}

ir::TensorType Tensor::type() const {
  ir::TensorType t;
  t.dtype = dtype_;
  for (auto s : sizes_) t.sizes.emplace_back(s);
  for (auto s : strides_) t.strides.emplace_back(s);
  t.requiresGrad = requiresGrad();
  return t;
}

std::vector<double> Tensor::toDoubles() const {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(numel()));
  forEachIndex<1>(sizes_, {&strides_}, [&](const std::array<int64_t, 1>& o) { out.push_back(loadAt(o[0])); });
  return out;
}

std::string shapeStr(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

Shape broadcastShapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw TorchError("RuntimeError", "The size of tensor a (" + std::to_string(da) + ") must match the size of tensor b (" +
                                           std::to_string(db) + ") at non-singleton dimension " + std::to_string(i));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcastStrides(const Tensor& t, const Shape& to) {
  Shape st(to.size(), 0);
  size_t lead = to.size() - t.sizes().size();
  for (size_t i = 0; i < t.sizes().size(); ++i)
    st[lead + i] = t.sizes()[i] == 1 ? 0 : t.strides()[i];
  return st;
}

}  // namespace kiln::tensor
