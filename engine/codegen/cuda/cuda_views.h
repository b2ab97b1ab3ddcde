// What the GPU runs for a batch of kernels, for reading: each kernel's CUDA C++, its PTX, its SASS
// and the figures ptxas gives it (registers, shared memory, stack, spills), with the launch
// configuration the runtime chooses. Made without a GPU: NVRTC compiles the batch's translation
// unit once with -lineinfo for a real architecture (sm_90 unless the device says otherwise), so
// the PTX carries `.loc` lines and NVRTC returns the cubin; nvdisasm (CUDA_HOME/bin,
// /usr/local/cuda/bin or PATH) disassembles the cubin with its line info when it is installed.
//
// Every PTX `.loc` and SASS `//## File` line that points into a kernel's CUDA source is annotated
// with that line's number within the kernel's source (`cuda line N`) and, when the CUDA line
// names a graph node (`// @N`, as cuda_source.cpp writes it), with ` @N` at the end, so a viewer
// maps PTX and SASS lines to CUDA lines and through the nodes to the user's Python lines.
#pragma once

#include "engine/codegen/cuda/cuda_source.h"
#include "engine/kir/kernel_ir.h"
#include "engine/session/events.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

// One entry's resource use, as ptxas reports it for the cubin (-1: not known).
struct CudaResources {
  int registers = -1;
  int64_t sharedBytes = -1;  // static shared memory
  int64_t stackBytes = -1;   // stack frame
  int64_t spillStores = -1, spillLoads = -1;
  bool known() const { return registers >= 0; }
};

struct CudaKernelView {
  std::string name, symbol;
  std::string source;  // its CUDA C++: its section of the translation unit
  int firstLine = 0;   // the translation unit's line where `source` starts (1-based)
  std::string ptx;     // its .entry, `.loc` lines annotated
  std::string sass;    // nvdisasm's text of its function, `//## File` lines annotated; "" without nvdisasm
  std::string launch;  // CudaLaunch::str() or why there is none ("grid depends on size symbols")
  CudaResources resources;
};

struct CudaViews {
  std::string arch;  // "sm_90"
  std::vector<CudaKernelView> kernels;
  std::string notes;  // what is missing and why, one line each ("SASS: nvdisasm not found in ...")
};

struct CudaViewOptions {
  std::string arch;                                   // "sm_XY"; "" for the device's, else sm_90
  int smCount = 0;                                    // sizes split grids; 0 for the device's, else 132 (H100)
  const std::vector<CudaLaunch>* launches = nullptr;  // the runtime's, one per kernel (GPU sessions)
};

// `options` with its arch and SM count filled in from device 0 where they are unset (else sm_90
// and 132 SMs): made on the thread that owns the device, so that cudaViews() on another thread
// (the views a GPU session makes after its compile) never touches the device.
CudaViewOptions resolvedViewOptions(CudaViewOptions options);

// Compiles `kernels` as one translation unit (cudaSource()). Throws std::runtime_error when NVRTC
// is missing or cannot compile them; a missing nvdisasm only leaves `sass` empty (with a note).
CudaViews cudaViews(const std::vector<kir::Kernel>& kernels, const CudaViewOptions& options = {});

// What a session records for kernel `i` of `views` (its PTX, SASS, launch and figures, the notes).
session::KernelGpuInfo gpuInfo(const CudaViews& views, size_t i);

// A CUDA tool's path (CUDA_HOME/bin, /usr/local/cuda/bin, then PATH), or "".
std::string findCudaTool(const std::string& name);

// The pieces, for tests. ptxas's `-v` report for entry `symbol` out of an NVRTC log.
CudaResources parsePtxasReport(const std::string& log, const std::string& symbol);
// `text` (PTX or nvdisasm output) with its line-info lines annotated: `unitLines` is the
// translation unit split into lines, [first, last] (1-based) the kernel's part of it; `fileIndex`
// the PTX `.file` number of the unit, `unitName` the file name nvdisasm prints for it. Lines of
// other files (CUDA's headers) and of the helpers outside the kernel are mapped through their
// `inlined at` call site when that is in the kernel.
std::string annotatePtx(const std::string& ptx, const std::vector<std::string>& unitLines, int first, int last, int fileIndex);
std::string annotateSass(const std::string& sass, const std::vector<std::string>& unitLines, int first, int last,
                         const std::string& unitName);

}  // namespace kiln::codegen::cuda
