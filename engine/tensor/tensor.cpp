#include "engine/tensor/tensor.h"

#include "engine/tensor/device_convert.h"
#include "engine/tensor/half.h"

#include <malloc.h>
#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <utility>

namespace kiln::tensor {

namespace {
// Guard against scripts that ask for absurd amounts of memory: a clear error beats an OOM kill.
thread_local bool inferenceMode = false;
}  // namespace

bool inferenceModeEnabled() { return inferenceMode; }
void setInferenceModeEnabled(bool enabled) { inferenceMode = enabled; }

void keepLargeAllocations() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // blocks up to 1 GiB come from the heap and are reused
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // freed heap tops are kept up to 1 GiB
}

namespace {
// Live tensor bytes of this process, and the limit (kiln run --memory-limit). A script that asks
// for more gets PyTorch's allocator error, which it can catch, instead of the OOM killer.
std::atomic<uint64_t> liveBytes{0};
std::atomic<uint64_t> limitBytes{0};  // 0: not set yet, defaultMemoryLimit()

uint64_t physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : uint64_t(8) << 30;
}
}  // namespace

// Read once: sysconf(_SC_PHYS_PAGES) is a sysinfo() system call, and memoryLimit() is asked on
// every CPU allocation of a run that set no limit.
uint64_t defaultMemoryLimit() {
  static const uint64_t limit = physicalMemory() / 10 * 8;
  return limit;
}
void setMemoryLimit(uint64_t bytes) { limitBytes = bytes; }
uint64_t memoryLimit() {
  uint64_t l = limitBytes.load();
  return l ? l : defaultMemoryLimit();
}
uint64_t memoryInUse() { return liveBytes.load(); }
bool fitsMemoryLimit(uint64_t bytes) {
  const uint64_t limit = memoryLimit();
  return bytes <= limit - std::min(limit, memoryInUse());
}

void Tensor::throwNoStorage() {
  throw std::logic_error("a tensor without storage was read (an op was given a number where it takes a tensor)");
}

uint64_t heapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return static_cast<uint64_t>(mi.uordblks) + static_cast<uint64_t>(mi.hblkhd);
}

std::string notEnoughMemory(uint64_t bytes) {
  return "[enforce fail at alloc_cpu.cpp] DefaultCPUAllocator: not enough memory: you tried to allocate " +
         (bytes == UINT64_MAX ? std::string("more than 2^64") : std::to_string(bytes)) + " bytes. (Kiln's memory limit is " +
         std::to_string(memoryLimit()) + " bytes, " + std::to_string(memoryInUse()) + " in use; kiln run --memory-limit)";
}

Storage::Storage(size_t bytes, Device device) : bytes_(bytes), device_(device) {
  if (!device_.isCpu()) {
    // Device memory is the device's allocator's to count and limit (torch.cuda.memory_*).
    DeviceBackend* b = deviceBackend(device_);
    if (!b) throw TorchError("RuntimeError", "Kiln internal error: no runtime for device " + device_.str());
    data_ = b->allocate(bytes);
    return;
  }
  uint64_t before = liveBytes.fetch_add(bytes);
  if (before + bytes > memoryLimit() || before + bytes < before) {
    liveBytes.fetch_sub(bytes);
    throw OutOfMemory(notEnoughMemory(bytes));
  }
  size_t rounded = (bytes + 63) / 64 * 64;
  data_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (!data_) {
    liveBytes.fetch_sub(bytes);
    throw OutOfMemory(notEnoughMemory(bytes));
  }
}

Storage::~Storage() {
  if (!device_.isCpu()) {
    if (DeviceBackend* b = deviceBackend(device_)) b->release(data_, bytes_);
    return;
  }
  std::free(data_);
  liveBytes.fetch_sub(bytes_);
}

int64_t checkedNumel(const Shape& sizes) {
  int64_t n = 1;
  bool overflow = false;
  for (auto s : sizes) overflow |= __builtin_mul_overflow(n, s, &n);
  // An empty dimension makes the product 0 whatever overflowed before it (PyTorch agrees).
  for (auto s : sizes)
    if (s == 0) return 0;
  if (overflow) throw TorchError("RuntimeError", "numel: integer multiplication overflow");
  return n;
}

