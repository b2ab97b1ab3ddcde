// AutotunePanel: what mode="max-autotune" measured (driver/autotune.h). One row per matrix
// product of a compiled graph, with the implementation the graph runs; under it every
// implementation that was tried, its median time, how much slower than the fastest it was, or
// why it did not apply. Sessions compiled without max-autotune say how to get one.
#pragma once

#include "engine/session/events.h"

#include <QTreeWidget>

#include <vector>

namespace kiln::viewers {

class AutotunePanel : public QTreeWidget {
  Q_OBJECT

 public:
  explicit AutotunePanel(QWidget* parent = nullptr);

  void setChoices(const std::vector<session::AutotuneEvent>& choices);
  int productCount() const { return products_; }

 private:
  int products_ = 0;
};

}  // namespace kiln::viewers
