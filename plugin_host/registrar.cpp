#include "plugin_host/kiln_plugin.h"

namespace kiln::plugin {

Registrar::Registrar(std::string origin) : origin_(std::move(origin)) {}

void Registrar::addPass(passes::PassInfo pass, const passes::InsertPoint& at) {
  pass.origin = origin_;
  const std::string name = pass.name;
  passes::registerPass(std::move(pass), at);
  passes_.push_back(name);
  registered_.push_back("pass " + name + " (" + at.str() + ")");
}

void Registrar::addImporter(importers::Importer importer) {
  importer.origin = origin_;
  const std::string name = importer.name;
  importers::registerImporter(std::move(importer));
  importers_.push_back(name);
  registered_.push_back("importer " + name);
}

void Registrar::addBackend(const std::string& name, const std::string& description, capture::BackendRegistry::Factory make) {
  capture::BackendRegistry::global().add(name, description, std::move(make), origin_);
  backends_.push_back(name);
  registered_.push_back("backend " + name);
}

void Registrar::undo() {
  for (const auto& p : passes_) passes::unregisterPass(p);
  for (const auto& i : importers_) importers::unregisterImporter(i);
  for (const auto& b : backends_) capture::BackendRegistry::global().remove(b);
  passes_.clear();
  importers_.clear();
  backends_.clear();
  registered_.clear();
}

}  // namespace kiln::plugin
