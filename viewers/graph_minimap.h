// GraphMinimap: an overview of the whole graph in a corner of the graph view (the one that hides
// the fewest nodes), with the part on screen as a rectangle; a click or a drag moves the view
// there. Shown only while the graph does not fit on screen. The scene is drawn into an image once
// per layout, when first shown (refresh() marks it stale); scrolling and zooming only repaint the
// rectangle.
#pragma once

#include <QImage>
#include <QWidget>

class QGraphicsView;

namespace kiln::viewers {

class GraphMinimap : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxWidth = 240;
  static constexpr int kMaxHeight = 200;

  explicit GraphMinimap(QGraphicsView* view);
  // Redraws the overview from the scene (after a new layout) and places the widget.
  void refresh();
  // The scene's look changed (an overlay's colours), not its layout: redraw the thumbnail.
  void refreshThumbnail();
  // Shows or hides the minimap as the view does or does not show the whole graph; repaints.
  void viewMoved();
  // The scene point under minimap position `p`, and back.
  QPointF toScene(QPointF p) const;
  QPointF fromScene(QPointF scenePoint) const;
  const QRectF& area() const { return area_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  void place();
  int nodesUnder(QRect r) const;  // graph nodes under `r`, a rectangle in the view's coordinates
  QGraphicsView* view_;
  QImage thumb_;
  QRectF area_;         // the scene rectangle the thumbnail shows
  double scale_ = 1;    // thumbnail pixels per scene unit
  bool stale_ = false;  // the thumbnail is drawn from the scene at the next paint
};

}  // namespace kiln::viewers
