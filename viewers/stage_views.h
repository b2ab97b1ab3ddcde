// Stage views: widgets the studio shows for a stage of a given kind, next to the stage's text
// tabs, made by factories registered by stage name pattern. Kiln's own views register here the
// same way as a studio plugin's (plugin_host/kiln_studio_plugin.h): the built-in `rules` view
// (registerBuiltinStageViews) is one.
//
// A factory gets what the studio read for the stage (its row, graph, IR text and the graph of
// the stage before it, the pass's input) and the store, to read more (the compile's kernels,
// the session's artifacts); it runs on the UI thread when the stage is shown, so it reads
// little. It returns the widget (owned by the studio from then on), or null when it has nothing
// to show for this stage.
#pragma once

#include "engine/ir/graph.h"
#include "storage/store.h"

#include <QString>

#include <functional>
#include <string>
#include <vector>

class QTabWidget;
class QWidget;

namespace kiln::viewers {

struct StageViewInput {
  storage::Store& store;
  int64_t sessionId = 0;
  const storage::StageRow& stage;  // its name, compile, rules fired, time
  const ir::Graph& graph;
  const ir::Graph* previous = nullptr;  // the stage before it in the compile, or null
  const std::string& text;              // the stage's IR text
};

struct StageView {
  std::string id;                   // unique; `kiln-studio --tab ID` raises it
  std::string title;                // the tab's title
  std::vector<std::string> stages;  // stage names it is for, as fnmatch patterns: "pass:*", "fused"
  std::function<QWidget*(const StageViewInput&)> make;
  std::string origin = "built-in";  // or the plugin's file
};

class StageViewRegistry {
 public:
  static StageViewRegistry& global();
  // Throws std::invalid_argument for an empty id, no stage pattern, no factory or a taken id.
  void add(StageView view);
  bool remove(const std::string& id);
  bool contains(const std::string& id) const;
  std::vector<StageView> entries() const;  // in registration order
  // The views registered for stage `stageName`, in registration order.
  std::vector<StageView> forStage(const std::string& stageName) const;

 private:
  std::vector<StageView> views_;
};

// Kiln's own stage views (idempotent): `rules`, the rules a pass fired or the fused stage's
// fusion decisions as a table.
void registerBuiltinStageViews();

// Replaces the stage-view tabs of `tabs` (the ones this function added before) with the views
// registered for `input.stage`. The tab shown stays shown when the new stage has a view of the
// same id; `raise` (a view id) is made current when present. A factory that throws shows its
// error in its tab. Returns the ids of the views shown.
QStringList showStageViews(QTabWidget* tabs, const StageViewInput& input, const QString& raise = {});
// Takes the stage-view tabs out of `tabs` (a stage without a graph is shown).
void clearStageViews(QTabWidget* tabs);
// The id of the stage view in tab `index` of `tabs`, "" when that tab is not one.
QString stageViewIdAt(const QTabWidget* tabs, int index);

}  // namespace kiln::viewers
