// Where the NVIDIA libraries Kiln loads with dlopen (cuBLAS, cuDNN, NCCL) are looked for, in order: the
// soname alone (LD_LIBRARY_PATH, the loader's cache), $CUDA_HOME/lib64, /usr/local/cuda/lib64,
// then the NVIDIA wheels of Python installs (site-packages/nvidia/<wheel>/lib, and
// nvidia/cu13/lib where the CUDA 13 wheels put everything), which is where a PyTorch CUDA
// install brings them.
#pragma once

#include <string>
#include <vector>

namespace kiln::runtime {

// Paths to try with dlopen, first to last, for a library with the given sonames (most wanted
// first) that a Python wheel puts under nvidia/<wheel>/lib.
std::vector<std::string> nvidiaLibraryCandidates(const std::vector<std::string>& sonames, const std::string& wheel);

// The first candidate that dlopen loads (RTLD_NOW | RTLD_LOCAL), or nullptr.
void* openNvidiaLibrary(const std::vector<std::string>& sonames, const std::string& wheel);

}  // namespace kiln::runtime
