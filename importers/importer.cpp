#include "importers/importer.h"

#include <mutex>
#include <stdexcept>

namespace kiln::importers {

namespace {
std::mutex& mutex() {
  static std::mutex m;
  return m;
}
std::vector<Importer>& registry() {
  static std::vector<Importer> list;
  return list;
}
}  // namespace

void registerImporter(Importer importer) {
  if (importer.name.empty() || !importer.recognises || !importer.run)
    throw std::invalid_argument("registerImporter: an importer needs a name, a recognises function and a run function");
  std::lock_guard<std::mutex> lock(mutex());
  for (const auto& i : registry())
    if (i.name == importer.name) throw std::invalid_argument("registerImporter: an importer named '" + importer.name + "' exists");
  registry().push_back(std::move(importer));
}

bool unregisterImporter(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex());
  auto& list = registry();
  for (auto it = list.begin(); it != list.end(); ++it)
    if (it->name == name) {
      list.erase(it);
      return true;
    }
  return false;
}

std::vector<Importer> importers() {
  std::lock_guard<std::mutex> lock(mutex());
  return registry();
}

std::string importerNames() {
  std::string s;
  for (const auto& i : importers()) s += (s.empty() ? "" : ", ") + i.name;
  return s.empty() ? "none registered" : s;
}

Importer importerNamed(const std::string& name) {
  for (auto& i : importers())
    if (i.name == name) return i;
  throw std::invalid_argument("no importer named '" + name + "' (importers: " + importerNames() + ")");
}

std::optional<Importer> importerFor(const std::string& path) {
  for (auto& i : importers())
    if (i.recognises(path)) return i;
  return std::nullopt;
}

}  // namespace kiln::importers