void throwStopped() { throw Interrupted(); }

int64_t viewOffset(int64_t base, int64_t index, int64_t stride) {
  int64_t step = 0, out = 0;
  if (__builtin_mul_overflow(index, stride, &step) || __builtin_add_overflow(base, step, &out))
    throw TorchError("RuntimeError", "Tensor: invalid storage offset " + std::to_string(base) + " + " + std::to_string(index) + " * " +
                                         std::to_string(stride) + " (past int64)");
  return out;
}

void checkInBounds(const Shape& sizes, const Shape& strides, int64_t offset, DType dtype, size_t storageBytes) {
  if (sizes.size() != strides.size()) throw TorchError("RuntimeError", "mismatch in length of strides and shape");
  for (auto s : sizes)
    if (s < 0)
      throw TorchError("RuntimeError", "Trying to create tensor with negative dimension " + std::to_string(s) + ": " + shapeStr(sizes));
  if (checkedNumel(sizes) == 0) {
    // An empty view reads nothing, but data() still adds its offset to the storage's address:
    // a negative offset (PyTorch refuses it with this message) or one whose byte count overflows
    // would point outside the allocation, or overflow computing where.
    int64_t offsetBytes = 0;
    if (offset < 0 || __builtin_mul_overflow(offset, static_cast<int64_t>(ir::itemSize(dtype)), &offsetBytes))
      throw TorchError("RuntimeError", "Tensor: invalid storage offset " + std::to_string(offset));
    return;
  }
  // The lowest and highest element the view can reach, relative to the storage start.
  int64_t lo = offset, hi = offset;
  bool overflow = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t reach = 0;
    overflow |= __builtin_mul_overflow(sizes[d] - 1, strides[d], &reach);
    if (reach >= 0) overflow |= __builtin_add_overflow(hi, reach, &hi);
    else overflow |= __builtin_add_overflow(lo, reach, &lo);
  }
  int64_t item = static_cast<int64_t>(ir::itemSize(dtype));
  int64_t needBytes = 0;
  overflow = overflow || __builtin_add_overflow(hi, int64_t{1}, &needBytes) || __builtin_mul_overflow(needBytes, item, &needBytes);
  if (overflow || lo < 0 || static_cast<uint64_t>(needBytes) > storageBytes)
    throw TorchError("RuntimeError", "setStorage: sizes " + shapeStr(sizes) + ", strides " + shapeStr(strides) + ", storage offset " +
                                         std::to_string(offset) + ", and itemsize " + std::to_string(item) +
                                         " requiring a storage size of " +
                                         (overflow ? std::string("more than 2^63") : std::to_string(needBytes)) +
                                         " are out of bounds for storage of size " + std::to_string(storageBytes));
}

Shape Tensor::contiguousStrides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    st[i] = s;
    // Wraps (defined) instead of overflowing: only an empty tensor's sizes can overflow (see
    // numel), and its strides never address an element.
    __builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s);
  }
  return st;
}

namespace {
// The bytes a new contiguous tensor of `sizes` needs, checked as c10's computeStorageNbytes
// and empty_tensor_restride do, on every device: a count that wrapped would allocate too little
// and let indexing read and write outside the allocation.
size_t checkedStorageBytes(const Shape& sizes, DType dtype) {
  for (auto s : sizes)
    if (s < 0)
      throw TorchError("RuntimeError", "Trying to create tensor with negative dimension " + std::to_string(s) + ": " + shapeStr(sizes));
  int64_t bytes = static_cast<int64_t>(ir::itemSize(dtype));
  bool overflow = false;
  for (auto s : sizes) overflow |= __builtin_mul_overflow(bytes, s, &bytes);
  if (overflow && std::find(sizes.begin(), sizes.end(), 0) == sizes.end())
    throw TorchError("RuntimeError", "Storage size calculation overflowed with sizes=" + shapeStr(sizes));
  // An empty tensor's contiguous strides must fit too ([2, 0, 2^63-1] is fine, its transpose
  // [0, 2, 2^63-1] made contiguous is not).
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2, st = 1; i >= 0; --i)
    if (__builtin_mul_overflow(st, std::max<int64_t>(sizes[i + 1], 1), &st))
      throw TorchError("RuntimeError", "Stride calculation overflowed");
  return static_cast<size_t>(bytes);
}
}  // namespace

