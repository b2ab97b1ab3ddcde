// The Kiln studio plugin API: what a studio plugin (a shared library named NAME.studio.so)
// includes, and the one entry point it exports.
//
// kiln-studio links no engine (it runs scripts in `kiln run` processes and reads the store), so
// a Kiln plugin (kiln_plugin.h), which calls into the engine, cannot be loaded into it. What a
// plugin shows in the studio is therefore a library of its own, with its own entry point
// (KILN_STUDIO_PLUGIN) and API version: it registers stage views (viewers/stage_views.h), Qt
// widgets the studio shows as tabs for the stages they name, made from what the store holds
// for the stage. It links Qt (Qt6::Widgets) and no Kiln library: the viewers', store's and IR's
// symbols are resolved from the kiln-studio executable (which exports them), so there is one
// copy of the registry. kiln-studio loads studio plugins named by `--plugin PATH` and the
// *.studio.so files on KILN_PLUGIN_PATH (kiln skips those; plugin_host/library.h), checking the
// version below first; a plugin built for another version is refused with one line naming it.
//
// Example (plugins/silu_fusion/silu_fusion_view.cpp, the view of silu_fusion's pass stage):
//   static QWidget* make(const kiln::viewers::StageViewInput& in) { ... return table; }
//   static void registerAll(kiln::plugin::StudioRegistrar& r) {
//     r.addStageView({"silu_fusion", "SiLU fusion", {"pass:silu_fusion"}, make});
//   }
//   KILN_STUDIO_PLUGIN("silu_fusion_view", "the silu_fusion pass's rewrites as a table", registerAll)
#pragma once

#include "viewers/stage_views.h"

#include <cstdint>
#include <string>
#include <vector>

// Bump whenever a type a studio plugin sees changes (StageView, StageViewInput, StageRow,
// Graph, StudioRegistrar, ...).
#define KILN_STUDIO_PLUGIN_API_VERSION 1

namespace kiln::plugin {

// Registers into the studio's registries, stamping each entry with who registered it and keeping
// the list of what was registered. Throws std::invalid_argument when a registry refuses (a taken
// id); the loader then undoes what the plugin had registered.
class StudioRegistrar {
 public:
  explicit StudioRegistrar(std::string origin);
  void addStageView(viewers::StageView view);

  const std::string& origin() const { return origin_; }
  // What was registered, one line each: "stage view silu_fusion (pass:silu_fusion)".
  const std::vector<std::string>& registered() const { return registered_; }
  void undo();

 private:
  std::string origin_;
  std::vector<std::string> registered_;
  std::vector<std::string> views_;
};

}  // namespace kiln::plugin

extern "C" {
// What kiln_studio_plugin_entry() returns. `apiVersion` stays the first field in every version.
struct KilnStudioPluginEntry {
  uint32_t apiVersion;  // KILN_STUDIO_PLUGIN_API_VERSION the plugin was built against
  const char* name;
  const char* description;
  void (*registerAll)(kiln::plugin::StudioRegistrar& registrar);
};
}

// The symbol the studio's loader looks up.
#define KILN_STUDIO_PLUGIN_ENTRY_SYMBOL "kiln_studio_plugin_entry"

// Defines the studio plugin's entry point (once per studio plugin).
#define KILN_STUDIO_PLUGIN(NAME, DESCRIPTION, REGISTER_FN)                                                    \
  extern "C" __attribute__((visibility("default"))) const KilnStudioPluginEntry* kiln_studio_plugin_entry() { \
    static const KilnStudioPluginEntry entry{KILN_STUDIO_PLUGIN_API_VERSION, NAME, DESCRIPTION, REGISTER_FN}; \
    return &entry;                                                                                            \
  }
