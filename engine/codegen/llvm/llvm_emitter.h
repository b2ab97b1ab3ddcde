// Kernel IR -> LLVM IR for one kernel: one function per kernel, in its own module or added to
// the module of its graph.
#pragma once

#include "engine/kir/kernel_ir.h"

#include <memory>
#include <string>

namespace llvm {
class DIBuilder;
class DICompileUnit;
class LLVMContext;
class Module;
}  // namespace llvm

namespace kiln::codegen::llvmcg {

// The symbol of a kernel's entry point. The "kiln." prefix keeps kernel names from ever
// colliding with C library functions the generated code calls (a kernel named `fmod` would
// otherwise receive the backend's own calls to fmod).
std::string kernelSymbol(const kir::Kernel& k);
std::string kernelSymbol(const std::string& kernelName);

// The byte a long reduction nest polls between chunks to end early at a stop request: the JIT
// (llvm_jit.cpp) defines it as tensor::stopFlag (engine/tensor/stop.h).
constexpr const char* kStopFlagSymbol = "kiln_stop_flag";

// Adds `void kiln.<k.name>(void* const* buffers, int64_t begin, int64_t end)` (the CpuKernelFn
// ABI) to `m` (all kernels of a graph go into one module so the optimizer, the assembly printer
// and the JIT each run once per graph). The kernel must pass kir::verify. Throws
// std::runtime_error for ops or dtypes the backend does not support.
// With `di`, instructions carry a debug location whose line is the graph node the kernel IR
// instruction came from (kir::Instr::node; 0 for loop control): the printed LLVM IR and the
// assembly's .loc directives then say which node each line computes (see llvm_compiler.cpp).
void emitKernelInto(const kir::Kernel& k, llvm::Module& m, llvm::DIBuilder* di = nullptr, llvm::DICompileUnit* cu = nullptr);

}  // namespace kiln::codegen::llvmcg
