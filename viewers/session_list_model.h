// SessionListModel: the sessions of a store, newest first, one row each (name, status,
// started, graphs, breaks, recompiles). Reads Store::sessions() on refresh() only.
#pragma once

#include "storage/store.h"

#include <QAbstractTableModel>

#include <vector>

namespace kiln::viewers {

class SessionListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Name, Status, Started, Graphs, Breaks, Recompiles, ColumnCount };
  static constexpr int SessionIdRole = Qt::UserRole + 1;

  explicit SessionListModel(storage::Store& store, QObject* parent = nullptr);

  // Re-reads the store. Throws storage::StoreError when the store cannot be read.
  void refresh();
  int rowOf(qint64 sessionId) const;  // -1 when absent
  qint64 sessionIdAt(int row) const;
  const storage::SessionSummary& summaryAt(int row) const { return sessions_.at(size_t(row)); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  storage::Store& store_;
  std::vector<storage::SessionSummary> sessions_;
};

}  // namespace kiln::viewers
