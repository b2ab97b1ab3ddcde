// RuleStepsPanel: the Step tab's rule applications (issue 17, as tinygrad's VIZ steps its
// pattern matcher): for a rule-table pass (simplify, addmm folding, plugins' rule passes) the
// list of its rule applications in the order they fired; selecting one (a click, the Prev / Next
// buttons, or View > Next / Previous Rule Application) shows the rule's name, where it is
// defined, the affected subgraph before (root, consumed nodes and their direct inputs, from the
// pass's input graph) and its replacement after (from the pass's output graph). The studio marks
// the same nodes in the graph view (applicationSelected). Hidden for stages with none.
#pragma once

#include "engine/ir/graph.h"
#include "engine/session/events.h"
#include "engine/session/rule_steps.h"

#include <QWidget>

#include <vector>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace kiln::viewers {

class GraphView;

class RuleStepsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RuleStepsPanel(QWidget* parent = nullptr);

  // The applications of the stage shown; `before` is the pass's input graph (the stage before),
  // `after` its output. None: the panel is cleared and hidden. Selects nothing.
  void setApplications(std::vector<session::RuleApplication> apps, const ir::Graph& before, const ir::Graph& after);
  void clear();

  int count() const { return static_cast<int>(apps_.size()); }
  int current() const { return current_; }  // -1: none selected
  // Selects application `index` (clamped; -1 clears) and shows it.
  void select(int index);
  // Moves the selection by `delta` (from none: Next selects the first, Prev the last); false
  // when there is no application or the selection is at that end already.
  bool step(int delta);

  const session::RuleApplication* selected() const;
  const session::RuleStep& selectedStep() const { return step_; }
  QString header() const;  // "2 of 3 · x + 0 -> x · engine/passes/simplify.cpp, rule 9 of 12"
  QString beforeText() const;
  QString afterText() const;
  QListWidget* list() const { return list_; }
  const ir::Graph& beforeGraph() const { return before_; }

 signals:
  // Application `index` was selected (-1: the selection was cleared).
  void applicationSelected(int index);

 private:
  std::vector<session::RuleApplication> apps_;
  ir::Graph before_, after_;
  session::RuleStep step_;
  int current_ = -1;
  QListWidget* list_ = nullptr;
  QLabel* header_ = nullptr;
  QPushButton *prev_ = nullptr, *next_ = nullptr;
  QPlainTextEdit *beforeEdit_ = nullptr, *afterEdit_ = nullptr;
};

// Marks the selected application in `view` (which shows the pass's output graph): the nodes it
// added and the replacement as added, the matched nodes it removed as ghosts (as the Step marks
// a whole pass), and selects the replacement. Nothing selected: nothing is done.
void markApplication(const RuleStepsPanel& panel, GraphView& view);

}  // namespace kiln::viewers