Tensor Tensor::empty(const Shape& sizes, DType dtype) {
  Tensor t;
  t.storage_ = std::make_shared<Storage>(checkedStorageBytes(sizes, dtype));
  t.dtype_ = dtype;
  t.sizes_ = sizes;
  t.strides_ = contiguousStrides(sizes);
  t.inference_ = inferenceMode;
  return t;
}

void Storage::exchange(Storage& other) {
  if (other.bytes_ != bytes_ || !(other.device_ == device_))
    throw std::logic_error("Storage::exchange needs two storages of one size on one device");
  std::swap(data_, other.data_);
}

void Storage::throwHostAccess() const {
  const char* op = RunningOp::current();
  throw TorchError("NotImplementedError", "Kiln has no " + std::string(device_.isCuda() ? "CUDA" : "device") + " kernel for " +
                                              (op ? std::string(op) : std::string("this operation")) + ": it would read the memory of a " +
                                              device_.str() + " tensor on the host");
}

Tensor Tensor::empty(const Shape& sizes, DType dtype, const Device& device) {
  if (device.isCpu()) return empty(sizes, dtype);
  Tensor t;
  t.storage_ = std::make_shared<Storage>(checkedStorageBytes(sizes, dtype), device);
  t.dtype_ = dtype;
  t.sizes_ = sizes;
  t.strides_ = contiguousStrides(sizes);
  t.inference_ = inferenceMode;
  return t;
}

Tensor Tensor::toDevice(const Device& d) const {
  const Device from = device();
  if (from == d) return *this;
  const size_t item = ir::itemSize(dtype_);
  if (from.isCpu()) {  // host -> device: the elements contiguous, then one copy
    Tensor c = contiguous();
    Tensor out = empty(sizes_, dtype_, d);
    const size_t bytes = static_cast<size_t>(numel()) * item;
    if (bytes) deviceBackend(d)->copyToDevice(out.storage_->devicePtr(), c.data(), bytes);
    return out;
  }
  DeviceBackend* b = deviceBackend(from);
  if (d.isCpu()) {
    // device -> host: the whole storage comes back and the view is made contiguous here (a
    // strided copy on the host needs no device kernel).
    auto host = std::make_shared<Storage>(storage_->bytes());
    if (storage_->bytes()) b->copyToHost(host->data(), storage_->devicePtr(), storage_->bytes());
    Tensor h = *this;
    h.storage_ = std::move(host);
    h.autograd_.reset();
    return h.contiguous();
  }
  // Between two devices: through the host (one GPU is all Kiln drives today).
  return toDevice(Device::cpu()).toDevice(d);
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
  // The sizes were checked when the tensor was made (checkedNumel): their product fits, except
  // that an empty tensor may have other dims whose product does not ([4, 2^63-1, 0]).
  for (auto s : sizes_)
    if (s == 0) return 0;
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
  // An empty tensor is contiguous whatever its strides (PyTorch's compute_contiguous); its other
  // sizes may multiply past int64.
  for (int64_t s : sizes_)
    if (s == 0) return true;
  int64_t expect = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] != 1 && strides_[i] != expect) return false;
    if (__builtin_mul_overflow(expect, sizes_[i], &expect)) return false;
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
    case DType::Float16: return f16ToFloat(static_cast<const uint16_t*>(p)[o]);
    case DType::BFloat16: return bf16ToFloat(static_cast<const uint16_t*>(p)[o]);
    case DType::Int16: return static_cast<const int16_t*>(p)[o];
    case DType::Int8: return static_cast<const int8_t*>(p)[o];
    case DType::UInt8: return static_cast<const uint8_t*>(p)[o];
  }
  throw TorchError("RuntimeError", "dtype " + std::string(ir::torchName(dtype_)) + " is not supported by Kiln's eager kernels yet");
}

