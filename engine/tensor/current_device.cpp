#include "engine/tensor/current_device.h"

#include <atomic>

namespace kiln::tensor {

namespace {
std::atomic<int> gCudaIndex{0};
}  // namespace

int currentCudaIndex() { return gCudaIndex.load(); }
void setCurrentCudaIndex(int index) { gCudaIndex.store(index); }

}  // namespace kiln::tensor
