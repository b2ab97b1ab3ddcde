// The host target, the O3 pipeline with glibc vector math, assembly printing and the LLJIT.
#include "engine/codegen/llvm/llvm_jit.h"

#include "engine/codegen/llvm/llvm_emitter.h"
#include "engine/tensor/stop.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>
#include <stdexcept>

namespace kiln::codegen::llvmcg {

namespace {

[[noreturn]] void fail(const std::string& what, llvm::Error err) {
  throw std::runtime_error("LLVM CPU backend: " + what + ": " + llvm::toString(std::move(err)));
}

template <class T>
T check(const std::string& what, llvm::Expected<T> v) {
  if (!v) fail(what, v.takeError());
  return std::move(*v);
}

llvm::orc::JITTargetMachineBuilder hostMachine() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
  auto jtmb = check("detecting the host CPU", llvm::orc::JITTargetMachineBuilder::detectHost());
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return jtmb;
}

// glibc has vector tanh and erf (since 2.35), but LLVM 19's LIBMVEC_X86 table does not list
// them; these entries follow the table's own pattern (SSE "b" and AVX2 "d" variants).
const llvm::VecDesc kExtraLibmvec[] = {
    {"tanhf", "_ZGVbN4v_tanhf", llvm::ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
    {"tanhf", "_ZGVdN8v_tanhf", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"tanh", "_ZGVbN2v_tanh", llvm::ElementCount::getFixed(2), false, "_ZGV_LLVM_N2v"},
    {"tanh", "_ZGVdN4v_tanh", llvm::ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
    {"erff", "_ZGVbN4v_erff", llvm::ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
    {"erff", "_ZGVdN8v_erff", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"erf", "_ZGVbN2v_erf", llvm::ElementCount::getFixed(2), false, "_ZGV_LLVM_N2v"},
    {"erf", "_ZGVdN4v_erf", llvm::ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
};
bool gExtraLibmvecAvailable = false;

// LLVM 19's LIBMVEC_X86 table stops at AVX2 ("d", 256-bit); glibc also has the AVX-512 ("e")
// variants, twice as wide. Listed for the libm names and the intrinsics the emitter uses.
#define KILN_AVX512(f32, f64, vf32, vf64, params)                                 \
  {f32, vf32, llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16" params}, { \
    f64, vf64, llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8" params      \
  }
const llvm::VecDesc kAvx512Libmvec[] = {
    KILN_AVX512("expf", "exp", "_ZGVeN16v_expf", "_ZGVeN8v_exp", "v"),
    KILN_AVX512("llvm.exp.f32", "llvm.exp.f64", "_ZGVeN16v_expf", "_ZGVeN8v_exp", "v"),
    KILN_AVX512("logf", "log", "_ZGVeN16v_logf", "_ZGVeN8v_log", "v"),
    KILN_AVX512("llvm.log.f32", "llvm.log.f64", "_ZGVeN16v_logf", "_ZGVeN8v_log", "v"),
    KILN_AVX512("sinf", "sin", "_ZGVeN16v_sinf", "_ZGVeN8v_sin", "v"),
    KILN_AVX512("llvm.sin.f32", "llvm.sin.f64", "_ZGVeN16v_sinf", "_ZGVeN8v_sin", "v"),
    KILN_AVX512("cosf", "cos", "_ZGVeN16v_cosf", "_ZGVeN8v_cos", "v"),
    KILN_AVX512("llvm.cos.f32", "llvm.cos.f64", "_ZGVeN16v_cosf", "_ZGVeN8v_cos", "v"),
    KILN_AVX512("powf", "pow", "_ZGVeN16vv_powf", "_ZGVeN8vv_pow", "vv"),
    KILN_AVX512("llvm.pow.f32", "llvm.pow.f64", "_ZGVeN16vv_powf", "_ZGVeN8vv_pow", "vv"),
    KILN_AVX512("tanhf", "tanh", "_ZGVeN16v_tanhf", "_ZGVeN8v_tanh", "v"),
    KILN_AVX512("erff", "erf", "_ZGVeN16v_erff", "_ZGVeN8v_erf", "v"),
};
#undef KILN_AVX512
bool gAvx512LibmvecAvailable = false;

HostInfo detectHost() {
  auto jtmb = hostMachine();
  HostInfo h;
  h.triple = jtmb.getTargetTriple().str();
  h.cpu = jtmb.getCPU();
  h.features = jtmb.getFeatures().getString();
  if (jtmb.getTargetTriple().getArch() != llvm::Triple::x86_64 || !jtmb.getTargetTriple().isOSLinux()) {
    h.vectorMathNote = "scalar libm calls: libmvec is only used on x86-64 Linux";
    return h;
  }
  // The table names AVX2 ("d") variants; without AVX2 they would fault, so stay scalar.
  if (h.features.find("+avx2") == std::string::npos) {
    h.vectorMathNote = "scalar libm calls: the host has no AVX2";
    return h;
  }
  std::string err;
  // RTLD_GLOBAL, so the JIT's search of the current process finds the _ZGV* symbols.
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1", &err)) {
    h.vectorMathNote = "scalar libm calls: cannot load libmvec.so.1: " + err;
    return h;
  }
  if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("_ZGVdN8v_expf")) {
    h.vectorMathNote = "scalar libm calls: libmvec.so.1 lacks _ZGVdN8v_expf";
    return h;
  }
  gExtraLibmvecAvailable = true;
  for (const auto& d : kExtraLibmvec)
    gExtraLibmvecAvailable &= llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(d.getVectorFnName().str()) != nullptr;
  h.vectorMath = true;
  h.vectorMathNote = gExtraLibmvecAvailable ? "libmvec (exp, log, sin, cos, pow, tanh, erf)" : "libmvec (exp, log, sin, cos, pow)";
  if (h.features.find("+avx512f") != std::string::npos) {
    gAvx512LibmvecAvailable = true;
    for (const auto& d : kAvx512Libmvec)
      gAvx512LibmvecAvailable &= llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(d.getVectorFnName().str()) != nullptr;
    if (gAvx512LibmvecAvailable) h.vectorMathNote += ", AVX-512 variants";
  }
  return h;
}

}  // namespace

const HostInfo& hostInfo() {
  static const HostInfo h = detectHost();
  return h;
}

LlvmJit::LlvmJit() {
  hostInfo();  // loads libmvec before the JIT's process-symbol generator looks anything up
  auto jtmb = hostMachine();
  tm_ = check("creating the target machine", jtmb.createTargetMachine());
  // The compiler hands every object it makes to an ObjectCache that keeps a copy, so the kernel
  // cache can store it.
  struct KeepObject : llvm::ObjectCache {
    explicit KeepObject(std::shared_ptr<std::string> out) : out(std::move(out)) {}
    void notifyObjectCompiled(const llvm::Module*, llvm::MemoryBufferRef obj) override { *out = obj.getBuffer().str(); }
    std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module*) override { return nullptr; }
    std::shared_ptr<std::string> out;
  };
  auto keep = std::make_shared<KeepObject>(lastObject_);
  jit_ =
      check("creating the JIT",
            llvm::orc::LLJITBuilder()
                .setJITTargetMachineBuilder(std::move(jtmb))
                .setCompileFunctionCreator(
                    [keep](llvm::orc::JITTargetMachineBuilder b) -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                      auto tm = b.createTargetMachine();
                      if (!tm) return tm.takeError();
                      return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(std::move(*tm), keep.get());
                    })
                .create());
  keepObject_ = keep;
  // libm, libmvec and libc calls of the generated code resolve against this process.
  auto gen = check("creating the process symbol generator",
                   llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit_->getDataLayout().getGlobalPrefix()));
  jit_->getMainJITDylib().addGenerator(std::move(gen));
  // The stop flag long kernels poll (llvm_emitter.cpp), by address: the executable does not
  // export its symbols, and a cached object links against it as a fresh one does.
  static_assert(sizeof(tensor::stopFlag) == 1 && std::atomic<bool>::is_always_lock_free, "the kernels load the flag as one byte");
  llvm::orc::SymbolMap flag;
  flag[jit_->mangleAndIntern(kStopFlagSymbol)] = {llvm::orc::ExecutorAddr::fromPtr(&tensor::stopFlag), llvm::JITSymbolFlags::Exported};
  if (llvm::Error err = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(flag))))
    fail("defining " + std::string(kStopFlagSymbol), std::move(err));
}

