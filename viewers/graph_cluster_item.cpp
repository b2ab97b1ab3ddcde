#include "viewers/graph_cluster_item.h"

#include <QPainter>

namespace kiln::viewers {

GraphClusterItem::GraphClusterItem(QString kernel, const QRectF& box, const QFont& font)
    : kernel_(std::move(kernel)), rect_(box), font_(font) {
  setZValue(0);
  setToolTip(QStringLiteral("kernel ") + kernel_);
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
  painter->setFont(font_);
  painter->setPen(fill.darker(300));
  painter->drawText(rect_.adjusted(8, 3, -8, -3), Qt::AlignLeft | Qt::AlignTop, kernel_);
}

}  // namespace kiln::viewers
