#include "plugin_host/library.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>

namespace kiln::plugin {

namespace fs = std::filesystem;

bool isStudioPluginFile(const std::string& path) {
  const std::string suffix = kStudioPluginSuffix;
  return path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string canonicalPluginPath(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw PluginError("plugin " + path + ": no such file");
  return fs::canonical(path, ec).string();
}

PluginLibrary openPluginLibrary(const std::string& canonical, const char* symbol, uint32_t version, const std::string& api,
                                const std::string& program, const std::string& macro) {
  auto fail = [&](const std::string& why) { return PluginError("plugin " + canonical + ": " + why); };
  PluginLibrary lib;
  lib.path = canonical;
  lib.handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    const char* err = dlerror();
    throw fail(std::string("cannot be loaded: ") + (err ? err : "unknown error"));
  }
  using EntryFn = const void* (*)();
  auto entryFn = reinterpret_cast<EntryFn>(dlsym(lib.handle, symbol));
  if (!entryFn) {
    closePluginLibrary(lib);
    throw fail("not a " + program + " plugin (it exports no " + symbol + "; define one with " + macro + ")");
  }
  lib.entry = entryFn();
  if (!lib.entry) {
    closePluginLibrary(lib);
    throw fail(std::string(symbol) + " returned nothing");
  }
  // The version is the first field in every version of an entry: read nothing else before it.
  const uint32_t built = *static_cast<const uint32_t*>(lib.entry);
  if (built != version) {
    closePluginLibrary(lib);
    throw fail("built for " + api + " version " + std::to_string(built) + ", this " + program + " has version " + std::to_string(version) +
               " (rebuild it against this Kiln's headers)");
  }
  return lib;
}

void closePluginLibrary(PluginLibrary& library) {
  if (library.handle) dlclose(library.handle);
  library.handle = nullptr;
  library.entry = nullptr;
}

std::vector<std::string> pluginPathFiles(const std::string& pathList, bool studio) {
  std::vector<std::string> out;
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
      for (const auto& f : files)
        if (isStudioPluginFile(f) == studio) out.push_back(f);
    } else if (fs::exists(entry, ec)) {
      if (isStudioPluginFile(entry) == studio) out.push_back(entry);
    } else {
      throw PluginError("KILN_PLUGIN_PATH: '" + entry + "' does not exist");
    }
  }
  return out;
}

}  // namespace kiln::plugin
