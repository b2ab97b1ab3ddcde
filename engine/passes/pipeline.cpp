#include "engine/passes/pipeline.h"

#include "engine/passes/addmm.h"
#include "engine/passes/constant_fold.h"
#include "engine/passes/cse.h"
#include "engine/passes/dce.h"
#include "engine/passes/decompose.h"
#include "engine/passes/fold_conv_bn.h"
#include "engine/passes/fuse.h"
#include "engine/passes/simplify.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace kiln::passes {

namespace {
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

std::string joined(const std::vector<PassInfo>& list) {
  std::string s;
  for (const auto& p : list) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// Inserts under the registry's lock; the checks registerPass documents.
void insertLocked(std::vector<PassInfo>& list, PassInfo pass, const InsertPoint& at) {
  if (pass.name.empty() || !pass.run) throw std::invalid_argument("registerPass: a pass needs a name and a function");
  auto named = list.end();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->name == pass.name) throw std::invalid_argument("registerPass: a pass named '" + pass.name + "' exists");
    if (it->name == at.pass) named = it;
  }
  const bool fuseExists = std::any_of(list.begin(), list.end(), [](const PassInfo& p) { return p.name == "fuse"; });
  if (at.where == InsertPoint::Where::End || (at.where == InsertPoint::Where::After && at.pass == "fuse")) {
    if (fuseExists) throw std::invalid_argument("registerPass: '" + pass.name + "' cannot run after fuse, which stays last");
    list.push_back(std::move(pass));
    return;
  }
  if (named == list.end())
    throw std::invalid_argument("registerPass: no pass named '" + at.pass + "' to insert '" + pass.name + "' " + at.str() +
                                " (passes: " + joined(list) + ")");
  list.insert(at.where == InsertPoint::Where::Before ? named : named + 1, std::move(pass));
}

// Kiln's own passes, registered in the order they run, the way a plugin registers its own.
void registerBuiltins(std::vector<PassInfo>& list) {
  const std::vector<PassInfo> builtins = {
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
  for (const auto& p : builtins) insertLocked(list, p, InsertPoint::end());
}

std::vector<PassInfo>& registry() {
  static std::vector<PassInfo> list = [] {
    std::vector<PassInfo> l;
    registerBuiltins(l);
    return l;
  }();
  return list;
}
}  // namespace

std::string InsertPoint::str() const {
  switch (where) {
    case Where::Before: return "before " + pass;
    case Where::After: return "after " + pass;
    case Where::End: break;
  }
  return "at the end";
}

std::vector<PassInfo> pipeline() {
  std::lock_guard<std::mutex> lock(registryMutex());
  return registry();
}

std::vector<std::string> passNames() {
  std::vector<std::string> names;
  for (const auto& p : pipeline()) names.push_back(p.name);
  return names;
}

void registerPass(PassInfo pass, const InsertPoint& at) {
  std::lock_guard<std::mutex> lock(registryMutex());
  insertLocked(registry(), std::move(pass), at);
}

void registerPass(PassInfo pass, const std::string& before) { registerPass(std::move(pass), InsertPoint::before(before)); }

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

void checkPassNames(const std::set<std::string>& names) {
  const std::vector<PassInfo> list = pipeline();
  for (const auto& n : names)
    if (std::none_of(list.begin(), list.end(), [&](const PassInfo& p) { return p.name == n; }))
      throw std::invalid_argument("no pass named '" + n + "' (passes: " + joined(list) + ")");
}

}  // namespace kiln::passes
