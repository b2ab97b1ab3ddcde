// VerifyPanel: what kiln run --verify found for a session. One row per compiled graph checked
// against eager: agreed, or the first call that differed, the first output that differs and
// what the bisection blamed (a pass, a fusion decision, lowering or code generation), with
// every bisection trial under it. Empty sessions say how to turn verification on.
#pragma once

#include "engine/session/events.h"

#include <QTreeWidget>

#include <vector>

namespace kiln::viewers {

class VerifyPanel : public QTreeWidget {
  Q_OBJECT

 public:
  explicit VerifyPanel(QWidget* parent = nullptr);

  void setResults(const std::vector<session::VerifyEvent>& results);
  int mismatchCount() const { return mismatches_; }
  int checkedCount() const { return checked_; }

 private:
  int mismatches_ = 0;
  int checked_ = 0;
};

}  // namespace kiln::viewers
