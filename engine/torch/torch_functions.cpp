#include "engine/torch/torch_functions.h"

#include "engine/ops/autocast.h"
#include "engine/torch/torch_level.h"

#include <map>

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

const Val* TArgs::kw(const std::string& name) const {
  for (const auto& [k, v] : kwargs)
    if (k == name) return &v;
  return nullptr;
}

const Val* TArgs::get(size_t i, const std::string& name) const {
  if (i < args.size()) return &args[i];
  return kw(name);
}

const Val& needArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn) {
  const Val* v = a.get(i, name);
  if (!v) throw TorchError("TypeError", fn + "() missing required argument '" + name + "' (pos " + std::to_string(i + 1) + ")");
  return *v;
}

const Val& opt(const TArgs& a, size_t i, const std::string& name) {
  static const Val kNone;
  const Val* v = a.get(i, name);
  return v ? *v : kNone;
}

int64_t intArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn, int64_t dflt) {
  const Val* v = a.get(i, name);
  if (!v || v->isNone()) return dflt;
  if (v->kind != Val::Kind::Int && v->kind != Val::Kind::Bool)
    throw TorchError("TypeError", fn + "(): argument '" + name + "' must be int, not " +
                                      (v->kind == Val::Kind::Float ? "float"
                                       : v->isTensor()             ? "Tensor"
                                                                   : "object"));
  return v->kind == Val::Kind::Int ? v->i : v->b;
}

const Val& tensorArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn) {
  const Val& v = needArg(a, i, name, fn);
  if (!v.isTensor())
    throw TorchError("TypeError", fn + "(): argument '" + name + "' (position " + std::to_string(i + 1) + ") must be Tensor");
  return v;
}

namespace {

// torch.autocast casts a composite function's tensor arguments before it decomposes, then runs
// it with autocast off (PyTorch's Autocast key sits above CompositeImplicitAutograd and
// excludes itself): matmul of a vector gives the autocast dtype, cross_entropy runs in float32.
void autocastComposites(std::vector<TorchFn>& t) {
  for (auto& f : t) {
    const ops::autocast::Policy policy = ops::autocast::compositePolicy(f.target);
    if (policy == ops::autocast::Policy::None) continue;
    f.impl = [policy, impl = std::move(f.impl)](Dispatcher& d, const TArgs& a) {
      if (!ops::autocast::anyEnabled()) return impl(d, a);
      TArgs cast;
      cast.args = ops::autocast::castArgsAs(d, policy, a.args);
      std::vector<Val> kw;
      for (const auto& [k, v] : a.kwargs) kw.push_back(v);
      kw = ops::autocast::castArgsAs(d, policy, kw);
      for (size_t i = 0; i < kw.size(); ++i) cast.kwargs.emplace_back(a.kwargs[i].first, kw[i]);
      ops::autocast::Suspend off;
      return impl(d, cast);
    };
  }
}

std::vector<TorchFn> build() {
  std::vector<TorchFn> t;
  registerPointwiseFns(t);
  registerFunctionalizedFns(t);
  registerCreationFns(t);
  registerShapeFns(t);
  registerReductionFns(t);
  registerIndexFns(t);
  registerNnFunctionalFns(t);
  registerLinalgFns(t);
  registerMoreFns(t);
  addInplaceVariants(t);
  autocastComposites(t);
  return t;
}

// Layers below the frontend (lowering to ATen, eager runs of captured graphs) reach these
// definitions through passes::TorchLevel: installed as soon as the program starts.
[[maybe_unused]] const bool kTorchLevelInstalled = (installTorchLevel(), true);

}  // namespace

const std::vector<TorchFn>& torchFns() {
  static const std::vector<TorchFn> t = build();
  return t;
}

const TorchFn* findTorchFn(const std::string& target, ir::NodeKind kind) {
  static const std::map<std::pair<std::string, int>, const TorchFn*> index = [] {
    std::map<std::pair<std::string, int>, const TorchFn*> m;
    for (const auto& f : torchFns()) m[{f.target, static_cast<int>(f.kind)}] = &f;
    return m;
  }();
  auto it = index.find({target, static_cast<int>(kind)});
  return it == index.end() ? nullptr : it->second;
}

}  // namespace kiln::torchapi
