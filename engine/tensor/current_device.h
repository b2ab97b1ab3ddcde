// The CUDA device index a bare "cuda" means in this process (torch.cuda.current_device()): 0 until
// the GPU runtime binds its device (engine/runtime/cuda_runtime.h), which Kiln does once per
// process (one GPU per process, as torchrun's DDP runs).
#pragma once

namespace kiln::tensor {

int currentCudaIndex();
void setCurrentCudaIndex(int index);

}  // namespace kiln::tensor
