#include "plugin_host/studio_loader.h"

#include "plugin_host/kiln_studio_plugin.h"

#include <mutex>
#include <stdexcept>

namespace kiln::plugin {

namespace {
std::mutex& mutex() {
  static std::mutex m;
  return m;
}
std::vector<LoadedStudioPlugin>& loaded() {
  static std::vector<LoadedStudioPlugin> list;
  return list;
}
}  // namespace

StudioRegistrar::StudioRegistrar(std::string origin) : origin_(std::move(origin)) {}

void StudioRegistrar::addStageView(viewers::StageView view) {
  view.origin = origin_;
  std::string stages;
  for (const auto& s : view.stages) stages += (stages.empty() ? "" : ", ") + s;
  const std::string id = view.id;
  viewers::StageViewRegistry::global().add(std::move(view));
  views_.push_back(id);
  registered_.push_back("stage view " + id + " (" + stages + ")");
}

void StudioRegistrar::undo() {
  for (const auto& id : views_) viewers::StageViewRegistry::global().remove(id);
  views_.clear();
  registered_.clear();
}

void registerBuiltinStudioViews() { viewers::registerBuiltinStageViews(); }

LoadedStudioPlugin loadStudioPlugin(const std::string& path) {
  registerBuiltinStudioViews();
  std::lock_guard<std::mutex> lock(mutex());
  const std::string canonical = canonicalPluginPath(path);
  for (const auto& p : loaded())
    if (p.path == canonical) return p;
  auto fail = [&](const std::string& why) { return PluginError("plugin " + canonical + ": " + why); };
  if (!isStudioPluginFile(canonical))
    throw fail(std::string("is not a studio plugin (a studio plugin's file is named NAME") + kStudioPluginSuffix +
               "; a Kiln plugin goes to the kiln run processes the studio starts)");
  PluginLibrary lib = openPluginLibrary(canonical, KILN_STUDIO_PLUGIN_ENTRY_SYMBOL, KILN_STUDIO_PLUGIN_API_VERSION,
                                        "Kiln studio plugin API", "kiln-studio", "KILN_STUDIO_PLUGIN");
  return registerPlugin<StudioRegistrar, KilnStudioPluginEntry>(lib, loaded(), "studio plugin");
}

std::vector<std::string> loadStudioPluginPath(const std::string& pathList) {
  std::vector<std::string> errors;
  std::vector<std::string> files;
  try {
    files = pluginPathFiles(pathList, true);
  } catch (const PluginError& e) { errors.push_back(e.what()); }
  for (const auto& f : files) try {
      loadStudioPlugin(f);
    } catch (const PluginError& e) { errors.push_back(e.what()); }
  return errors;
}

std::vector<LoadedStudioPlugin> loadedStudioPlugins() {
  std::lock_guard<std::mutex> lock(mutex());
  return loaded();
}

}  // namespace kiln::plugin
