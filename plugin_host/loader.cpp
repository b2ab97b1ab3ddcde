#include "plugin_host/loader.h"

#include "engine/driver/builtin_backends.h"
#include "importers/torch_trace/trace_importer.h"
#include "plugin_host/kiln_plugin.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace kiln::plugin {

namespace fs = std::filesystem;

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
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw PluginError("plugin " + path + ": no such file");
  const std::string canonical = fs::canonical(path, ec).string();
  for (const auto& p : loaded())
    if (p.path == canonical) return p;
  auto fail = [&](const std::string& why) { return PluginError("plugin " + canonical + ": " + why); };
  // RTLD_NOW: an engine symbol the kiln executable does not export fails here, not mid-compile.
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    throw fail(std::string("cannot be loaded: ") + (err ? err : "unknown error"));
  }
  using EntryFn = const KilnPluginEntry* (*)();
  auto entryFn = reinterpret_cast<EntryFn>(dlsym(handle, KILN_PLUGIN_ENTRY_SYMBOL));
  if (!entryFn) {
    dlclose(handle);
    throw fail("not a Kiln plugin (it exports no " KILN_PLUGIN_ENTRY_SYMBOL "; define one with KILN_PLUGIN)");
  }
  const KilnPluginEntry* entry = entryFn();
  if (!entry) {
    dlclose(handle);
    throw fail(KILN_PLUGIN_ENTRY_SYMBOL " returned nothing");
  }
  // The version is the first field in every version of the entry: read nothing else before it.
  if (entry->apiVersion != KILN_PLUGIN_API_VERSION) {
    const uint32_t v = entry->apiVersion;
    dlclose(handle);
    throw fail("built for Kiln plugin API version " + std::to_string(v) + ", this Kiln has version " +
               std::to_string(KILN_PLUGIN_API_VERSION) + " (rebuild it against this Kiln's headers)");
  }
  if (!entry->name || !*entry->name || !entry->registerAll) {
    dlclose(handle);
    throw fail("its entry has no name or no register function");
  }
  for (const auto& p : loaded())
    if (p.name == entry->name) {
      const std::string other = p.path;
      dlclose(handle);
      throw fail("a plugin named '" + std::string(entry->name) + "' is loaded already, from " + other);
    }
  Registrar registrar(canonical);
  try {
    entry->registerAll(registrar);
  } catch (const std::exception& e) {
    registrar.undo();
    // The library stays loaded: a function it registered elsewhere may still point into it.
    throw fail(std::string("registering failed: ") + e.what());
  }
  loaded().push_back({canonical, entry->name, entry->description ? entry->description : "", registrar.registered()});
  return loaded().back();
}

void loadPluginPath(const std::string& pathList) {
  size_t start = 0;
  while (start <= pathList.size()) {
    size_t colon = pathList.find(':', start);
    if (colon == std::string::npos) colon = pathList.size();
    const std::string entry = pathList.substr(start, colon - start);
    start = colon + 1;
    if (entry.empty()) continue;
    std::error_code ec;
    if (fs::is_directory(entry, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(entry, ec))
        if (e.is_regular_file(ec) && e.path().extension() == ".so") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) loadPlugin(f);
    } else if (fs::exists(entry, ec)) {
      loadPlugin(entry);
    } else {
      throw PluginError("KILN_PLUGIN_PATH: '" + entry + "' does not exist");
    }
  }
}

std::vector<LoadedPlugin> loadedPlugins() {
  std::lock_guard<std::mutex> lock(mutex());
  return loaded();
}

}  // namespace kiln::plugin
