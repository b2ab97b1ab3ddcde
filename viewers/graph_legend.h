// GraphLegend: the legend always shown as a strip along the top of the graph view (above its
// viewport, so it never covers a node). Its chooser picks the overlay painted on the nodes
// (None, Kernel, Kernel time, Bytes moved, Dtype, Shape change: graph_overlay.h); below it, what
// the colours mean: the overlay's swatches and, when the session has no data for it, why not;
// with no overlay, the view's own colours (the step's added / changed / removed marks, the
// selection, the source-line tint, op kinds when zoomed out). A toggle folds it to the chooser.
#pragma once

#include "viewers/graph_overlay.h"

#include <QFrame>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QToolButton;

namespace kiln::viewers {

class GraphLegend : public QFrame {
  Q_OBJECT

 public:
  explicit GraphLegend(QWidget* parent);

  Overlay overlay() const;
  void setOverlay(Overlay mode);  // as a choice in the chooser does (emits overlayChosen)
  // What the chosen overlay painted (its swatches, or why nothing).
  void showPaint(const OverlayPaint& paint);
  // The legend's text as shown (title, entries, message), for tests and screen readers.
  QString text() const;
  QComboBox* chooser() const { return chooser_; }
  bool folded() const;
  void setFolded(bool folded);
  // The strip's height at `width` (its text wraps).
  int heightFor(int width) const;
  // Puts `widget` in the chooser's row, taking the room right of it (the view's breadcrumbs).
  void addToTopRow(QWidget* widget);

 signals:
  void overlayChosen(Overlay mode);
  void resized();  // its content changed height: the owner places it again

 private:
  void fit();
  QComboBox* chooser_;
  QToolButton* fold_;
  QHBoxLayout* top_ = nullptr;
  QLabel* body_;
};

}  // namespace kiln::viewers
