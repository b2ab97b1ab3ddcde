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
  connect(before_, &GraphView::nodeSelected, this, [this](int id) { selectPartner(before_, after_, id); });
  connect(after_, &GraphView::nodeSelected, this, [this](int id) { selectPartner(after_, before_, id); });
}

int GraphDiffView::partnerInAfter(int beforeId) const {
  auto it = beforeToAfter_.find(beforeId);
  return it == beforeToAfter_.end() ? -1 : it->second;
}

int GraphDiffView::partnerInBefore(int afterId) const {
  auto it = afterToBefore_.find(afterId);
  return it == afterToBefore_.end() ? -1 : it->second;
}

void GraphDiffView::selectPartner(GraphView* from, GraphView* to, int id) {
  if (syncing_) return;
  syncing_ = true;
  to->selectNode(id < 0 ? -1 : from == before_ ? partnerInAfter(id) : partnerInBefore(id));
  syncing_ = false;
}

QString GraphDiffView::pairingSummary() const {
  return tr("%1 paired by op and source line (%2 differ), %3 only in A, %4 only in B")
      .arg(pairing_.pairs.size())
      .arg(pairing_.differing())
      .arg(pairing_.onlyA.size())
      .arg(pairing_.onlyB.size());
}

QString GraphDiffView::pairingReport() const {
  const ir::Graph &a = before_->graph(), &b = after_->graph();
  QString text = pairingSummary() + QLatin1Char('\n');
  for (const auto& p : pairing_.pairs) {
    if (p.differences.empty()) continue;
    QStringList what;
    for (const auto& d : p.differences) what << QString::fromStdString(d);
    text += tr("  ~ %1 <-> %2: %3\n")
                .arg(QString::fromStdString(ir::describeNode(*a.find(p.a))), QString::fromStdString(ir::describeNode(*b.find(p.b))),
                     what.join(QStringLiteral("; ")));
  }
  for (int id : pairing_.onlyA) text += tr("  - only in A: %1\n").arg(QString::fromStdString(ir::describeNode(*a.find(id))));
  for (int id : pairing_.onlyB) text += tr("  + only in B: %1\n").arg(QString::fromStdString(ir::describeNode(*b.find(id))));
  return text;
}

void GraphDiffView::showPair(const ir::Graph& a, const QString& titleA, const ir::Graph& b, const QString& titleB, Match match) {
  match_ = match;
  pairing_ = {};
  beforeToAfter_.clear();
  afterToBefore_.clear();
  ir::GraphChanges forward, backward;
  if (match == Match::ByProvenance) {
    // The same GraphChanges both sides already draw: "added" on the older side is drawn red.
    pairing_ = ir::pairGraphs(a, b);
    beforeToAfter_ = pairing_.aToB;
    afterToBefore_ = pairing_.bToA;
    forward.added = pairing_.onlyB;
    backward.added = pairing_.onlyA;
    for (const auto& p : pairing_.pairs)
      if (!p.differences.empty()) {
        forward.changed.push_back(p.b);
        backward.changed.push_back(p.a);
      }
    for (int id : pairing_.onlyA) forward.removed.push_back(a.find(id)->name);
    titleA_->setText(tr("%1 — red: only here, amber: paired, differs").arg(titleA));
    titleB_->setText(tr("%1 — green: only here, amber: paired, differs (%2)").arg(titleB, pairingSummary()));
  } else {
    forward = ir::diffGraphs(a, b);
    backward = ir::diffGraphs(b, a);
    std::map<std::string, int> inB;
    for (const auto& n : b.nodes) inB[n.name] = n.id;
    for (const auto& n : a.nodes)
      if (auto it = inB.find(n.name); it != inB.end()) {
        beforeToAfter_[n.id] = it->second;
        afterToBefore_[it->second] = n.id;
      }
    titleA_->setText(tr("%1 — red: gone in the other, amber: changed").arg(titleA));
    titleB_->setText(tr("%1 — green: new, amber: changed (%2 added, %3 changed, %4 removed)")
                         .arg(titleB)
                         .arg(forward.added.size())
                         .arg(forward.changed.size())
                         .arg(forward.removed.size()));
  }
  before_->showGraph(a);
  before_->setChanges(backward, /*asBefore=*/true);
  after_->showGraph(b);
  after_->setChanges(forward);
}

}  // namespace kiln::viewers
