#include "viewers/graph_minimap.h"

#include "viewers/graph_node_item.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace kiln::viewers {

namespace {
constexpr int kFrame = 1;  // border around the thumbnail
}

GraphMinimap::GraphMinimap(QGraphicsView* view) : QWidget(view), view_(view) {
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view"));
  hide();
}

void GraphMinimap::refresh() {
  area_ = view_->scene() ? view_->scene()->itemsBoundingRect() : QRectF();
  if (area_.isEmpty()) {
    thumb_ = {};
    hide();
    return;
  }
  scale_ = std::min(kMaxWidth / area_.width(), kMaxHeight / area_.height());
  // A long thin graph still gets a thumbnail wide enough to click in.
  const QSize size(std::max(40, int(area_.width() * scale_)), std::max(40, int(area_.height() * scale_)));
  thumb_ = QImage(size, QImage::Format_ARGB32_Premultiplied);
  stale_ = true;  // drawn when first shown: a graph that fits never pays for it
  resize(size + QSize(2 * kFrame, 2 * kFrame));
  place();
  viewMoved();
}

void GraphMinimap::refreshThumbnail() {
  if (thumb_.isNull()) return;
  stale_ = true;
  update();
}

int GraphMinimap::nodesUnder(QRect r) const {
  // In viewport coordinates: the minimap's parent is the view, whose viewport is inset by the frame.
  const QRect vp = view_->viewport()->geometry();
  const QRectF covered = view_->mapToScene(r.translated(-vp.topLeft())).boundingRect();
  int n = 0;
  for (const QGraphicsItem* item : view_->scene()->items(covered, Qt::IntersectsItemBoundingRect)) n += item->type() == GraphNodeItem::Type;
  return n;
}

void GraphMinimap::place() {
  // A corner of the view, the one that hides the fewest nodes: bottom-right first, and the corner
  // it is in while no other hides fewer (it does not hop as the view scrolls). Scrolled to the
  // far right of a wide graph, the rightmost column would otherwise sit under it for good.
  const QRect vp = view_->viewport()->geometry();
  const int left = vp.left() + 8, right = vp.right() - width() - 8;
  const int top = vp.top() + 8, bottom = vp.bottom() - height() - 8;
  const QPoint corners[] = {{right, bottom}, {left, bottom}, {right, top}, {left, top}};
  if (!view_->scene()) return move(corners[0]);
  QPoint best = pos();
  if (std::find(std::begin(corners), std::end(corners), best) == std::end(corners)) best = corners[0];
  int fewest = nodesUnder(QRect(best, size()));
  for (const QPoint& c : corners) {
    if (fewest == 0) break;
    if (const int n = nodesUnder(QRect(c, size())); n < fewest) fewest = n, best = c;
  }
  move(best);
}

QPointF GraphMinimap::toScene(QPointF p) const {
  const QPointF offset((thumb_.width() - area_.width() * scale_) / 2 + kFrame, (thumb_.height() - area_.height() * scale_) / 2 + kFrame);
  return area_.topLeft() + (p - offset) / scale_;
}

QPointF GraphMinimap::fromScene(QPointF s) const {
  const QPointF offset((thumb_.width() - area_.width() * scale_) / 2 + kFrame, (thumb_.height() - area_.height() * scale_) / 2 + kFrame);
  return offset + (s - area_.topLeft()) * scale_;
}

void GraphMinimap::viewMoved() {
  if (thumb_.isNull()) return hide();
  const QRectF seen = view_->mapToScene(view_->viewport()->rect()).boundingRect();
  const bool whole = seen.contains(area_);
  setVisible(!whole);
  if (!whole) {
    place();
    raise();
    update();
  }
}

void GraphMinimap::paintEvent(QPaintEvent*) {
  if (stale_) {
    stale_ = false;
    thumb_.fill(QColor(0xff, 0xff, 0xff, 235));
    QPainter t(&thumb_);
    // Centred in the thumbnail when one side was widened to the minimum.
    const QRectF target((thumb_.width() - area_.width() * scale_) / 2, (thumb_.height() - area_.height() * scale_) / 2,
                        area_.width() * scale_, area_.height() * scale_);
    view_->scene()->render(&t, target, area_);
  }
  QPainter p(this);
  p.setPen(QColor(0x80, 0x86, 0x90));
  p.setBrush(Qt::NoBrush);
  p.drawImage(kFrame, kFrame, thumb_);
  p.drawRect(rect().adjusted(0, 0, -1, -1));
  const QRectF seen = view_->mapToScene(view_->viewport()->rect()).boundingRect();
  QRectF box(fromScene(seen.topLeft()), fromScene(seen.bottomRight()));
  box = box.intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
  p.setPen(QPen(QColor(0x1f, 0x6f, 0xd0), 1.5));
  p.setBrush(QColor(0x1f, 0x6f, 0xd0, 40));
  // At least a few pixels, so the spot stays visible on a huge graph.
  if (box.width() < 4) box.adjust(-2, 0, 2, 0);
  if (box.height() < 4) box.adjust(0, -2, 0, 2);
  p.drawRect(box);
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) {
  view_->centerOn(toScene(event->position()));
  viewMoved();
  event->accept();
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) mousePressEvent(event);
}

}  // namespace kiln::viewers
