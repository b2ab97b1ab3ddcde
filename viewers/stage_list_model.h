// StageListModel: every stage and pass snapshot of a session in pipeline order, compile by
// compile ("[0/0] captured", "[0/0] aten", "[0/0] pass:cse", ..., "[1/0] captured").
// Passes that left the graph unchanged are dimmed; the tooltip lists the rules that fired.
// A compile that failed before it had stages (a break under fullgraph=True) gets one row of
// its own, "[0/0] failed: Data-dependent branching (line 18)" in red (stage id 0).
#pragma once

#include "storage/store.h"

#include <QAbstractListModel>

#include <map>
#include <string>
#include <vector>

namespace kiln::viewers {

class StageListModel : public QAbstractListModel {
  Q_OBJECT

 public:
  static constexpr int StageIdRole = Qt::UserRole + 1;
  static constexpr int CompileIdRole = Qt::UserRole + 2;

  explicit StageListModel(storage::Store& store, QObject* parent = nullptr);

  // Loads the stages of `sessionId` (0 empties the list). Throws storage::StoreError.
  void load(qint64 sessionId);
  // The same with the session's compiles read already (the window reads them once: a 200-layer
  // model's guards are 5 MB of JSON).
  void load(qint64 sessionId, const std::vector<storage::CompileRow>& compiles);
  qint64 sessionId() const { return sessionId_; }
  const storage::StageRow& stageAt(int row) const { return stages_.at(size_t(row)); }
  int rowOfStage(qint64 stageId) const;  // -1 when absent
  // The failed compile a row stands for (a row without a stage), else null.
  const storage::CompileRow* failureAt(int row) const;
  int failureCount() const { return int(failures_.size()); }
  // The stage to open first: the last one of the first compile (the graph it ends with).
  int defaultRow() const;
  static QString label(const storage::StageRow& stage);
  // The row the stage at `row` was stepped from, whose graph it is diffed against, else -1: the
  // nearest earlier stage of the same compile, the same piece ("submod_1: " of a DDP split,
  // "restarted attempt 1: ", or the compile itself) and the same direction (forward, or the
  // "backward:" stages). "backward:joint" and "backward:aten" start graphs of their own.
  int steppedFromRow(int row) const { return steppedFrom(stages_, row); }
  static int steppedFrom(const std::vector<storage::StageRow>& stages, int row);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  storage::Store& store_;
  qint64 sessionId_ = 0;
  std::vector<storage::StageRow> stages_;
  // Compiles that did not end well, by id: "failed: <message>", or how a restarted one
  // restarted. Their stages (and those of a restarted attempt) are drawn red.
  std::map<std::string, QString> troubled_;
  std::map<std::string, storage::CompileRow> failures_;  // failed compiles without stages, by id
};

}  // namespace kiln::viewers
