#include "viewers/search_panel.h"

#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QThreadPool>
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

void SearchPanel::search(const QString& text) {
  list_->clear();
  hits_.clear();
  list_->addItem(tr("Searching…"));
  const quint64 generation = ++generation_;
  const std::string path = store_.path(), query = text.toStdString();
  QPointer<SearchPanel> self(this);
  QThreadPool::globalInstance()->start([self, generation, path, query, text] {
    std::vector<storage::SearchHit> hits;
    QString error;
    try {
      hits = storage::Store::open(path)->search(query, 200);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(qApp, [self, generation, text, hits = std::move(hits), error]() mutable {
      if (self && generation == self->generation_) self->showHits(text, std::move(hits), error);
    }, Qt::QueuedConnection);
  });
}

void SearchPanel::showHits(const QString& text, std::vector<storage::SearchHit> hits, const QString& error) {
  list_->clear();
  hits_ = std::move(hits);
  if (!error.isEmpty()) {
    hits_.clear();
    list_->addItem(tr("Search failed: %1").arg(error));
    emit searchFinished(0);
    return;
  }
  if (hits_.empty() && !text.trimmed().isEmpty()) list_->addItem(tr("No matches"));
  for (const auto& h : hits_) {
    QString snippet = QString::fromStdString(h.snippet).simplified();
    QString where = QString::fromStdString(h.kind) + (h.ref.empty() ? QString() : QLatin1Char(' ') + QString::fromStdString(h.ref));
    auto* item = new QListWidgetItem(tr("#%1 %2: %3").arg(h.sessionId).arg(where, snippet), list_);
    item->setToolTip(snippet);
  }
  emit searchFinished(int(hits_.size()));
}

void SearchPanel::activate(int row) {
  if (row < 0 || row >= hitCount()) return;  // the "No matches" line
  const auto& h = hits_[size_t(row)];
  qint64 stageId = h.kind == "stage" ? QString::fromStdString(h.ref).toLongLong() : 0;
  emit hitActivated(h.sessionId, stageId);
}

}  // namespace kiln::viewers
