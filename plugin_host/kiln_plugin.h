// The Kiln plugin API: what a plugin (a shared library) includes, and the one entry point it
// exports.
//
// A plugin defines its entry point with KILN_PLUGIN(name, description, registerFn). When Kiln
// loads it (`--plugin PATH`, or a file or folder on KILN_PLUGIN_PATH; plugin_host/loader.h), it
// checks the API version the plugin was built against before touching anything else, then calls
// registerFn with a Registrar, through which the plugin adds what it brings:
//
//   passes     addPass(PassInfo, InsertPoint): a graph pass at a named point of the pipeline
//              ("before fuse" by default). Its stage `pass:NAME` and the rules it records with
//              PassResult::fired (or, simpler, as a rule table: engine/passes/rewrite_rules.h)
//              are shown like the built-in passes' (kiln show, the studio's Step tab).
//   importers  addImporter(Importer): another tool's record of a compile as sessions (kiln
//              import; importers/importer.h).
//   backends   addBackend(name, description, factory): torch.compile(backend="name") compiles
//              captured graphs with the plugin's capture::Backend (engine/capture/backend.h);
//              listed by `kiln backends`.
//
// Kiln's own passes and importers register through the same registries (origin "built-in").
// Plugins link no Kiln library: the engine's symbols are resolved from the kiln executable
// (which exports them), so there is one copy of every registry. Build a plugin against the
// headers of the same Kiln (find_package(Kiln) and kiln_add_plugin; plugins/README.md): the
// version below changes whenever these types change, and a plugin built for another version is
// refused with a one-line error naming its file.
//
// Example (plugins/silu_fusion/):
//   static void registerAll(kiln::plugin::Registrar& r) { r.addPass({"silu_fusion", "...", run}); }
//   KILN_PLUGIN("silu_fusion", "fuses x * sigmoid(x) into silu", registerAll)
#pragma once

#include "engine/capture/backend.h"
#include "engine/passes/pipeline.h"
#include "importers/importer.h"

#include <cstdint>
#include <string>
#include <vector>

// Bump whenever a type a plugin sees changes (PassInfo, Graph, Importer, Registrar, ...).
#define KILN_PLUGIN_API_VERSION 2

namespace kiln::plugin {

// Registers into Kiln's registries, stamping each entry with who registered it and keeping the
// list that `kiln plugins` prints. Throws std::invalid_argument when a registry refuses (a taken
// name, an unknown insertion point); the loader then undoes what the plugin had registered.
class Registrar {
 public:
  explicit Registrar(std::string origin);
  void addPass(passes::PassInfo pass, const passes::InsertPoint& at = passes::InsertPoint::before("fuse"));
  void addImporter(importers::Importer importer);
  void addBackend(const std::string& name, const std::string& description, capture::BackendRegistry::Factory make);

  const std::string& origin() const { return origin_; }
  // What was registered, one line each: "pass silu_fusion (before fuse)".
  const std::vector<std::string>& registered() const { return registered_; }
  // Removes everything registered through this registrar (a plugin that failed half way).
  void undo();

 private:
  std::string origin_;
  std::vector<std::string> registered_;
  std::vector<std::string> passes_, importers_, backends_;
};

}  // namespace kiln::plugin

extern "C" {
// What kiln_plugin_entry() returns. `apiVersion` stays the first field in every version.
struct KilnPluginEntry {
  uint32_t apiVersion;  // KILN_PLUGIN_API_VERSION the plugin was built against
  const char* name;
  const char* description;
  void (*registerAll)(kiln::plugin::Registrar& registrar);
};
}

// The symbol the loader looks up.
#define KILN_PLUGIN_ENTRY_SYMBOL "kiln_plugin_entry"

// Defines the plugin's entry point (once per plugin).
#define KILN_PLUGIN(NAME, DESCRIPTION, REGISTER_FN)                                              \
  extern "C" __attribute__((visibility("default"))) const KilnPluginEntry* kiln_plugin_entry() { \
    static const KilnPluginEntry entry{KILN_PLUGIN_API_VERSION, NAME, DESCRIPTION, REGISTER_FN}; \
    return &entry;                                                                               \
  }
