#include "engine/passes/pipeline.h"

#include "engine/passes/addmm.h"
#include "engine/passes/constant_fold.h"
#include "engine/passes/cse.h"
#include "engine/passes/dce.h"
#include "engine/passes/decompose.h"
#include "engine/passes/fold_conv_bn.h"
#include "engine/passes/fuse.h"
#include "engine/passes/simplify.h"

#include <mutex>
#include <stdexcept>

namespace kiln::passes {

namespace {
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

std::vector<PassInfo>& registry() {
  static std::vector<PassInfo> kPipeline = {
      // Expand composite ops into the core ATen set the later passes and codegen know.
      {"decompose", "decompose composite ops into core ATen ops", decompose},
      // Compute constant subgraphs now; one-valued results become full(), a kernel literal.
      {"constant_fold", "fold constant subgraphs with one value into full()", constantFold},
      // Algebraic identities; they leave dead producers behind for dce.
      {"simplify", "algebraic simplification (exp(log x), x*1, x+0, ...)", simplify},
      // conv + eval batch_norm (a per-channel affine) -> one convolution with folded weights.
      {"fold_conv_bn", "fold eval batch_norm (per-channel affine) into the convolution before it", foldConvBn},
      // mm + bias -> addmm (one BLAS call); the mm it absorbs is left for dce.
      {"addmm", "fold a bias add into its matrix product (addmm)", foldAddmm},
      {"cse", "common-subexpression elimination", cse},
      {"dce", "dead-code elimination", dce},
      // Last: group nodes into kernels (the fused stage): pointwise chains, reductions with their
      // pointwise prologues and epilogues, horizontal fusion (engine/schedule/fusion.h).
      {"fuse", "fuse pointwise ops and reductions into kernels", fuse},
  };
  return kPipeline;
}
}  // namespace

std::vector<PassInfo> pipeline() {
  std::lock_guard<std::mutex> lock(registryMutex());
  return registry();
}

void registerPass(PassInfo pass, const std::string& before) {
  if (pass.name.empty() || !pass.run) throw std::invalid_argument("registerPass: a pass needs a name and a function");
  std::lock_guard<std::mutex> lock(registryMutex());
  auto& list = registry();
  auto at = list.end();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->name == pass.name) throw std::invalid_argument("registerPass: a pass named '" + pass.name + "' exists");
    if (it->name == before) at = it;
  }
  if (at == list.end()) throw std::invalid_argument("registerPass: no pass named '" + before + "' to insert before");
  list.insert(at, std::move(pass));
}

bool unregisterPass(const std::string& name) {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto& list = registry();
  for (auto it = list.begin(); it != list.end(); ++it)
    if (it->name == name) {
      list.erase(it);
      return true;
    }
  return false;
}

}  // namespace kiln::passes