namespace {
// A double converted to a narrow integer as PyTorch's CPU cast does: through int64 (truncated
// toward zero), then wrapped to the width (float 300.0 to uint8 is 44, -1.0 is 255).
template <typename I>
I wrapToInt(double v) {
  return static_cast<I>(truncToInt<int64_t>(v));
}
}  // namespace

void Tensor::storeAt(int64_t o, double v) {
  void* p = data();
  switch (dtype_) {
    case DType::Float32: static_cast<float*>(p)[o] = static_cast<float>(v); return;
    case DType::Float64: static_cast<double*>(p)[o] = v; return;
    case DType::Int64: static_cast<int64_t*>(p)[o] = truncToInt<int64_t>(v); return;
    case DType::Int32: static_cast<int32_t*>(p)[o] = truncToInt<int32_t>(v); return;
    case DType::Bool: static_cast<uint8_t*>(p)[o] = v != 0.0; return;
    // Rounded to float32 first, as the float32 computation PyTorch does rounds, then to 16 bits.
    case DType::Float16: static_cast<uint16_t*>(p)[o] = floatToF16(static_cast<float>(v)); return;
    case DType::BFloat16: static_cast<uint16_t*>(p)[o] = floatToBf16(static_cast<float>(v)); return;
    case DType::Int16: static_cast<int16_t*>(p)[o] = wrapToInt<int16_t>(v); return;
    case DType::Int8: static_cast<int8_t*>(p)[o] = wrapToInt<int8_t>(v); return;
    case DType::UInt8: static_cast<uint8_t*>(p)[o] = wrapToInt<uint8_t>(v); return;
  }
  throw TorchError("RuntimeError", "dtype " + std::string(ir::torchName(dtype_)) + " is not supported by Kiln's eager kernels yet");
}

int64_t Tensor::loadIntAt(int64_t o) const {
  switch (dtype_) {
    case DType::Int64: return static_cast<const int64_t*>(data())[o];
    case DType::Int32: return static_cast<const int32_t*>(data())[o];
    case DType::Bool: return static_cast<const uint8_t*>(data())[o] ? 1 : 0;
    case DType::Int16: return static_cast<const int16_t*>(data())[o];
    case DType::Int8: return static_cast<const int8_t*>(data())[o];
    case DType::UInt8: return static_cast<const uint8_t*>(data())[o];
    default: return truncToInt<int64_t>(loadAt(o));
  }
}

void Tensor::storeIntAt(int64_t o, int64_t v) {
  switch (dtype_) {
    case DType::Int64: static_cast<int64_t*>(data())[o] = v; return;
    case DType::Int32: static_cast<int32_t*>(data())[o] = static_cast<int32_t>(v); return;
    case DType::Bool: static_cast<uint8_t*>(data())[o] = v != 0; return;
    case DType::Int16: static_cast<int16_t*>(data())[o] = static_cast<int16_t>(v); return;
    case DType::Int8: static_cast<int8_t*>(data())[o] = static_cast<int8_t>(v); return;
    case DType::UInt8: static_cast<uint8_t*>(data())[o] = static_cast<uint8_t>(v); return;
    default: storeAt(o, static_cast<double>(v));
  }
}

Tensor Tensor::view(const Shape& sizes, const Shape& strides, int64_t offset) const {
  // Every view is checked against its storage, so no op's index arithmetic can leave it.
  if (storage_) checkInBounds(sizes, strides, offset, dtype_, storage_->bytes());
  Tensor t = *this;
  t.sizes_ = sizes;
  t.strides_ = strides;
  t.offset_ = offset;
  t.autograd_.reset();  // a view is a new tensor (its own autograd identity)
  return t;
}

Tensor Tensor::reinterpret(DType d) const {
  if (ir::itemSize(d) != ir::itemSize(dtype_))
    throw TorchError("NotImplementedError", "Tensor.view(dtype) between dtypes of different sizes is not supported by Kiln yet");
  Tensor t = *this;
  t.dtype_ = d;
  t.autograd_.reset();
  return t;
}

Tensor Tensor::contiguous() const { return isContiguous() ? *this : clone(); }

Tensor Tensor::clone() const { return to(dtype_); }

