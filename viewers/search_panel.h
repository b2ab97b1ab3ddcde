// SearchPanel: full-text search over every stored session (Store::search, SQLite FTS5) — scripts,
// frames, transformed code, stage IR, kernels and wrappers. Activating a hit asks the window to
// show that session (and stage, for a stage hit). A hit says where it is as the studio names it
// ("#3 [0/1] pass:cse", "#3 frame forward", "#3 [0/1] wrapper"), not by row id ("stage 12"). The
// query and those names are read on a pool thread with a store connection of its own; a newer
// query makes an older one's results moot.
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

  // Starts the query; searchFinished(hits) reports when its hits are listed.
  void search(const QString& text);
  int hitCount() const { return int(hits_.size()); }
  const storage::SearchHit& hitAt(int row) const { return hits_.at(size_t(row)); }
  // Where hit `row` is: "[0/0] fused", "frame f", "[0/0] transformed code", "script"...
  const QString& hitPlace(int row) const { return places_.at(size_t(row)); }
  void activate(int row);
  QLineEdit* field() const { return field_; }

 signals:
  void searchFinished(int hits);
  // `stageId` is 0 unless the hit is in a stage's IR.
  void hitActivated(qint64 sessionId, qint64 stageId);

 private:
  storage::Store& store_;
  QLineEdit* field_;
  QListWidget* list_;
  std::vector<storage::SearchHit> hits_;
  std::vector<QString> places_;  // per hit, where it is
  quint64 generation_ = 0;       // the newest query; older results are dropped
  void showHits(const QString& text, std::vector<storage::SearchHit> hits, std::vector<QString> places, const QString& error);
};

}  // namespace kiln::viewers
