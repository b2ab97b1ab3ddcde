// makeLlvmCpuCompiler(): kernel IR -> LLVM IR -> O3 for the host CPU -> ORC LLJIT.
// Each kernel gets its own LLVM module so its optimized IR and assembly stand alone; all
// kernels of one batch share one JIT session, owned by the returned CompiledModule.
#include "engine/codegen/kernel_compiler.h"
#include "engine/codegen/llvm/llvm_emitter.h"
#include "engine/codegen/llvm/llvm_jit.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <stdexcept>
#include <unordered_set>

namespace kiln::codegen {

namespace {

class LlvmCompiledModule : public CompiledModule {
 public:
  // Declared before `kernels` is filled and destroyed after it: the code lives in the JIT.
  std::unique_ptr<llvmcg::LlvmJit> jit = std::make_unique<llvmcg::LlvmJit>();
};

class LlvmCpuCompiler : public KernelCompiler {
 public:
  std::string name() const override { return "llvm-cpu"; }

  std::shared_ptr<CompiledModule> compile(const std::vector<kir::Kernel>& kernels,
                                          const std::string& moduleName) override {
    std::unordered_set<std::string> names;
    for (const auto& k : kernels)
      if (!names.insert(k.name).second)
        throw std::runtime_error("module " + moduleName + ": two kernels are named " + k.name);

    auto out = std::make_shared<LlvmCompiledModule>();
    for (const auto& k : kernels) {
      auto start = std::chrono::steady_clock::now();
      CompiledKernel ck;
      ck.name = k.name;
      auto ctx = std::make_unique<llvm::LLVMContext>();
      std::unique_ptr<llvm::Module> m = llvmcg::emitKernel(k, *ctx);
      out->jit->optimize(*m);
      llvm::raw_string_ostream irText(ck.llvmIr);
      m->print(irText, nullptr);
      irText.flush();
      ck.assembly = out->jit->assembly(*m);
      void* fn = out->jit->add(std::move(m), std::move(ctx), llvmcg::kernelSymbol(k));
      ck.fn = reinterpret_cast<CpuKernelFn>(fn);
      ck.compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start).count();
      out->kernels.push_back(std::move(ck));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<KernelCompiler> makeLlvmCpuCompiler() {
  return std::make_unique<LlvmCpuCompiler>();
}

}  // namespace kiln::codegen
