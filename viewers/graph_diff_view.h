// GraphDiffView: two stages side by side, the same compile and stage of two sessions (A left,
// B right). Nodes are matched by name (ir::diffGraphs), or, for graphs of two compilers (an
// imported PyTorch run's captured graph against Kiln's), by provenance: op and source line,
// order breaking ties (ir::pairGraphs). On the right, nodes B added (or only B has) are green and
// nodes it changed (paired nodes that differ) amber; on the left, nodes B no longer has are red
// (dashed) and changed ones amber. Selecting a node on one side selects its partner on the other
// and scrolls to it. Each side lays out on its own worker thread.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ir/graph_pairing.h"

#include <map>

#include <QWidget>

class QLabel;

namespace kiln::viewers {

class GraphView;

class GraphDiffView : public QWidget {
  Q_OBJECT

 public:
  explicit GraphDiffView(QWidget* parent = nullptr);

  enum class Match { ByName, ByProvenance };
  void showPair(const ir::Graph& a, const QString& titleA, const ir::Graph& b, const QString& titleB, Match match = Match::ByName);
  GraphView* before() const { return before_; }
  GraphView* after() const { return after_; }
  Match match() const { return match_; }
  // The provenance pairing shown (empty with Match::ByName).
  const ir::GraphPairing& pairing() const { return pairing_; }
  // The node paired with node `id` of one side (same name with Match::ByName); -1 when none.
  int partnerInAfter(int beforeId) const;
  int partnerInBefore(int afterId) const;
  // "12 paired (1 differ), 0 only in A, 2 only in B" for the provenance pairing.
  QString pairingSummary() const;
  // The summary, then each paired node that differs and each node only one side has.
  QString pairingReport() const;

 private:
  void selectPartner(GraphView* from, GraphView* to, int id);

  QLabel* titleA_;
  QLabel* titleB_;
  GraphView* before_;
  GraphView* after_;
  Match match_ = Match::ByName;
  ir::GraphPairing pairing_;
  std::map<int, int> beforeToAfter_, afterToBefore_;
  bool syncing_ = false;  // a partner being selected: its own signal is not echoed back
};

}  // namespace kiln::viewers
