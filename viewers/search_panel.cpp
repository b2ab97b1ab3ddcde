#include "viewers/search_panel.h"

#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace kiln::viewers {

SearchPanel::SearchPanel(storage::Store& store, QWidget* parent)
    : QWidget(parent), store_(store), field_(new QLineEdit(this)), list_(new QListWidget(this)) {
  field_->setPlaceholderText(tr("Search sessions (scripts, IR, kernels)…"));
  field_->setClearButtonEnabled(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(field_);
  layout->addWidget(list_);
  connect(field_, &QLineEdit::returnPressed, this, [this] { search(field_->text()); });
  connect(list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) { activate(list_->row(item)); });
}

int SearchPanel::search(const QString& text) {
  list_->clear();
  hits_.clear();
  try {
    hits_ = store_.search(text.toStdString(), 200);
  } catch (const std::exception& e) {
    list_->addItem(tr("Search failed: %1").arg(QString::fromUtf8(e.what())));
    return 0;
  }
  if (hits_.empty() && !text.trimmed().isEmpty()) list_->addItem(tr("No matches"));
  for (const auto& h : hits_) {
    QString snippet = QString::fromStdString(h.snippet).simplified();
    QString where = QString::fromStdString(h.kind) + (h.ref.empty() ? QString() : QLatin1Char(' ') + QString::fromStdString(h.ref));
    auto* item = new QListWidgetItem(tr("#%1 %2: %3").arg(h.sessionId).arg(where, snippet), list_);
    item->setToolTip(snippet);
  }
  return int(hits_.size());
}

void SearchPanel::activate(int row) {
  if (row < 0 || row >= hitCount()) return;  // the "No matches" line
  const auto& h = hits_[size_t(row)];
  qint64 stageId = h.kind == "stage" ? QString::fromStdString(h.ref).toLongLong() : 0;
  emit hitActivated(h.sessionId, stageId);
}

}  // namespace kiln::viewers
