#include "engine/tensor/device.h"

#include <atomic>

namespace kiln::tensor {

namespace {
std::atomic<DeviceBackend*> gCuda{nullptr};
}  // namespace

DeviceBackend* deviceBackend(const Device& d) { return d.isCuda() ? gCuda.load() : nullptr; }

void setDeviceBackend(DeviceType type, DeviceBackend* backend) {
  if (type == DeviceType::CUDA) gCuda.store(backend);
}

}  // namespace kiln::tensor
