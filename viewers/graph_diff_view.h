// GraphDiffView: two stages side by side, the same compile and stage of two sessions (A left,
// B right). Nodes are matched by name (ir::diffGraphs): on the right, nodes B added are green
// and nodes it changed amber; on the left, nodes B no longer has are red (dashed) and changed
// ones amber. Each side lays out on its own worker thread.
#pragma once

#include "engine/ir/graph.h"

#include <QWidget>

class QLabel;

namespace kiln::viewers {

class GraphView;

class GraphDiffView : public QWidget {
  Q_OBJECT

 public:
  explicit GraphDiffView(QWidget* parent = nullptr);

  void showPair(const ir::Graph& a, const QString& titleA, const ir::Graph& b, const QString& titleB);
  GraphView* before() const { return before_; }
  GraphView* after() const { return after_; }

 private:
  QLabel* titleA_;
  QLabel* titleB_;
  GraphView* before_;
  GraphView* after_;
};

}  // namespace kiln::viewers
