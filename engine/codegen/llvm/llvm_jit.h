// The host target, the optimisation pipeline and the ORC LLJIT session behind the CPU backend.
// LLVM types are only forward-declared so this header stays cheap.
#pragma once

#include <future>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
namespace orc {
class LLJIT;
}  // namespace orc
}  // namespace llvm

namespace kiln::codegen::llvmcg {

// What the host offers generated code; detected once per process.
struct HostInfo {
  std::string triple, cpu, features;
  // Whether loops calling exp/log/sin/cos/tanh/erf/pow may use glibc's libmvec variants.
  bool vectorMath = false;
  std::string vectorMathNote;  // why vector math is on or off, for diagnostics
};
const HostInfo& hostInfo();

// One JIT session. Each compiled batch owns one, so freeing the batch frees its code.
class LlvmJit {
 public:
  LlvmJit();  // throws std::runtime_error when the host target is unavailable
  ~LlvmJit();
  LlvmJit(const LlvmJit&) = delete;
  LlvmJit& operator=(const LlvmJit&) = delete;

  // Sets the host triple and data layout, then runs the O3 pipeline tuned for the host CPU.
  void optimize(llvm::Module& m);
  // Native assembly of `m`, printed on another thread while the caller JIT-compiles `m`: the
  // module is copied (as bitcode, into a context and target machine of the thread's own), so
  // the two back-end runs overlap on two cores instead of following each other.
  std::future<std::string> assemblyInBackground(const llvm::Module& m);
  // Hands a module holding several kernels to the JIT, compiles it and returns their entry
  // points, in `symbols` order.
  // points, in `symbols` order. `object` (when given) receives the compiled object file.
  std::vector<void*> addAll(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                            const std::vector<std::string>& symbols, std::string* object = nullptr);
  // Links an object file compiled earlier (the kernel cache) and returns its entry points.
  std::vector<void*> addObject(const std::string& object, const std::vector<std::string>& symbols);

 private:
  // Declared before the JIT, so they outlive its compiler, which holds the ObjectCache.
  std::shared_ptr<std::string> lastObject_ = std::make_shared<std::string>();  // the compiler's last output
  std::shared_ptr<void> keepObject_;                                           // the ObjectCache that fills it
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::TargetMachine> tm_;  // for the optimiser's cost model and assembly
};

}  // namespace kiln::codegen::llvmcg
