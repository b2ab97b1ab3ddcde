// GraphClusterItem: a kernel of the fused stage, drawn as a tinted rectangle behind the nodes
// scheduled into it, with the kernel's name in its top-left corner.
#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>

namespace kiln::viewers {

class GraphClusterItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };

  GraphClusterItem(QString kernel, const QRectF& box, const QFont& font);

  int type() const override { return Type; }
  const QString& kernelName() const { return kernel_; }
  // A stable tint per kernel name, so a kernel keeps its colour from stage to stage.
  static QColor tint(const QString& kernel);

  QRectF boundingRect() const override { return rect_.adjusted(-1, -1, 1, 1); }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString kernel_;
  QRectF rect_;
  QFont font_;
};

}  // namespace kiln::viewers
