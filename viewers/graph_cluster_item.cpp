#include "viewers/graph_cluster_item.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace kiln::viewers {

GraphClusterItem::GraphClusterItem(QString kernel, const QRectF& box, const QFont& font)
    : kernel_(std::move(kernel)), rect_(box), font_(font) {
  setZValue(0);
  setToolTip(QStringLiteral("kernel ") + kernel_);
  const QFontMetricsF fm(font_);
  label_ = QRectF(rect_.left(), rect_.top(), std::max(rect_.width(), fm.horizontalAdvance(kernel_) + 16), fm.lineSpacing() + 6);
}

QColor GraphClusterItem::tint(const QString& kernel) {
  // FNV-1a rather than qHash: qHash may differ between processes, colours must not.
  quint32 h = 2166136261u;
  for (QChar c : kernel) h = (h ^ c.unicode()) * 16777619u;
  const int hue = int(h % 360);
  return QColor::fromHsv(hue, 60, 245);
}

void GraphClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const QColor fill = tint(kernel_);
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setPen(QPen(fill.darker(150), 1.2, Qt::DashLine));
  painter->setBrush(fill);
  painter->drawRoundedRect(rect_, 8, 8);
  if (label_.width() > rect_.width()) {  // the name's tab, past the right edge
    painter->setPen(QPen(fill.darker(150), 1.2));
    painter->drawRoundedRect(label_, 6, 6);
  }
  painter->setFont(font_);
  painter->setPen(fill.darker(300));
  painter->drawText(label_.adjusted(8, 3, -8, -3), Qt::AlignLeft | Qt::AlignTop, kernel_);
}

}  // namespace kiln::viewers