namespace {
DeviceConvert& deviceConvertHook() {
  static DeviceConvert hook;
  return hook;
}
}  // namespace

void setDeviceConvert(DeviceConvert convert) { deviceConvertHook() = std::move(convert); }

Tensor Tensor::to(DType d) const {
  if (storage_ && !storage_->device().isCpu() && deviceConvertHook()) return deviceConvertHook()(*this, d);
  Tensor out = empty(sizes_, d);
  Shape os = out.strides_;
  if (d == dtype_) {
    // The same dtype (clone, .contiguous()): the elements' bytes, not a round trip through double
    // per element (which also kept a NaN's payload only by luck). A contiguous source is one copy.
    if (numel() == 0) return out;
    const size_t item = ir::itemSize(d);
    char* op = static_cast<char*>(out.data());
    const char* ip = static_cast<const char*>(data());
    if (isContiguous()) {
      std::memcpy(op, ip, static_cast<size_t>(numel()) * item);
      return out;
    }
    // Strided: one typed load and store per element; a matrix (a transposed weight gradient,
    // which AccumulateGrad makes contiguous) in 32x32 tiles, so that reads along the source's
    // columns stay in cache.
    auto copyAs = [&](auto word) {
      using W = decltype(word);
      W* d = reinterpret_cast<W*>(op);
      const W* src = reinterpret_cast<const W*>(ip);
      if (dim() == 2) {
        const int64_t rows = sizes_[0], cols = sizes_[1], sr = strides_[0], sc = strides_[1];
        constexpr int64_t kTile = 32;
        for (int64_t i0 = 0; i0 < rows; i0 += kTile)
          for (int64_t j0 = 0; j0 < cols; j0 += kTile)
            for (int64_t i = i0; i < std::min(rows, i0 + kTile); ++i)
              for (int64_t j = j0; j < std::min(cols, j0 + kTile); ++j) d[i * cols + j] = src[i * sr + j * sc];
        return;
      }
      forEachIndex<2>(sizes_, {&os, &strides_}, [&](const std::array<int64_t, 2>& o) { d[o[0]] = src[o[1]]; });
    };
    switch (item) {
      case 1: copyAs(uint8_t{}); break;
      case 2: copyAs(uint16_t{}); break;
      case 4: copyAs(uint32_t{}); break;
      case 8: copyAs(uint64_t{}); break;
      default:
        forEachIndex<2>(sizes_, {&os, &strides_}, [&](const std::array<int64_t, 2>& o) {
          std::memcpy(op + static_cast<size_t>(o[0]) * item, ip + o[1] * static_cast<int64_t>(item), item);
        });
    }
    return out;
  }
  const bool ints = !ir::isFloating(d) && !ir::isFloating(dtype_);
  forEachIndex<2>(sizes_, {&os, &strides_}, [&](const std::array<int64_t, 2>& o) {
    if (ints) out.storeIntAt(o[0], loadIntAt(o[1]));
    else out.storeAt(o[0], loadAt(o[1]));
  });
  return out;
}

ir::TensorType Tensor::type() const {
  ir::TensorType t;
  t.dtype = dtype_;
  for (auto s : sizes_) t.sizes.emplace_back(s);
  for (auto s : strides_) t.strides.emplace_back(s);
  t.requiresGrad = requiresGrad();
  if (storage_ && !storage_->device().isCpu()) t.device = storage_->device().str();
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
  // A tensor broadcasts only to as many dims or more (found by tests/fuzz: index_put_ with a
  // value of more dims than the indexed result read before the strides).
  if (t.sizes().size() > to.size())
    throw TorchError("RuntimeError", "expand: the number of sizes provided (" + std::to_string(to.size()) +
                                         ") must be greater or equal to the number of dimensions in the tensor (" +
                                         std::to_string(t.sizes().size()) + ")");
  Shape st(to.size(), 0);
  size_t lead = to.size() - t.sizes().size();
  for (size_t i = 0; i < t.sizes().size(); ++i) st[lead + i] = t.sizes()[i] == 1 ? 0 : t.strides()[i];
  return st;
}

}  // namespace kiln::tensor
