// makeLlvmCpuCompiler(): kernel IR -> LLVM IR -> O3 for the host CPU -> ORC LLJIT.
// All kernels of one batch (a graph) go into one LLVM module, optimized, printed and JIT-compiled
// once; kernels that are the same code but for names and provenance (kernel_bodies.h) are
// compiled once and share the entry point. Each kernel's IR and assembly are cut out of the
// module's for display. The JIT session is owned by the returned CompiledModule.
#include "engine/codegen/kernel_bodies.h"
#include "engine/codegen/kernel_cache.h"
#include "engine/codegen/kernel_compiler.h"
#include "engine/codegen/llvm/llvm_emitter.h"
#include "engine/codegen/llvm/llvm_jit.h"
#include "engine/tensor/stop.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/AssemblyAnnotationWriter.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FormattedStream.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <future>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

namespace kiln::codegen {

namespace {

// The part of a module's assembly that belongs to one function: from its `.globl` line to the
// next function's (constant pools emitted just before a function go with the previous one).
std::string functionAssembly(const std::string& all, const std::string& symbol) {
  size_t at = all.find("\t.globl\t" + symbol + "\n");
  if (at == std::string::npos) at = all.find(symbol + ":");
  if (at == std::string::npos) return "";
  size_t end = all.find("\t.globl\t", at + 1);
  return all.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Provenance in the printed code. Debug locations carry graph node ids as line numbers
// (llvm_emitter.h); the LLVM IR gets them as `; @N` comments instead of `!dbg !K` references to
// metadata that a function's text does not include, and the assembly's `.loc 1 N 0` directives
// become `# @N` lines (the instructions after one compute node N). The debug sections
// themselves are not shown.
class NodeComments : public llvm::AssemblyAnnotationWriter {
 public:
  void printInfoComment(const llvm::Value& v, llvm::formatted_raw_ostream& os) override {
    if (const auto* i = llvm::dyn_cast<llvm::Instruction>(&v))
      if (const llvm::DebugLoc& dl = i->getDebugLoc(); dl && dl.getLine() > 0) os << " ; @" << dl.getLine();
  }
};

std::string withoutDbgRefs(const std::string& ir) {
  static const std::regex dbg(R"(,? !dbg ![0-9]+)");
  return std::regex_replace(ir, dbg, "");
}

std::string readableAssembly(const std::string& fn) {
  std::string out;
  size_t pos = 0;
  while (pos < fn.size()) {
    size_t nl = fn.find('\n', pos);
    std::string line = fn.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? fn.size() : nl + 1;
    if (line.rfind("\t.section\t.debug", 0) == 0) break;  // debug sections end the text
    if (line.rfind("\t.loc\t", 0) == 0) {
      // .loc FILE LINE COL [flags]
      std::istringstream in(line.substr(6));
      int file = 0, node = 0;
      in >> file >> node;
      if (node > 0) out += "\t# @" + std::to_string(node) + "\n";
      continue;
    }
    if (line.rfind("\t.file\t", 0) == 0 || line.rfind(".Ltmp", 0) == 0 || line.rfind(".Lfunc_begin", 0) == 0) continue;
    out += line + "\n";
  }
  return out;
}

// What the machine code of a module depends on besides its kernels' bodies (kernel_bodies.h):
// the key holds the distinct bodies, in order, so a graph whose kernels are named and numbered
// otherwise hits too.
std::string cacheKey(const KernelBodies& bodies) {
  const llvmcg::HostInfo& h = llvmcg::hostInfo();
  std::string key = KernelCache::buildId() + ", llvm " LLVM_VERSION_STRING "\n" + h.triple + " " + h.cpu + " " + h.features + "\n" +
                    h.vectorMathNote + "\ndistinct kernel bodies\n";
  for (const auto& t : bodies.text) key += t;
  return key;
}

// The first line of a kernel's texts when its code was compiled for another kernel.
std::string sharedNote(const char* comment, const kir::Kernel& k, const std::string& compiledFor, bool cached) {
  return std::string(comment) + " " + k.name + " runs the code compiled for kernel " + compiledFor + (cached ? " (kernel cache)" : "") +
         ": the same kernel IR but for names and provenance\n";
}

class LlvmCompiledModule : public CompiledModule {
 public:
  // Declared before `kernels` is filled and destroyed after it: the code lives in the JIT.
  std::unique_ptr<llvmcg::LlvmJit> jit = std::make_unique<llvmcg::LlvmJit>();
};

// The code of each distinct body of a batch: entry points and texts with canonical provenance,
// and the kernel it was compiled for.
struct BodiesCode {
  std::vector<void*> fns;
  std::vector<std::string> compiledFor, llvmIr, assembly;
};

class LlvmCpuCompiler : public KernelCompiler {
 public:
  std::string name() const override { return "llvm-cpu"; }

  std::shared_ptr<CompiledModule> compile(const std::vector<kir::Kernel>& kernels, const std::string& moduleName) override {
    std::unordered_set<std::string> names;
    for (const auto& k : kernels)
      if (!names.insert(k.name).second) throw std::runtime_error("module " + moduleName + ": two kernels are named " + k.name);

    auto out = std::make_shared<LlvmCompiledModule>();
    auto start = std::chrono::steady_clock::now();
    // Each distinct body is compiled once, as its first kernel; the others run that code.
    const KernelBodies bodies = groupByBody(kernels);
    BodiesCode code;
    bool cached = false;
    // A module compiled before (this run or an earlier one): its machine code and texts.
    KernelCache* cache = KernelCache::instance();
    const std::string key = cache ? cacheKey(bodies) : "";
    if (cache)
      if (std::optional<CachedModule> hit = cache->load(key); hit && hit->names.size() == bodies.first.size()) {
        try {
          std::vector<std::string> symbols;
          for (const auto& n : hit->names) symbols.push_back(llvmcg::kernelSymbol(n));
          code = {out->jit->addObject(hit->object, symbols), hit->names, hit->llvmIr, hit->assembly};
          cached = true;
        } catch (const std::exception&) {
          out = std::make_shared<LlvmCompiledModule>();  // an unusable entry: compile afresh
        }
      }
    if (!cached) {
      code = compileBodies(kernels, bodies, moduleName, *out, cache, key);
      out->bodiesCompiled = bodies.first.size();
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < kernels.size(); ++i) {
      const kir::Kernel& k = kernels[i];
      const size_t b = bodies.bodyOf[i];
      const std::vector<int> nodes = provenanceNodes(k);
      CompiledKernel ck;
      ck.name = k.name;
      ck.fn = reinterpret_cast<CpuKernelFn>(code.fns[b]);
      ck.llvmIr = withProvenance(code.llvmIr[b], nodes);
      ck.assembly = withProvenance(code.assembly[b], nodes);
      if (code.compiledFor[b] != k.name) {
        ck.sharesCodeOf = code.compiledFor[b];
        ck.llvmIr = sharedNote(";", k, ck.sharesCodeOf, cached) + ck.llvmIr;
        ck.assembly = sharedNote("#", k, ck.sharesCodeOf, cached) + ck.assembly;
      }
      ck.compileMs = ms / static_cast<double>(kernels.size());  // the batch's time, shared out
      out->kernels.push_back(std::move(ck));
    }
    return out;
  }

 private:
  // One LLVM module holding the first kernel of each body, with canonical provenance: the O3
  // pipeline, the assembly printer and the JIT each run once, which is most of the cost of a
  // compile (per-kernel modules cost ~13 ms each); the assembly printer runs on a second thread
  // while the JIT compiles. Stores the result in `cache` (when given) under `key`.
  static BodiesCode compileBodies(const std::vector<kir::Kernel>& kernels, const KernelBodies& bodies, const std::string& moduleName,
                                  LlvmCompiledModule& out, KernelCache* cache, const std::string& key) {
    BodiesCode code;
    std::vector<std::string> symbols;
    for (size_t f : bodies.first) symbols.push_back(llvmcg::kernelSymbol(kernels[f].name));
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = std::make_unique<llvm::Module>(moduleName, *ctx);
    {
      // Line tables only: enough for node provenance in the IR and the assembly.
      llvm::DIBuilder di(*m);
      auto* cu = di.createCompileUnit(llvm::dwarf::DW_LANG_C, di.createFile(moduleName + ".kir", "."), "kiln", true, "", 0, "",
                                      llvm::DICompileUnit::LineTablesOnly);
      m->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
      m->addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
      for (size_t f : bodies.first) llvmcg::emitKernelInto(withCanonicalProvenance(kernels[f]), *m, &di, cu);
      di.finalize();
    }
    {
      std::string problems;
      llvm::raw_string_ostream os(problems);
      if (llvm::verifyModule(*m, &os)) throw std::runtime_error("internal error: invalid LLVM IR in " + moduleName + ": " + problems);
    }
    // A stop request (Ctrl-C, a time limit) ends the compile: the optimizer skips its passes once
    // one is made, and code generation is not started. The caller sees the request pending
    // (tensor::stopRequested) and raises it. Thrown as a plain error: kiln_codegen does not link
    // the tensor library that defines tensor::Interrupted.
    auto checkStop = [&] {
      if (tensor::stopRequested())
        throw std::runtime_error("compile of " + moduleName + " stopped (Ctrl-C, a time limit or a stop request)");
    };
    checkStop();
    out.jit->optimize(*m);
    checkStop();
    std::future<std::string> assembly = out.jit->assemblyInBackground(*m);
    for (size_t j = 0; j < bodies.first.size(); ++j) {
      code.compiledFor.push_back(kernels[bodies.first[j]].name);
      std::string ir;
      if (llvm::Function* f = m->getFunction(symbols[j])) {
        llvm::raw_string_ostream irText(ir);
        NodeComments comments;
        f->print(irText, &comments);
        irText.flush();
        ir = withoutDbgRefs(ir);
      }
      code.llvmIr.push_back(std::move(ir));
    }
    std::string object;
    code.fns = out.jit->addAll(std::move(m), std::move(ctx), symbols, cache ? &object : nullptr);
    const std::string text = assembly.get();
    for (const auto& s : symbols) code.assembly.push_back(readableAssembly(functionAssembly(text, s)));
    if (cache && !object.empty()) cache->store({key, code.compiledFor, code.llvmIr, code.assembly, object});
    return code;
  }
};

}  // namespace

std::unique_ptr<KernelCompiler> makeLlvmCpuCompiler() { return std::make_unique<LlvmCpuCompiler>(); }

}  // namespace kiln::codegen
