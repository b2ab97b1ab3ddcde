// BreaksPanel: every graph break and every recompile of a session in one list, as tlparse and
// Dynamo's logs report them but clickable: a break shows its code, title, explanation, hints and
// user stack; a recompile its compile id and the failing guard of each cache entry. Activating
// an entry asks the window to show its source line.
#pragma once

#include "storage/store.h"

#include <QTreeWidget>

#include <vector>

namespace kiln::viewers {

class BreaksPanel : public QTreeWidget {
  Q_OBJECT

 public:
  explicit BreaksPanel(QWidget* parent = nullptr);

  void setSession(const std::vector<session::GraphBreakEvent>& breaks, const std::vector<session::RecompileEvent>& recompiles);
  int breakCount() const;
  int recompileCount() const;

 signals:
  void lineActivated(int line);
};

}  // namespace kiln::viewers
