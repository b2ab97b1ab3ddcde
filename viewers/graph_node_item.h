// GraphNodeItem: one IR node in the graph view, a rounded box with its label lines (name,
// op target, type). Selectable; "highlighted" marks nodes that come from the selected
// source line; a change mark (green: added by the step into this stage, amber: changed, red:
// gone in the graph compared with) is drawn as a thick border.
#pragma once

#include "viewers/graph_layout.h"

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

  enum class Change { None, Added, Changed, Removed };
  Change change() const { return change_; }
  void setChange(Change c);

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  LayoutNode node_;
  QFont font_;
  double lineHeight_;
  QRectF rect_;  // local coordinates: (0, 0) is the box's top-left corner
  bool highlighted_ = false;
  Change change_ = Change::None;
};

}  // namespace kiln::viewers
