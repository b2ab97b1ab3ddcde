// Loads studio plugins (NAME.studio.so exporting KILN_STUDIO_PLUGIN's entry point;
// kiln_studio_plugin.h) into kiln-studio, with the checks the kiln loader makes (loader.h, both
// through library.h): a file that is no loadable library, has no entry point, was built for
// another studio plugin API version, or whose registrations are refused is a PluginError with one
// line naming the file; nothing it registered stays. The same file loaded twice is loaded once.
// Links the viewers (Qt) and no engine.
#pragma once

#include "plugin_host/library.h"

#include <string>
#include <vector>

namespace kiln::plugin {

struct LoadedStudioPlugin {
  std::string path;  // canonical
  std::string name, description;
  std::vector<std::string> registered;  // "stage view silu_fusion (pass:silu_fusion)"
};

// Kiln's own stage views (viewers::registerBuiltinStageViews: origin "built-in"), in the
// registry studio plugins add to. Idempotent; called before the first studio plugin loads.
void registerBuiltinStudioViews();

LoadedStudioPlugin loadStudioPlugin(const std::string& path);
// The studio plugins (*.studio.so) a KILN_PLUGIN_PATH value names; the other files there are
// kiln's. Each that fails is one line in the result ("plugin P: ...") and the rest still load:
// the studio reports them and carries on (app/studio/README.md says why).
std::vector<std::string> loadStudioPluginPath(const std::string& pathList);
std::vector<LoadedStudioPlugin> loadedStudioPlugins();

}  // namespace kiln::plugin
