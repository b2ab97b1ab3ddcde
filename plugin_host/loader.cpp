#include "plugin_host/loader.h"

#include "engine/driver/builtin_backends.h"
#include "importers/torch_trace/trace_importer.h"
#include "plugin_host/kiln_plugin.h"

#include <mutex>

namespace kiln::plugin {

namespace {
std::mutex& mutex() {
  static std::mutex m;
  return m;
}
std::vector<LoadedPlugin>& loaded() {
  static std::vector<LoadedPlugin> list;
  return list;
}
}  // namespace

void registerBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] {
    Registrar builtin("built-in");
    builtin.addImporter(importers::torch_trace::importer());
    driver::registerBuiltinBackends();
  });
}

LoadedPlugin loadPlugin(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex());
  const std::string canonical = canonicalPluginPath(path);
  for (const auto& p : loaded())
    if (p.path == canonical) return p;
  auto fail = [&](const std::string& why) { return PluginError("plugin " + canonical + ": " + why); };
  if (isStudioPluginFile(canonical)) throw fail("is a studio plugin: kiln-studio --plugin loads it");
  PluginLibrary lib =
      openPluginLibrary(canonical, KILN_PLUGIN_ENTRY_SYMBOL, KILN_PLUGIN_API_VERSION, "Kiln plugin API", "Kiln", "KILN_PLUGIN");
  return registerPlugin<Registrar, KilnPluginEntry>(lib, loaded(), "plugin");
}

void loadPluginPath(const std::string& pathList) {
  for (const auto& f : pluginPathFiles(pathList, false)) loadPlugin(f);
}

std::vector<LoadedPlugin> loadedPlugins() {
  std::lock_guard<std::mutex> lock(mutex());
  return loaded();
}

}  // namespace kiln::plugin
