#include "viewers/graph_node_item.h"

#include "viewers/line_colour.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace kiln::viewers {

GraphNodeItem::GraphNodeItem(const LayoutNode& node, const QFont& font, double lineHeight)
    : node_(node), font_(font), lineHeight_(lineHeight), rect_(QPointF(0, 0), node.box.size()) {
  setPos(node.box.topLeft());
  setFlag(ItemIsSelectable);
  setZValue(2);
  setToolTip(node.lines.join(QLatin1Char('\n')) +
             (node.sourceLine > 0 ? QStringLiteral("\nline %1").arg(node.sourceLine) : QString()) +
             (node.kernel.isEmpty() ? QString() : QStringLiteral("\nkernel ") + node.kernel));
}

void GraphNodeItem::setHighlighted(bool on) {
  if (highlighted_ == on) return;
  highlighted_ = on;
  update();
}

void GraphNodeItem::setChange(Change c) {
  if (change_ == c) return;
  change_ = c;
  update();
}

QRectF GraphNodeItem::boundingRect() const { return rect_.adjusted(-2, -2, 2, 2); }

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const bool selected = isSelected();
  painter->setRenderHint(QPainter::Antialiasing);
  QPen pen(QColor(0x55, 0x5a, 0x64), 1.0);
  if (change_ == Change::Added) pen = QPen(QColor(0x2e, 0x9e, 0x4f), 3.0);
  if (change_ == Change::Changed) pen = QPen(QColor(0xe0, 0x8e, 0x0b), 3.0);
  if (change_ == Change::Removed) pen = QPen(QColor(0xd9, 0x48, 0x3b), 3.0, Qt::DashLine);
  if (selected) pen = QPen(QColor(0x1f, 0x6f, 0xd0), 3.0);
  painter->setPen(pen);
  painter->setBrush(highlighted_ ? lineColour(node_.sourceLine) : QColor(0xfd, 0xfd, 0xfd));
  painter->drawRoundedRect(rect_, 6, 6);

  // The layout sized the box as the label lines plus padding: centre the lines in it.
  const double top = (rect_.height() - lineHeight_ * node_.lines.size()) / 2;
  QRectF line(rect_.left() + 4, rect_.top() + top, rect_.width() - 8, lineHeight_);
  for (int i = 0; i < node_.lines.size(); ++i) {
    QFont f = font_;
    f.setBold(i == 0);
    painter->setFont(f);
    painter->setPen(i == 2 ? QColor(0x6a, 0x6f, 0x78) : QColor(0x20, 0x22, 0x26));
    painter->drawText(line, Qt::AlignCenter, node_.lines[i]);
    line.translate(0, lineHeight_);
  }
}

}  // namespace kiln::viewers
