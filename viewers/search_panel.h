// SearchPanel: full-text search over every stored session (Store::search, SQLite FTS5) — scripts,
// frames, transformed code, stage IR, kernels and wrappers. Activating a hit asks the window to
// show that session (and stage, for a stage hit).
#pragma once

#include "storage/store.h"

#include <QWidget>

#include <vector>

class QLineEdit;
class QListWidget;
class QListWidgetItem;

namespace kiln::viewers {

class SearchPanel : public QWidget {
  Q_OBJECT

 public:
  explicit SearchPanel(storage::Store& store, QWidget* parent = nullptr);

  // Runs the query and lists its hits; returns how many there are.
  int search(const QString& text);
  int hitCount() const { return int(hits_.size()); }
  const storage::SearchHit& hitAt(int row) const { return hits_.at(size_t(row)); }
  void activate(int row);
  QLineEdit* field() const { return field_; }

 signals:
  // `stageId` is 0 unless the hit is in a stage's IR.
  void hitActivated(qint64 sessionId, qint64 stageId);

 private:
  storage::Store& store_;
  QLineEdit* field_;
  QListWidget* list_;
  std::vector<storage::SearchHit> hits_;
};

}  // namespace kiln::viewers
