#include "viewers/breaks_panel.h"

#include <QColor>
#include <QHeaderView>
#include <QResizeEvent>
#include <QStyledItemDelegate>

#include <algorithm>
#include <climits>

namespace kiln::viewers {

namespace {

constexpr int kLineRole = Qt::UserRole + 1;

QString qs(const std::string& s) { return QString::fromStdString(s); }

constexpr int kDetail = 2;

// Explanations ("Detected data-dependent branching (e.g. ...)") wrap in the Detail column
// instead of ending in "…": QTreeView asks for a row's height without the column's width, so
// this delegate measures the wrapped text at the width the header gives the column.
class WrappingDelegate : public QStyledItemDelegate {
 public:
  explicit WrappingDelegate(QTreeView* view) : QStyledItemDelegate(view), view_(view) {}
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    if (index.column() != kDetail) return size;
    const int width = view_->header()->sectionSize(kDetail) - 8;  // the item's text margins
    if (width <= 0) return size;
    const QRect text = option.fontMetrics.boundingRect(QRect(0, 0, width, INT_MAX), Qt::TextWordWrap, index.data().toString());
    return QSize(size.width(), std::max(size.height(), text.height() + 4));
  }

 private:
  QTreeView* view_;
};

}  // namespace

BreaksPanel::BreaksPanel(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({tr("What"), tr("Line"), tr("Detail")});
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);  // a line number, not 100 px of it
  setRootIsDecorated(true);
  setWordWrap(true);
  setItemDelegate(new WrappingDelegate(this));
  // A narrower or wider Detail column changes how many lines each explanation takes.
  connect(header(), &QHeaderView::sectionResized, this, [this](int section) {
    if (section == kDetail) scheduleDelayedItemsLayout();
  });
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    const int line = item->data(0, kLineRole).toInt();
    if (line > 0) emit lineActivated(line);
  });
  setSession({}, {});
}

void BreaksPanel::setSession(const std::vector<session::GraphBreakEvent>& breaks, const std::vector<session::RecompileEvent>& recompiles,
                             const std::vector<storage::CompileRow>& compiles) {
  clear();
  auto* b = new QTreeWidgetItem(this, {tr("Graph breaks (%1)").arg(breaks.size())});
  for (const auto& e : breaks) {
    auto* item = new QTreeWidgetItem(b, {QStringLiteral("[%1] %2 %3").arg(qs(e.compileId), qs(e.code), qs(e.title)),
                                         e.line > 0 ? QString::number(e.line) : QString(), qs(e.explanation)});
    item->setData(0, kLineRole, e.line);
    QStringList tip{qs(e.title), qs(e.explanation)};
    for (const auto& h : e.hints) {
      tip << QStringLiteral("hint: ") + qs(h);
      new QTreeWidgetItem(item, {tr("hint"), QString(), qs(h)});
    }
    for (const auto& f : e.userStack) {
      auto* frame = new QTreeWidgetItem(item, {tr("called from"), QString::number(f.line),
                                               f.code.empty() ? QStringLiteral("in %1").arg(qs(f.function))
                                                              : QStringLiteral("%1 in %2").arg(qs(f.code), qs(f.function))});
      frame->setData(0, kLineRole, f.line);
    }
    item->setToolTip(0, tip.join(QLatin1Char('\n')));
    item->setToolTip(2, tip.join(QLatin1Char('\n')));
  }
  auto* r = new QTreeWidgetItem(this, {tr("Recompiles (%1)").arg(recompiles.size())});
  for (const auto& e : recompiles) {
    auto* item = new QTreeWidgetItem(r, {QStringLiteral("[%1] recompiled").arg(qs(e.compileId))});
    int first = 0;
    for (size_t i = 0; i < e.reasons.size(); ++i) {
      const int line = i < e.lines.size() ? e.lines[i] : 0;
      auto* why = new QTreeWidgetItem(item, {tr("guard failed"), line > 0 ? QString::number(line) : QString(), qs(e.reasons[i])});
      why->setData(0, kLineRole, line);
      if (!first) first = line;
    }
    item->setData(0, kLineRole, first);
    if (!e.reasons.empty()) item->setText(2, qs(e.reasons.front()));
  }
  int failed = 0;
  for (const auto& c : compiles) failed += c.status == "failed";
  if (failed > 0) {
    const QColor red(0xc0, 0x39, 0x2b);
    auto* f = new QTreeWidgetItem(this, {tr("Failed compiles (%1)").arg(failed)});
    f->setForeground(0, red);
    for (const auto& c : compiles) {
      if (c.status != "failed") continue;
      auto* item = new QTreeWidgetItem(f, {QStringLiteral("[%1] failed: %2").arg(qs(c.compileId), qs(c.message)),
                                           c.line > 0 ? QString::number(c.line) : QString(), qs(c.detail)});
      item->setForeground(0, red);
      item->setData(0, kLineRole, c.line);
      item->setToolTip(0, qs(c.message + (c.detail.empty() ? "" : "\n" + c.detail)));
    }
  }
  expandAll();
  fitColumns();
}

// What takes its contents' width, up to 45% of the panel, so Detail keeps room to wrap in.
void BreaksPanel::fitColumns() {
  header()->resizeSection(0, std::min(sizeHintForColumn(0), std::max(120, viewport()->width() * 45 / 100)));
}

void BreaksPanel::resizeEvent(QResizeEvent* event) {
  QTreeWidget::resizeEvent(event);
  fitColumns();
}

int BreaksPanel::breakCount() const { return topLevelItem(0) ? topLevelItem(0)->childCount() : 0; }
int BreaksPanel::recompileCount() const { return topLevelItem(1) ? topLevelItem(1)->childCount() : 0; }
int BreaksPanel::failedCount() const { return topLevelItem(2) ? topLevelItem(2)->childCount() : 0; }

}  // namespace kiln::viewers
