// FramesPanel: the tree of compiled frames and their compile ids, as Dynamo numbers them:
// frame 0 `forward` -> [0/0], [0/1] (a recompile, with the failing guard of each older cache
// entry), frame 1 `torch_dynamo_resume_in_forward_at_12` -> [1/0] ... Each compile shows its
// backend, status, guard count and first stage; activating it asks the window to show that
// compile's fused stage (its guards and transformed code are in the Capture tab).
#pragma once

#include "storage/store.h"

#include <QTreeWidget>

#include <vector>

namespace kiln::viewers {

class FramesPanel : public QTreeWidget {
  Q_OBJECT

 public:
  explicit FramesPanel(QWidget* parent = nullptr);

  void setSession(const std::vector<storage::FrameRow>& frames, const std::vector<storage::CompileRow>& compiles,
                  const std::vector<session::RecompileEvent>& recompiles);

 signals:
  void compileActivated(const QString& compileId);
};

}  // namespace kiln::viewers
