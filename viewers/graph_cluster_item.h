// GraphClusterItem: a kernel of the fused stage, drawn as a tinted rectangle behind the nodes
// scheduled into it, with the kernel's name in its top-left corner. A name wider than the group
// (cpp_fused_add_mean_mul_rsqrt_sub_var_0 over one column of nodes) is drawn whole on a tab that
// runs past the group's right edge, not cut off.
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

  QRectF boundingRect() const override { return rect_.united(label_).adjusted(-1, -1, 1, 1); }
  // Where the name is drawn: inside the group, or a tab wider than it.
  const QRectF& labelRect() const { return label_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString kernel_;
  QRectF rect_;
  QRectF label_;
  QFont font_;
};

}  // namespace kiln::viewers
