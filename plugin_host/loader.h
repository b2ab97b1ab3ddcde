// Loads plugins (shared libraries exporting KILN_PLUGIN's entry point; kiln_plugin.h) and keeps
// the list of what is loaded, from where, and what each registered (kiln plugins).
//
// A file that is no loadable library, has no entry point, was built for another plugin API
// version, or whose registrations the registries refuse, is a PluginError with one line naming
// the file; nothing it registered stays. The same file loaded twice is loaded once.
#pragma once

#include "plugin_host/library.h"

#include <string>
#include <vector>

namespace kiln::plugin {

struct LoadedPlugin {
  std::string path;  // as canonical path
  std::string name, description;
  std::vector<std::string> registered;  // "pass silu_fusion (before fuse)"
};

// Registers Kiln's own importers and backends (driver::registerBuiltinBackends); the built-in
// passes are in the pass registry from the start. Idempotent; call before loading plugins.
void registerBuiltins();

// A studio plugin (NAME.studio.so, kiln_studio_plugin.h) is refused with a line saying
// kiln-studio loads it.
LoadedPlugin loadPlugin(const std::string& path);
// Every plugin named by a KILN_PLUGIN_PATH value: ':'-separated files, or folders whose `*.so`
// files are all loaded (sorted by name). Empty entries are skipped; a missing one is an error.
// Studio plugins (*.studio.so) there are kiln-studio's and skipped (library.h).
void loadPluginPath(const std::string& pathList);
std::vector<LoadedPlugin> loadedPlugins();

}  // namespace kiln::plugin
