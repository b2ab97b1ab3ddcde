// kiln plugins / kiln backends, and the global --plugin option: what is registered, by whom.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "engine/capture/backend.h"
#include "engine/passes/pipeline.h"
#include "importers/importer.h"
#include "plugin_host/loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace kiln::cli {

void loadPlugins(std::vector<std::string>& args) {
  std::string extra;
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--") break;
    std::string path;
    if (args[i] == "--plugin") {
      if (i + 1 >= args.size()) throw UsageError("--plugin needs a path");
      path = args[i + 1];
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
    } else if (args[i].rfind("--plugin=", 0) == 0) {
      path = args[i].substr(9);
      args.erase(args.begin() + static_cast<long>(i));
    } else {
      ++i;
      continue;
    }
    if (path.empty()) throw UsageError("--plugin needs a path");
    if (path.find(':') != std::string::npos) throw UsageError("--plugin '" + path + "': a path with ':' cannot go on KILN_PLUGIN_PATH");
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw std::runtime_error("--plugin '" + path + "' does not exist");
    // KILN_PLUGIN_PATH's studio plugins are skipped (kiln-studio's); named here, it is refused.
    if (plugin::isStudioPluginFile(path)) plugin::loadPlugin(path);
    extra += ":" + path;
  }
  // Processes kiln starts (kiln run --nproc-per-node, the studio's runs) load the same plugins.
  if (!extra.empty()) {
    const char* env = std::getenv("KILN_PLUGIN_PATH");
    const std::string value = (env ? std::string(env) : std::string()) + extra;
    setenv("KILN_PLUGIN_PATH", value.c_str(), 1);
  }
  plugin::registerBuiltins();
  if (const char* env = std::getenv("KILN_PLUGIN_PATH")) plugin::loadPluginPath(env);
}

namespace {
std::string names(const std::vector<std::string>& list) {
  std::string s;
  for (const auto& n : list) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}
}  // namespace

int cmdPlugins(const std::vector<std::string>& args) {
  Opts o = parse(args, {}, {});
  if (o.help || !o.positional.empty()) {
    std::cout << usage();
    return o.help ? 0 : 2;
  }
  std::vector<std::string> passes, importers, backends;
  for (const auto& p : passes::pipeline())
    if (p.origin == "built-in") passes.push_back(p.name);
  for (const auto& i : importers::importers())
    if (i.origin == "built-in") importers.push_back(i.name);
  for (const auto& b : capture::BackendRegistry::global().entries())
    if (b.origin == "built-in") backends.push_back(b.name);
  std::cout << "built-in\n  passes: " << names(passes) << "\n  importers: " << names(importers) << "\n  backends: " << names(backends)
            << "\n";
  const auto loaded = plugin::loadedPlugins();
  for (const auto& p : loaded) {
    std::cout << "plugin " << p.name << " from " << p.path << "\n";
    if (!p.description.empty()) std::cout << "  " << p.description << "\n";
    for (const auto& r : p.registered) std::cout << "  " << r << "\n";
  }
  if (loaded.empty()) std::cout << "no plugins loaded (--plugin PATH, KILN_PLUGIN_PATH)\n";
  // Studio plugins on KILN_PLUGIN_PATH are kiln-studio's: kiln does not open them (their stage
  // views need the studio's symbols and Qt), so it names the files only.
  if (const char* env = std::getenv("KILN_PLUGIN_PATH"))
    for (const auto& f : plugin::pluginPathFiles(env, true))
      std::cout << "studio plugin " << std::filesystem::weakly_canonical(f).string() << " (stage views; kiln-studio loads it)\n";
  return 0;
}

int cmdBackends(const std::vector<std::string>& args) {
  Opts o = parse(args, {}, {});
  if (o.help || !o.positional.empty()) {
    std::cout << usage();
    return o.help ? 0 : 2;
  }
  const auto entries = capture::BackendRegistry::global().entries();
  size_t width = 0;
  for (const auto& b : entries) width = std::max(width, b.name.size());
  for (const auto& b : entries) {
    std::cout << b.name << std::string(width - b.name.size() + 2, ' ') << b.description;
    if (b.origin != "built-in") std::cout << "  (plugin " << b.origin << ")";
    std::cout << "\n";
  }
  return 0;
}

}  // namespace kiln::cli
