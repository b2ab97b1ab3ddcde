#include "viewers/stage_list_model.h"

#include <QColor>
#include <QStringList>

#include <algorithm>

namespace kiln::viewers {

StageListModel::StageListModel(storage::Store& store, QObject* parent)
    : QAbstractListModel(parent), store_(store) {}

void StageListModel::load(qint64 sessionId) {
  std::vector<storage::StageRow> fresh;
  std::map<std::string, QString> troubled;
  if (sessionId > 0) {
    auto compiles = store_.compiles(sessionId);
    // Dynamo order: frame by frame, each frame's compiles in the order they happened.
    std::stable_sort(compiles.begin(), compiles.end(), [](const auto& a, const auto& b) {
      return std::pair(a.frameId, a.compileIndex) < std::pair(b.frameId, b.compileIndex);
    });
    for (const auto& c : compiles) {
      if (c.status == "failed") troubled[c.compileId] = tr("compile failed: %1").arg(QString::fromStdString(c.message));
      else if (c.message.find("restarted") != std::string::npos) troubled[c.compileId] = QString::fromStdString(c.message);
      auto stages = store_.stages(sessionId, c.compileId);
      std::stable_sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
      fresh.insert(fresh.end(), stages.begin(), stages.end());
    }
  }
  beginResetModel();
  sessionId_ = sessionId;
  stages_ = std::move(fresh);
  troubled_ = std::move(troubled);
  endResetModel();
}

int StageListModel::rowOfStage(qint64 stageId) const {
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i].id == stageId) return int(i);
  return -1;
}

int StageListModel::defaultRow() const {
  if (stages_.empty()) return -1;
  size_t row = 0;
  while (row + 1 < stages_.size() && stages_[row + 1].compileId == stages_[0].compileId) ++row;
  return int(row);
}

QString StageListModel::label(const storage::StageRow& stage) {
  return QStringLiteral("[%1] %2").arg(QString::fromStdString(stage.compileId), QString::fromStdString(stage.stage));
}

int StageListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(stages_.size());
}

QVariant StageListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const storage::StageRow& s = stages_[size_t(index.row())];
  switch (role) {
    case Qt::DisplayRole: return label(s);
    case Qt::ForegroundRole: {
      // A failed compile's stages, and a restarted attempt's (an analysis Dynamo threw away), in red.
      const bool restarted = s.stage.rfind("restarted attempt", 0) == 0;
      auto t = troubled_.find(s.compileId);
      if (restarted || (t != troubled_.end() && t->second.startsWith(tr("compile failed")))) return QVariant(QColor(0xc0, 0x39, 0x2b));
      return s.changed ? QVariant() : QVariant(QColor(0x9a, 0x9e, 0xa6));
    }
    case Qt::ToolTipRole: {
      QStringList lines{QStringLiteral("%1, %2 ms").arg(s.changed ? tr("changed the graph") : tr("no change"))
                            .arg(s.ms, 0, 'f', 2)};
      if (auto t = troubled_.find(s.compileId); t != troubled_.end()) lines.prepend(t->second);
      for (const auto& r : s.rules)
        lines << QStringLiteral("%1 ×%2").arg(QString::fromStdString(r.rule)).arg(r.count);
      return lines.join(QLatin1Char('\n'));
    }
    case StageIdRole: return qint64(s.id);
    case CompileIdRole: return QString::fromStdString(s.compileId);
  }
  return {};
}

}  // namespace kiln::viewers
