#include "viewers/stage_list_model.h"

#include <QColor>
#include <QStringList>

#include <algorithm>
#include <string_view>
#include <utility>

namespace kiln::viewers {

StageListModel::StageListModel(storage::Store& store, QObject* parent) : QAbstractListModel(parent), store_(store) {}

void StageListModel::load(qint64 sessionId) {
  load(sessionId, sessionId > 0 ? store_.compiles(sessionId) : std::vector<storage::CompileRow>{});
}

void StageListModel::load(qint64 sessionId, const std::vector<storage::CompileRow>& all) {
  std::vector<storage::StageRow> fresh;
  std::map<std::string, QString> troubled;
  std::map<std::string, storage::CompileRow> failures;
  if (sessionId > 0) {
    // Dynamo order: frame by frame, each frame's compiles in the order they happened.
    std::vector<const storage::CompileRow*> compiles;
    for (const auto& c : all) compiles.push_back(&c);
    std::stable_sort(compiles.begin(), compiles.end(), [](const auto* a, const auto* b) {
      return std::pair(a->frameId, a->compileIndex) < std::pair(b->frameId, b->compileIndex);
    });
    for (const storage::CompileRow* compile : compiles) {
      const storage::CompileRow& c = *compile;
      if (c.status == "failed") troubled[c.compileId] = tr("compile failed: %1").arg(QString::fromStdString(c.message));
      else if (c.message.find("restarted") != std::string::npos) troubled[c.compileId] = QString::fromStdString(c.message);
      auto stages = store_.stages(sessionId, c.compileId);
      std::stable_sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
      if (stages.empty() && c.status == "failed") {  // failed before it had a graph: a row of its own
        storage::StageRow failed;
        failed.compileId = c.compileId;
        failed.stage = "failed";
        fresh.push_back(failed);
        failures[c.compileId] = c;
      }
      fresh.insert(fresh.end(), stages.begin(), stages.end());
    }
  }
  beginResetModel();
  sessionId_ = sessionId;
  stages_ = std::move(fresh);
  troubled_ = std::move(troubled);
  failures_ = std::move(failures);
  endResetModel();
}

int StageListModel::rowOfStage(qint64 stageId) const {
  if (stageId <= 0) return -1;
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i].id == stageId) return int(i);
  return -1;
}

const storage::CompileRow* StageListModel::failureAt(int row) const {
  if (row < 0 || size_t(row) >= stages_.size() || stages_[size_t(row)].id != 0) return nullptr;
  auto it = failures_.find(stages_[size_t(row)].compileId);
  return it == failures_.end() ? nullptr : &it->second;
}

int StageListModel::defaultRow() const {
  if (stages_.empty()) return -1;
  // The first graph; a session whose every compile failed opens on its first failure.
  size_t first = 0;
  while (first < stages_.size() && stages_[first].id == 0) ++first;
  if (first == stages_.size()) return 0;
  size_t row = first;
  while (row + 1 < stages_.size() && stages_[row + 1].compileId == stages_[first].compileId) ++row;
  return int(row);
}

QString StageListModel::label(const storage::StageRow& stage) {
  return QStringLiteral("[%1] %2").arg(QString::fromStdString(stage.compileId), QString::fromStdString(stage.stage));
}

namespace {

// "submod_1: pass:cse" -> piece "submod_1: ", step "pass:cse".
std::pair<std::string_view, std::string_view> pieceAndStep(std::string_view stage) {
  const size_t colon = stage.rfind(": ");
  if (colon == std::string_view::npos) return {{}, stage};
  return {stage.substr(0, colon + 2), stage.substr(colon + 2)};
}

bool isBackward(std::string_view step) { return step.rfind("backward:", 0) == 0; }

}  // namespace

int StageListModel::steppedFrom(const std::vector<storage::StageRow>& stages, int row) {
  if (row <= 0 || size_t(row) >= stages.size()) return -1;
  const storage::StageRow& stage = stages[size_t(row)];
  const auto [piece, step] = pieceAndStep(stage.stage);
  if (step == "backward:joint" || step == "backward:aten") return -1;
  for (int r = row - 1; r >= 0; --r) {
    const storage::StageRow& before = stages[size_t(r)];
    if (before.compileId != stage.compileId) return -1;
    const auto [p, s] = pieceAndStep(before.stage);
    if (p == piece && isBackward(s) == isBackward(step)) return r;
  }
  return -1;
}

int StageListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(stages_.size()); }

QVariant StageListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const storage::StageRow& s = stages_[size_t(index.row())];
  if (const storage::CompileRow* f = failureAt(index.row())) {
    switch (role) {
      case Qt::DisplayRole:
        return QStringLiteral("[%1] failed: %2%3")
            .arg(QString::fromStdString(f->compileId), QString::fromStdString(f->message),
                 f->line > 0 ? tr(" (line %1)").arg(f->line) : QString());
      case Qt::ForegroundRole: return QVariant(QColor(0xc0, 0x39, 0x2b));
      case Qt::ToolTipRole: return QString::fromStdString(f->message + (f->detail.empty() ? "" : "\n" + f->detail));
      case StageIdRole: return qint64(0);
      case CompileIdRole: return QString::fromStdString(f->compileId);
    }
    return {};
  }
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
      QStringList lines{QStringLiteral("%1, %2 ms").arg(s.changed ? tr("changed the graph") : tr("no change")).arg(s.ms, 0, 'f', 2)};
      if (auto t = troubled_.find(s.compileId); t != troubled_.end()) lines.prepend(t->second);
      for (const auto& r : s.rules) lines << QStringLiteral("%1 ×%2").arg(QString::fromStdString(r.rule)).arg(r.count);
      return lines.join(QLatin1Char('\n'));
    }
    case StageIdRole: return qint64(s.id);
    case CompileIdRole: return QString::fromStdString(s.compileId);
  }
  return {};
}

}  // namespace kiln::viewers
