#include "viewers/verify_panel.h"

#include <QHeaderView>

#include <set>

namespace kiln::viewers {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

VerifyPanel::VerifyPanel(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({tr("Graph"), tr("Result"), tr("Detail")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  setRootIsDecorated(true);
  setWordWrap(true);
  setResults({});
}

void VerifyPanel::setResults(const std::vector<session::VerifyEvent>& results) {
  clear();
  mismatches_ = 0;
  std::set<std::string> graphs;
  for (const auto& e : results) graphs.insert(e.compileId);
  checked_ = static_cast<int>(graphs.size());
  if (results.empty()) {
    auto* hint = new QTreeWidgetItem(this, {tr("Not verified"), QString(),
                                            tr("Turn on File ▸ Verify Compiled Graphs Against Eager and run the script again: every "
                                               "compiled graph call is then checked against the graph run eagerly, and a difference "
                                               "is bisected to the pass or fusion decision that introduced it.")});
    hint->setFlags(Qt::ItemIsEnabled);
    return;
  }
  for (const auto& e : results) {
    if (e.matched) {
      new QTreeWidgetItem(
          this, {QStringLiteral("[%1]").arg(qs(e.compileId)), tr("agrees with eager"), tr("checked from call %1 on").arg(e.call)});
      continue;
    }
    ++mismatches_;
    auto* item = new QTreeWidgetItem(this, {QStringLiteral("[%1]").arg(qs(e.compileId)), tr("DIFFERS at call %1").arg(e.call),
                                            tr("introduced by %1").arg(qs(e.culprit))});
    item->setForeground(1, QColor(0xd9, 0x48, 0x3b));
    item->setToolTip(2, qs(e.detail) + QStringLiteral("\n") + qs(e.culprit));
    new QTreeWidgetItem(item, {tr("first difference"), QString(), qs(e.detail)});
    auto* trials = new QTreeWidgetItem(item, {tr("bisection"), tr("%1 trials").arg(e.bisection.size())});
    for (const auto& line : e.bisection) new QTreeWidgetItem(trials, {QString(), QString(), qs(line)});
    item->setExpanded(true);
  }
}

}  // namespace kiln::viewers
