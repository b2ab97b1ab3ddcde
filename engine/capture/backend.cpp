#include "engine/capture/backend.h"

#include "engine/torch/capture_hooks.h"

#include <stdexcept>

namespace kiln::capture {

GraphRunner Backend::reuse(const ir::Graph&, const std::vector<ir::TensorType>&, const ReusableCode&, std::string* why) {
  if (why) *why = "the backend does not reuse code across shapes";
  return nullptr;
}

BackendRegistry& BackendRegistry::global() {
  // torch.compile checks backend names against this registry, but torch sits below capture and
  // cannot include it: the registry hands torch its lookup when it is made. Before that there
  // is no registry and no backend, which is what torch answers without a lookup.
  static BackendRegistry& registry = []() -> BackendRegistry& {
    static BackendRegistry r;
    torchapi::setBackendLookup([](const std::string& name) { return r.contains(name); });
    return r;
  }();
  return registry;
}

void BackendRegistry::add(const std::string& name, const std::string& description, Factory make, const std::string& origin) {
  if (name.empty()) throw std::invalid_argument("a backend needs a name");
  if (!make) throw std::invalid_argument("backend '" + name + "' has no factory");
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = entries_.emplace(name, Entry{name, description, std::move(make), origin});
  if (!added) throw std::invalid_argument("backend '" + name + "' is already registered (by " + it->second.origin + ")");
}

bool BackendRegistry::remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.erase(name) > 0;
}

bool BackendRegistry::contains(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.count(name) > 0;
}

std::optional<BackendRegistry::Entry> BackendRegistry::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<BackendRegistry::Entry> BackendRegistry::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Entry> out;
  for (const auto& [name, e] : entries_) out.push_back(e);
  return out;
}

std::shared_ptr<Backend> BackendRegistry::make(const std::string& name, const BackendConfig& config) const {
  std::optional<Entry> e = find(name);
  if (!e) throw std::invalid_argument("no backend named '" + name + "'");
  return e->make(config);
}

}  // namespace kiln::capture
