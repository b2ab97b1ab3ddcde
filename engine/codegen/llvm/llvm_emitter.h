// Kernel IR -> LLVM IR for one kernel (one llvm::Module per kernel, so each kernel's optimized
// IR and assembly can be shown on their own).
#pragma once

#include "engine/schedule/kernel_ir.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace kiln::codegen::llvmcg {

// The symbol of a kernel's entry point. The "kiln." prefix keeps kernel names from ever
// colliding with C library functions the generated code calls (a kernel named `fmod` would
// otherwise receive the backend's own calls to fmod).
std::string kernelSymbol(const kir::Kernel& k);

// Builds `void kiln.<k.name>(void* const* buffers, int64_t begin, int64_t end)` (the
// CpuKernelFn ABI) in a new module. The kernel must pass kir::verify. Throws std::runtime_error for ops
// or dtypes the backend does not support.
std::unique_ptr<llvm::Module> emitKernel(const kir::Kernel& k, llvm::LLVMContext& ctx);

}  // namespace kiln::codegen::llvmcg
