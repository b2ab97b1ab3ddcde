// Where a tensor's bytes live: the CPU or a CUDA device (c10::Device's two kinds Kiln knows).
// engine/tensor cannot reach the CUDA driver (it uses only engine/ir), so device memory comes
// from a `DeviceBackend` that the GPU runtime (engine/runtime/cuda_runtime.cpp) installs when a
// script first asks for a CUDA tensor; without one, no CUDA storage can exist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::tensor {

enum class DeviceType : uint8_t { CPU, CUDA };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;  // -1: none given (torch.device('cuda')); tensors always carry an index on CUDA
  bool isCpu() const { return type == DeviceType::CPU; }
  bool isCuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  // "cpu", "cuda", "cuda:0": str(torch.device).
  std::string str() const {
    std::string s = type == DeviceType::CPU ? "cpu" : "cuda";
    return index >= 0 ? s + ":" + std::to_string(index) : s;
  }
  static Device cpu() { return {}; }
  static Device cuda(int index) { return {DeviceType::CUDA, index}; }
};

// Device memory and copies, one stream. Every call is synchronous for the host unless it says
// otherwise; copies are ordered on the stream, so a copy to the host waits for earlier kernels.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual void* allocate(size_t bytes) = 0;  // throws OutOfMemory (PyTorch's CUDA message)
  virtual void release(void* ptr, size_t bytes) = 0;
  virtual void copyToDevice(void* dst, const void* src, size_t bytes) = 0;
  virtual void copyToHost(void* dst, const void* src, size_t bytes) = 0;
  virtual void copyOnDevice(void* dst, const void* src, size_t bytes) = 0;
};

// The backend of CUDA device `index`, or nullptr when none is installed.
DeviceBackend* deviceBackend(const Device& d);
void setDeviceBackend(DeviceType type, DeviceBackend* backend);

}  // namespace kiln::tensor
