// GraphNodeItem: one IR node in the graph view, a rounded box with its label lines (name,
// op target, type). Selectable; "highlighted" marks nodes that come from the selected
// source line; a change mark (green: added by the step into this stage, amber: changed, red:
// gone in the graph compared with) is drawn as a thick border. Zoomed out so far that a label
// line would be under kMinLabelPixels tall, the box is filled with its op kind's colour and
// drawn without text (level of detail). A folded module box carries a roll-up of what it holds:
// "3 added, 5 changed" in a badge, its border the strongest change inside, its fill the source
// line's tint when some of its nodes come from the line shown.
#pragma once

#include "viewers/graph_layout.h"
#include "viewers/graph_rollup.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>

namespace kiln::viewers {

class GraphNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };

  GraphNodeItem(const LayoutNode& node, const QFont& font, double lineHeight);

  int type() const override { return Type; }
  int nodeId() const { return node_.id; }
  const QString& name() const { return node_.name; }
  const QString& kernel() const { return node_.kernel; }
  int sourceLine() const { return node_.sourceLine; }
  const QStringList& labelLines() const { return node_.lines; }

  bool highlighted() const { return highlighted_; }
  void setHighlighted(bool on);

  // Hovered from another pane (or itself): source line `line`'s colour with a strong outline in
  // it, over any other mark but the selection; 0 clears.
  int hoverLine() const { return hoverLine_; }
  void setHoverLine(int line);

  enum class Change { None, Added, Changed, Removed };
  Change change() const { return change_; }
  void setChange(Change c);

  // A folded module box: how many of its nodes were added / changed / removed by the step, and
  // how many come from the highlighted source line (tinted with that line's colour).
  using Rollup = ModuleRollup;
  const Rollup& rollup() const { return rollup_; }
  void setRollup(const Rollup& r);
  QString rollupText() const;  // "3 added, 5 changed" ("" when nothing)

  // An overlay's fill (graph_overlay.h; an invalid colour: none) and its line in the tooltip.
  // It replaces the plain fill and, zoomed out, the op kind's; the source-line tint still wins.
  void setOverlay(const QColor& fill, const QString& note);
  const QColor& overlayFill() const { return overlayFill_; }

  // Below this many pixels per label line, labels are not drawn (boxes by op kind instead).
  static constexpr double kMinLabelPixels = 5.0;
  bool drawsLabels(double levelOfDetail) const { return lineHeight_ * levelOfDetail >= kMinLabelPixels; }

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  LayoutNode node_;
  QFont font_;
  double lineHeight_;
  QRectF rect_;  // local coordinates: (0, 0) is the box's top-left corner
  bool highlighted_ = false;
  int hoverLine_ = 0;
  Change change_ = Change::None;
  Rollup rollup_;
  QColor overlayFill_;
  QString tooltip_;  // without the overlay's note
};

// A node the step removed, drawn faded and dashed where it stood in the compile's layout frame
// (a ghost): not selectable, not one of GraphView::nodeItems().
class GhostNodeItem : public GraphNodeItem {
 public:
  enum { Type = UserType + 3 };
  GhostNodeItem(const LayoutNode& node, const QFont& font, double lineHeight);
  int type() const override { return Type; }
};

}  // namespace kiln::viewers
