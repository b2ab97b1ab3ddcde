// BreaksPanel: every graph break and every recompile of a session in one list, as tlparse and
// Dynamo's logs report them but clickable: a break shows its code, title, explanation, hints and
// user stack; a recompile its compile id and the failing guard of each cache entry. Activating
// an entry asks the window to show its source line. Failed compiles come last, in red. Long
// explanations wrap in the Detail column rather than being cut to "…".
#pragma once

#include "storage/store.h"

#include <QTreeWidget>

#include <vector>

namespace kiln::viewers {

class BreaksPanel : public QTreeWidget {
  Q_OBJECT

 public:
  explicit BreaksPanel(QWidget* parent = nullptr);

  // `compiles`: the session's compiles; those that failed (a break under fullgraph=True, a
  // backend error) are listed in a third group, in red, with their line and explanation.
  void setSession(const std::vector<session::GraphBreakEvent>& breaks, const std::vector<session::RecompileEvent>& recompiles,
                  const std::vector<storage::CompileRow>& compiles = {});
  int breakCount() const;
  int recompileCount() const;
  int failedCount() const;

 signals:
  void lineActivated(int line);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void fitColumns();
};

}  // namespace kiln::viewers