LlvmJit::~LlvmJit() = default;

void LlvmJit::optimize(llvm::Module& m) {
  m.setTargetTriple(tm_->getTargetTriple().str());
  m.setDataLayout(tm_->createDataLayout());

  // Declared in this order so they are destroyed in the reverse one.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  llvm::TargetLibraryInfoImpl tlii(tm_->getTargetTriple());
  if (hostInfo().vectorMath) {
    tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, tm_->getTargetTriple());
    if (gExtraLibmvecAvailable) tlii.addVectorizableFunctions(kExtraLibmvec);
    if (gAvx512LibmvecAvailable) tlii.addVectorizableFunctions(kAvx512Libmvec);
  }
  // Registered before the PassBuilder's defaults so the vectorizer sees the vector library.
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });

  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  // A stop request (Ctrl-C, a time limit) skips every optional pass still to run, so a long
  // compile ends within one pass on one function; the compiler then throws (llvm_compiler.cpp).
  llvm::PassInstrumentationCallbacks pic;
  pic.registerShouldRunOptionalPassCallback([](llvm::StringRef, llvm::Any) { return !tensor::stopRequested(); });
  llvm::PassBuilder pb(tm_.get(), pto, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

std::future<std::string> LlvmJit::assemblyInBackground(const llvm::Module& m) {
  llvm::SmallString<0> bitcode;
  {
    llvm::raw_svector_ostream os(bitcode);
    llvm::WriteBitcodeToFile(m, os);
  }
  return std::async(std::launch::async, [bitcode = std::move(bitcode)]() -> std::string {
    llvm::LLVMContext ctx;
    auto mod = check("reading the module back for the assembly printer",
                     llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "kernels"), ctx));
    std::unique_ptr<llvm::TargetMachine> tm = check("creating the target machine", hostMachine().createTargetMachine());
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream os(text);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      throw std::runtime_error("LLVM CPU backend: the host target cannot emit assembly");
    pm.run(*mod);
    return std::string(text.str());
  });
}

std::vector<void*> LlvmJit::addAll(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                                   const std::vector<std::string>& symbols, std::string* object) {
  std::string name = m->getName().str();
  if (llvm::Error err = jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    fail("adding " + name + " to the JIT", std::move(err));
  std::vector<void*> out;
  for (const auto& s : symbols) out.push_back(check("compiling " + s, jit_->lookup(s)).toPtr<void*>());
  if (object) *object = std::move(*lastObject_);
  lastObject_->clear();  // the JIT owns the code; the copy was only for the kernel cache
  return out;
}

std::vector<void*> LlvmJit::addObject(const std::string& object, const std::vector<std::string>& symbols) {
  if (llvm::Error err = jit_->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, "cached kernels")))
    fail("loading cached kernels", std::move(err));
  std::vector<void*> out;
  for (const auto& s : symbols) out.push_back(check("linking cached " + s, jit_->lookup(s)).toPtr<void*>());
  return out;
}

}  // namespace kiln::codegen::llvmcg
