#include "viewers/graph_node_item.h"

#include "viewers/line_colour.h"
#include "viewers/op_colour.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace kiln::viewers {

GraphNodeItem::GraphNodeItem(const LayoutNode& node, const QFont& font, double lineHeight)
    : node_(node), font_(font), lineHeight_(lineHeight), rect_(QPointF(0, 0), node.box.size()) {
  setPos(node.box.topLeft());
  setFlag(ItemIsSelectable);
  setZValue(2);
  tooltip_ = node.lines.join(QLatin1Char('\n')) + (node.sourceLine > 0 ? QStringLiteral("\nline %1").arg(node.sourceLine) : QString()) +
             (node.kernel.isEmpty() ? QString() : QStringLiteral("\nkernel ") + node.kernel);
  setToolTip(tooltip_);
}

void GraphNodeItem::setOverlay(const QColor& fill, const QString& note) {
  setToolTip(note.isEmpty() ? tooltip_ : tooltip_ + QLatin1Char('\n') + note);
  if (overlayFill_ == fill) return;
  overlayFill_ = fill;
  update();
}

void GraphNodeItem::setHighlighted(bool on) {
  if (highlighted_ == on) return;
  highlighted_ = on;
  update();
}

void GraphNodeItem::setHoverLine(int line) {
  if (hoverLine_ == line) return;
  hoverLine_ = line;
  update();
}

void GraphNodeItem::setChange(Change c) {
  if (change_ == c) return;
  change_ = c;
  update();
}

void GraphNodeItem::setRollup(const Rollup& r) {
  if (rollup_ == r) return;
  prepareGeometryChange();  // the badge above the box comes and goes
  rollup_ = r;
  update();
}

QString GraphNodeItem::rollupText() const {
  QStringList parts;
  if (rollup_.added) parts << QStringLiteral("%1 added").arg(rollup_.added);
  if (rollup_.changed) parts << QStringLiteral("%1 changed").arg(rollup_.changed);
  if (rollup_.removed) parts << QStringLiteral("%1 removed").arg(rollup_.removed);
  if (rollup_.tinted) parts << QStringLiteral("%1 from line %2").arg(rollup_.tinted).arg(rollup_.tintLine);
  return parts.join(QStringLiteral(", "));
}

QRectF GraphNodeItem::boundingRect() const {
  // The roll-up badge sits on the box's top edge and may be wider than the box.
  const double badge = rollupText().isEmpty() ? 0 : lineHeight_;
  const double wide = rollupText().isEmpty() ? 0 : std::max(0.0, rollupText().size() * lineHeight_ * 0.62 - rect_.width()) + 4;
  return rect_.adjusted(-2 - wide, -2 - badge, 2, 2);
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const bool selected = isSelected();
  painter->setRenderHint(QPainter::Antialiasing);
  // The strongest mark of a box's contents: added, then removed, then changed.
  Change shown = change_;
  if (shown == Change::None) {
    if (rollup_.added) shown = Change::Added;
    else if (rollup_.removed) shown = Change::Removed;
    else if (rollup_.changed) shown = Change::Changed;
  }
  QPen pen(QColor(0x55, 0x5a, 0x64), 1.0);
  if (shown == Change::Added) pen = QPen(QColor(0x2e, 0x9e, 0x4f), 3.0);
  if (shown == Change::Changed) pen = QPen(QColor(0xe0, 0x8e, 0x0b), 3.0);
  if (shown == Change::Removed) pen = QPen(QColor(0xd9, 0x48, 0x3b), 3.0, Qt::DashLine);
  // Under an overlay the fill is the overlay's: the source line's tint moves to the border.
  const bool overlaid = overlayFill_.isValid();
  const int tintLine = rollup_.tinted ? rollup_.tintLine : highlighted_ ? node_.sourceLine : 0;
  if (overlaid && tintLine > 0 && shown == Change::None) pen = QPen(lineColour(tintLine).darker(150), 4.0);
  if (hoverLine_ > 0) pen = QPen(lineColour(hoverLine_).darker(190), 4.0);
  if (selected) pen = QPen(QColor(0x1f, 0x6f, 0xd0), 3.0);
  painter->setPen(pen);
  const bool labels = drawsLabels(option->levelOfDetailFromTransform(painter->worldTransform()));
  QColor fill = labels ? QColor(0xfd, 0xfd, 0xfd) : opKindColour(node_.lines.value(1));
  if (overlaid) fill = overlayFill_;
  else if (tintLine > 0) fill = lineColour(tintLine);
  if (hoverLine_ > 0) fill = lineColour(hoverLine_);  // what is hovered shows whatever else is painted
  painter->setBrush(fill);
  if (!labels) {  // zoomed out: a box coloured by op kind, no text to smear
    painter->setPen(shown == Change::None && !selected && !(overlaid && tintLine > 0) && hoverLine_ == 0 ? Qt::NoPen : pen);
    painter->drawRect(rect_);
    return;
  }
  painter->drawRoundedRect(rect_, 6, 6);
  if (const QString badge = rollupText(); !badge.isEmpty()) {
    QFont f = font_;
    f.setBold(true);
    painter->setFont(f);
    const double w = painter->fontMetrics().horizontalAdvance(badge) + 10;
    const QRectF pill(rect_.right() - w, rect_.top() - lineHeight_ * 0.9, w, lineHeight_);
    painter->setPen(Qt::NoPen);
    painter->setBrush(pen.color() == QColor(0x55, 0x5a, 0x64) ? QColor(0x6a, 0x6f, 0x78) : pen.color());
    painter->drawRoundedRect(pill, lineHeight_ / 2, lineHeight_ / 2);
    painter->setPen(Qt::white);
    painter->drawText(pill, Qt::AlignCenter, badge);
  }

  // The layout sized the box as the label lines plus padding: centre the lines in it.
  const double top = (rect_.height() - lineHeight_ * node_.lines.size()) / 2;
  QRectF line(rect_.left() + 4, rect_.top() + top, rect_.width() - 8, lineHeight_);
  for (int i = 0; i < node_.lines.size(); ++i) {
    QFont f = font_;
    f.setBold(i == 0);
    painter->setFont(f);
    // On a strong overlay colour the grey type line would fade: it takes the label's colour.
    painter->setPen(i == 2 && !overlaid ? QColor(0x6a, 0x6f, 0x78) : QColor(0x20, 0x22, 0x26));
    painter->drawText(line, Qt::AlignCenter, node_.lines[i]);
    line.translate(0, lineHeight_);
  }
}

GhostNodeItem::GhostNodeItem(const LayoutNode& node, const QFont& font, double lineHeight) : GraphNodeItem(node, font, lineHeight) {
  setFlag(ItemIsSelectable, false);
  setOpacity(0.45);
  setZValue(1.5);
  setChange(Change::Removed);
  setToolTip(QStringLiteral("removed by this step: ") + node.name);
}

}  // namespace kiln::viewers
