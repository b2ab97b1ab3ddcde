// What the two plugin loaders share: opening a plugin's shared library, finding its entry point
// and checking the API version it was built for, and the files a KILN_PLUGIN_PATH value names.
//
// There are two kinds of plugin, one entry point each. A Kiln plugin (kiln_plugin.h,
// `kiln_plugin_entry`) brings passes, backends and importers to the `kiln` executable, whose
// engine symbols it resolves. A studio plugin (kiln_studio_plugin.h,
// `kiln_studio_plugin_entry`) brings stage views to `kiln-studio`, which links no engine: its
// library is named NAME.studio.so, so that each program takes its own kind from a folder on
// KILN_PLUGIN_PATH without opening the other kind (opening one runs its constructors and needs
// symbols only the other program has). No engine and no Qt here: both loaders link this.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::plugin {

// One line naming the file: "plugin /abs/p.so: built for Kiln plugin API version 999, ...".
struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The file name suffix of a studio plugin.
inline constexpr const char* kStudioPluginSuffix = ".studio.so";
bool isStudioPluginFile(const std::string& path);

struct PluginLibrary {
  std::string path;  // canonical
  void* handle = nullptr;
  const void* entry = nullptr;  // what the entry function returned; its first field is the version
};

// The canonical path of plugin file `path` (PluginError "no such file" when it is not one).
std::string canonicalPluginPath(const std::string& path);

// Opens `canonical` (dlopen RTLD_NOW: a symbol the program does not export fails here, not in
// the middle of a compile or a paint), calls `symbol` for its entry and checks the entry's first
// field, the API version, against `version` before anything else of the entry is read. `api`
// names the API in the messages ("Kiln plugin API"), `program` the program that loads it
// ("Kiln", "kiln-studio") and `macro` the macro that defines the entry point. Each failure is
// one PluginError line naming the file, and the library is closed again.
PluginLibrary openPluginLibrary(const std::string& canonical, const char* symbol, uint32_t version, const std::string& api,
                                const std::string& program, const std::string& macro);
void closePluginLibrary(PluginLibrary& library);

// What both loaders do with an opened library once its version is right: check that the entry
// names a plugin and a register function, refuse a second plugin of the same name, and call the
// register function with a `Registrar` stamped with the file. A registration that throws is
// undone (Registrar::undo) and the library stays open (a function it registered may still be
// referenced). `Entry` is KilnPluginEntry or KilnStudioPluginEntry, `Loaded` the loader's record
// (path, name, description, registered); `kind` names it in the messages ("plugin").
template <class Registrar, class Entry, class Loaded>
Loaded registerPlugin(PluginLibrary& lib, std::vector<Loaded>& loaded, const std::string& kind) {
  const auto* entry = static_cast<const Entry*>(lib.entry);
  auto fail = [&](const std::string& why) { return PluginError("plugin " + lib.path + ": " + why); };
  if (!entry->name || !*entry->name || !entry->registerAll) {
    closePluginLibrary(lib);
    throw fail("its entry has no name or no register function");
  }
  for (const auto& p : loaded)
    if (p.name == entry->name) {
      const std::string other = p.path;
      closePluginLibrary(lib);
      throw fail("a " + kind + " named '" + std::string(entry->name) + "' is loaded already, from " + other);
    }
  Registrar registrar(lib.path);
  try {
    entry->registerAll(registrar);
  } catch (const std::exception& e) {
    registrar.undo();
    throw fail(std::string("registering failed: ") + e.what());
  }
  loaded.push_back({lib.path, entry->name, entry->description ? entry->description : "", registrar.registered()});
  return loaded.back();
}

// The plugin files a KILN_PLUGIN_PATH value (':'-separated files and folders) names for one
// program: `studio` false, the files not named *.studio.so (kiln), true, those that are
// (kiln-studio). A folder gives its *.so files sorted by name; empty entries are skipped; an
// entry that does not exist is a PluginError.
std::vector<std::string> pluginPathFiles(const std::string& pathList, bool studio);

}  // namespace kiln::plugin
