#include "viewers/graph_diff_view.h"

#include "engine/ir/graph_diff.h"
#include "viewers/graph_legend.h"
#include "viewers/graph_view.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace kiln::viewers {

namespace {

QWidget* titled(QLabel* title, GraphView* view, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(title);
  layout->addWidget(view, 1);
  return box;
}

}  // namespace

GraphDiffView::GraphDiffView(QWidget* parent)
    : QWidget(parent), titleA_(new QLabel(this)), titleB_(new QLabel(this)), before_(new GraphView(this)), after_(new GraphView(this)) {
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(titled(titleA_, before_, split));
  split->addWidget(titled(titleB_, after_, split));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  // Marks are applied when each side's layout lands (GraphView keeps them across it).
  // The titles say what the colours mean: each side's legend starts folded to its chooser.
  for (GraphView* side : {before_, after_}) side->legend()->setFolded(true);
}

void GraphDiffView::showPair(const ir::Graph& a, const QString& titleA, const ir::Graph& b, const QString& titleB) {
  const ir::GraphChanges forward = ir::diffGraphs(a, b), backward = ir::diffGraphs(b, a);
  titleA_->setText(tr("%1 — red: gone in the other, amber: changed").arg(titleA));
  titleB_->setText(tr("%1 — green: new, amber: changed (%2 added, %3 changed, %4 removed)")
                       .arg(titleB)
                       .arg(forward.added.size())
                       .arg(forward.changed.size())
                       .arg(forward.removed.size()));
  before_->showGraph(a);
  before_->setChanges(backward, /*asBefore=*/true);
  after_->showGraph(b);
  after_->setChanges(forward);
}

}  // namespace kiln::viewers
