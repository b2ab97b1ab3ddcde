// libFuzzer target: the kernel IR text form (engine/kir/kernel_ir_text.cpp). Any byte string
// given to kir::parseKernels must parse or raise kiln::ParseError — never crash, hang, trip a
// sanitizer or throw anything else. What parses is then held to the text form's promises and put
// through what Kiln does with kernel IR read back from a store (`kiln show --stage cuda`):
//   - printing is canonical: print(parse(print(k))) == print(k), and parse(print(k)) == k
//     (except for NaN constants, which compare unequal to themselves);
//   - kir::verify accepts or rejects it with a message, never crashes;
//   - a kernel verify accepts can be placed (kir::place), collapsed and rewritten
//     (collapseLoops, storeOnceReloadLater) and stays valid, and the CUDA source generator
//     turns it into text or refuses it with std::runtime_error.
#include "engine/codegen/cuda/cuda_source.h"
#include "engine/kir/kernel_ir.h"
#include "engine/support/error.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using namespace kiln;

[[noreturn]] void fail(const char* what, const std::string& a, const std::string& b = "") {
  std::fprintf(stderr, "kernel_ir_fuzzer: %s\n--- first\n%s\n--- second\n%s\n", what, a.c_str(), b.c_str());
  std::abort();
}

bool hasNan(const kir::Kernel& k) {
  for (const auto& in : k.body)
    if (std::isnan(in.constant)) return true;
  return false;
}

void checkKernel(const kir::Kernel& k) {
  std::string text = kir::print(k);
  kir::Kernel back;
  try {
    back = kir::parseKernel(text);
  } catch (const ParseError& e) { fail((std::string("printed kernel does not parse: ") + e.what()).c_str(), text); }
  std::string again = kir::print(back);
  if (again != text) fail("print(parse(print(k))) != print(k)", text, again);
  if (!hasNan(k) && !(back == k)) fail("parse(print(k)) != k", text, again);

  if (!kir::verify(k).empty()) return;
  kir::Placement p = kir::place(k);
  (void)p;
  (void)k.pointCount();
  (void)k.symbolic();
  (void)kir::withoutHints(k);
  kir::Kernel c = k;
  kir::collapseLoops(c);
  if (std::string err = kir::verify(c); !err.empty()) fail(("collapseLoops broke a valid kernel: " + err).c_str(), text, kir::print(c));
  kir::storeOnceReloadLater(c);
  if (std::string err = kir::verify(c); !err.empty())
    fail(("storeOnceReloadLater broke a valid kernel: " + err).c_str(), text, kir::print(c));
  try {
    std::string src = codegen::cuda::cudaSource({k});
    (void)codegen::cuda::cudaSymbol(k);
  } catch (const std::runtime_error&) {
    // f16/bf16 buffers and the like: refused with a message.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<kir::Kernel> ks;
  try {
    ks = kir::parseKernels(text);
  } catch (const ParseError&) { return 0; }
  for (const auto& k : ks) checkKernel(k);
  return 0;
}
