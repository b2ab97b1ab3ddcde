#include "viewers/autotune_panel.h"

#include <QHeaderView>

namespace kiln::viewers {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
QString ms(double v) { return QStringLiteral("%1 ms").arg(v, 0, 'f', v < 0.1 ? 4 : 3); }
}  // namespace

AutotunePanel::AutotunePanel(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(4);
  setHeaderLabels({tr("Product"), tr("Implementation"), tr("Median"), tr("Against the fastest")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  setRootIsDecorated(true);
  setWordWrap(true);
  setChoices({});
}

void AutotunePanel::setChoices(const std::vector<session::AutotuneEvent>& choices) {
  clear();
  products_ = static_cast<int>(choices.size());
  if (choices.empty()) {
    auto* hint = new QTreeWidgetItem(this, {tr("Not autotuned"), QString(), QString(),
                                            tr("Compile with torch.compile(model, mode=\"max-autotune\"): every matrix product is then "
                                               "timed with each GEMM implementation Kiln has, and the graph runs the fastest.")});
    hint->setFlags(Qt::ItemIsEnabled);
    return;
  }
  const QColor chosenColor(0x2e, 0x8b, 0x57), naColor(0x80, 0x80, 0x80);
  for (const auto& e : choices) {
    double best = -1.0;
    const session::AutotuneEvent::Candidate* chosen = nullptr;
    for (const auto& c : e.candidates) {
      if (c.ms >= 0 && (best < 0 || c.ms < best)) best = c.ms;
      if (c.chosen) chosen = &c;
    }
    auto* item = new QTreeWidgetItem(
        this, {QStringLiteral("[%1] %2").arg(qs(e.compileId), qs(e.node)), chosen ? qs(chosen->algo) : tr("none ran"),
               chosen ? ms(chosen->ms) : QString(), qs(e.problem) + (e.cached ? tr(" · cached from an earlier run") : QString())});
    item->setToolTip(0, qs(e.op));
    if (chosen) item->setForeground(1, chosenColor);
    for (const auto& c : e.candidates) {
      QString against;
      if (c.ms >= 0 && best > 0) against = c.chosen ? tr("fastest") : QStringLiteral("%1x").arg(c.ms / best, 0, 'f', 2);
      auto* row = new QTreeWidgetItem(item, {QString(), qs(c.algo), c.ms >= 0 ? ms(c.ms) : tr("n/a"), c.ms >= 0 ? against : qs(c.note)});
      if (c.chosen) {
        QFont f = row->font(1);
        f.setBold(true);
        row->setFont(1, f);
        row->setForeground(1, chosenColor);
      } else if (c.ms < 0) {
        row->setForeground(2, naColor);
        row->setForeground(3, naColor);
      }
      if (!c.note.empty()) row->setToolTip(3, qs(c.note));
    }
    item->setExpanded(true);
  }
}

}  // namespace kiln::viewers
