#include "viewers/session_list_model.h"

#include <QColor>
#include <QDateTime>

namespace kiln::viewers {

SessionListModel::SessionListModel(storage::Store& store, QObject* parent) : QAbstractTableModel(parent), store_(store) {}

void SessionListModel::refresh() {
  auto fresh = store_.sessions();  // read first: a throwing store leaves the model as it was
  beginResetModel();
  sessions_ = std::move(fresh);
  endResetModel();
}

int SessionListModel::rowOf(qint64 sessionId) const {
  for (size_t i = 0; i < sessions_.size(); ++i)
    if (sessions_[i].id == sessionId) return int(i);
  return -1;
}

qint64 SessionListModel::sessionIdAt(int row) const { return row >= 0 && size_t(row) < sessions_.size() ? sessions_[size_t(row)].id : 0; }

int SessionListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(sessions_.size()); }

int SessionListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SessionListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const storage::SessionSummary& s = sessions_[size_t(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case Name: return QString::fromStdString(s.name);
        // A run can end "ok" with compiles that failed (a fullgraph=True error caught by the script).
        case Status:
          return s.failedCount ? tr("%1 · %n failed", nullptr, s.failedCount).arg(QString::fromStdString(s.status))
                               : QString::fromStdString(s.status);
        case Started:
          if (s.startedAtMs <= 0) return QString();  // not recorded: better blank than 1970
          return QDateTime::fromMSecsSinceEpoch(s.startedAtMs).toString(QStringLiteral("yyyy-MM-dd hh:mm"));
        case Graphs: return s.graphCount;
        case Breaks: return s.breakCount;
        case Recompiles: return s.recompileCount;
      }
      return {};
    case Qt::ForegroundRole:
      if (index.column() != Status) return {};
      if (s.status == "error" || s.status == "interrupted" || s.status == "timed out" || s.status == "out of memory")
        return QColor(0xc0, 0x28, 0x28);
      if (s.status == "incomplete") return QColor(0xb0, 0x6a, 0x00);
      if (s.status == "running") return QColor(0x1f, 0x6f, 0xd0);
      if (s.failedCount) return QColor(0xc0, 0x28, 0x28);
      return {};
    case Qt::TextAlignmentRole: return index.column() >= Graphs ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case Qt::ToolTipRole:
      return QStringLiteral("#%1 %2\n%3 ms, %4 frames")
          .arg(s.id)
          .arg(QString::fromStdString(s.scriptPath))
          .arg(s.totalMs, 0, 'f', 1)
          .arg(s.frameCount);
    case SessionIdRole: return qint64(s.id);
  }
  return {};
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name: return tr("Session");
    case Status: return tr("Status");
    case Started: return tr("Started");
    case Graphs: return tr("Graphs");
    case Breaks: return tr("Breaks");
    case Recompiles: return tr("Recompiles");
  }
  return {};
}

}  // namespace kiln::viewers
