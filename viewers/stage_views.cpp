#include "viewers/stage_views.h"

#include <fnmatch.h>

#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>

#include <algorithm>
#include <stdexcept>

namespace kiln::viewers {

namespace {

// Marks the tabs showStageViews added (the property holds the view's id).
constexpr const char* kViewIdProperty = "kilnStageView";

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The built-in `rules` view: one row per rule a pass fired (or, for the fused stage, per fusion
// decision): how often, and the nodes it fired on, by name in the pass's input graph.
QWidget* makeRulesView(const StageViewInput& in) {
  if (in.stage.rules.empty()) return nullptr;
  auto* table = new QTableWidget(static_cast<int>(in.stage.rules.size()), 3);
  table->setHorizontalHeaderLabels(
      {in.stage.stage == "fused" ? QObject::tr("Fusion decision") : QObject::tr("Rule"), QObject::tr("Fired"), QObject::tr("On nodes")});
  for (int r = 0; r < table->rowCount(); ++r) {
    const session::RuleHit& hit = in.stage.rules[static_cast<size_t>(r)];
    QStringList names;
    for (int id : hit.nodes) {
      const ir::Node* n = in.previous && in.previous->find(id) ? in.previous->find(id) : in.graph.find(id);
      names << (n ? qs(n->name) : QString::number(id));
    }
    auto* count = new QTableWidgetItem;
    count->setData(Qt::DisplayRole, hit.count);
    table->setItem(r, 0, new QTableWidgetItem(qs(hit.rule)));
    table->setItem(r, 1, count);
    table->setItem(r, 2, new QTableWidgetItem(names.join(QStringLiteral(", "))));
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setStretchLastSection(true);
  table->resizeColumnsToContents();
  return table;
}

}  // namespace

StageViewRegistry& StageViewRegistry::global() {
  static StageViewRegistry registry;
  return registry;
}

void StageViewRegistry::add(StageView view) {
  if (view.id.empty()) throw std::invalid_argument("a stage view needs an id");
  if (view.stages.empty()) throw std::invalid_argument("stage view '" + view.id + "' names no stage");
  if (!view.make) throw std::invalid_argument("stage view '" + view.id + "' has no factory");
  if (contains(view.id)) throw std::invalid_argument("a stage view named '" + view.id + "' is registered already");
  views_.push_back(std::move(view));
}

bool StageViewRegistry::remove(const std::string& id) {
  auto at = std::find_if(views_.begin(), views_.end(), [&](const StageView& v) { return v.id == id; });
  if (at == views_.end()) return false;
  views_.erase(at);
  return true;
}

bool StageViewRegistry::contains(const std::string& id) const {
  return std::any_of(views_.begin(), views_.end(), [&](const StageView& v) { return v.id == id; });
}

std::vector<StageView> StageViewRegistry::entries() const { return views_; }

std::vector<StageView> StageViewRegistry::forStage(const std::string& stageName) const {
  std::vector<StageView> out;
  for (const auto& v : views_)
    if (std::any_of(v.stages.begin(), v.stages.end(),
                    [&](const std::string& pattern) { return fnmatch(pattern.c_str(), stageName.c_str(), 0) == 0; }))
      out.push_back(v);
  return out;
}

void registerBuiltinStageViews() {
  static const bool once = [] {
    StageViewRegistry::global().add({"rules", "Rules", {"pass:*", "fused"}, makeRulesView});
    return true;
  }();
  (void)once;
}

QString stageViewIdAt(const QTabWidget* tabs, int index) {
  const QWidget* w = tabs->widget(index);
  return w ? w->property(kViewIdProperty).toString() : QString();
}

void clearStageViews(QTabWidget* tabs) {
  for (int i = tabs->count() - 1; i >= 0; --i)
    if (!stageViewIdAt(tabs, i).isEmpty()) {
      QWidget* w = tabs->widget(i);
      tabs->removeTab(i);
      w->deleteLater();
    }
}

QStringList showStageViews(QTabWidget* tabs, const StageViewInput& input, const QString& raise) {
  registerBuiltinStageViews();
  const QString current = stageViewIdAt(tabs, tabs->currentIndex());
  // Removing the current tab would make Qt pick a neighbour; the text tab before the views is
  // where the user goes back to when the new stage has no view of the same id.
  clearStageViews(tabs);
  QStringList shown;
  for (const StageView& view : StageViewRegistry::global().forStage(input.stage.stage)) {
    QWidget* widget = nullptr;
    try {
      widget = view.make(input);
    } catch (const std::exception& e) {
      widget =
          new QLabel(QObject::tr("The stage view '%1' (%2) failed: %3").arg(qs(view.id), qs(view.origin), QString::fromUtf8(e.what())));
    }
    if (!widget) continue;
    const QString id = qs(view.id);
    widget->setProperty(kViewIdProperty, id);
    const int index = tabs->addTab(widget, qs(view.title));
    tabs->setTabToolTip(index, QObject::tr("Stage view '%1', from %2").arg(id, qs(view.origin)));
    shown << id;
    if (id == raise || (raise.isEmpty() && id == current)) tabs->setCurrentIndex(index);
  }
  return shown;
}

}  // namespace kiln::viewers
