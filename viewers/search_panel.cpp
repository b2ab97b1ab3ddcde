#include "viewers/search_panel.h"

#include "viewers/stage_list_model.h"

#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QThreadPool>
#include <QVBoxLayout>

#include <map>

namespace kiln::viewers {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Where each hit is, named as the stage list and the Frames dock name it. A hit's ref is a row
// id (stages, frames) or a compile id (transformed code, wrappers); each session's stages and
// frames are read once.
std::vector<QString> hitPlaces(storage::Store& store, const std::vector<storage::SearchHit>& hits) {
  std::map<int64_t, std::map<std::string, QString>> stages, frames;  // session -> ref -> name
  auto readNames = [&](int64_t session) {
    if (stages.count(session)) return;
    auto& st = stages[session];
    for (const auto& c : store.compiles(session))
      for (const auto& s : store.stages(session, c.compileId)) st[std::to_string(s.id)] = StageListModel::label(s);
    for (const auto& f : store.frames(session)) frames[session][std::to_string(f.frameId)] = QObject::tr("frame %1").arg(qs(f.name));
  };
  std::vector<QString> out;
  for (const auto& h : hits) {
    QString place = qs(h.kind) + (h.ref.empty() ? QString() : QLatin1Char(' ') + qs(h.ref));
    if (h.kind == "stage" || h.kind == "frame") {
      readNames(h.sessionId);
      const auto& names = (h.kind == "stage" ? stages : frames)[h.sessionId];
      if (auto it = names.find(h.ref); it != names.end()) place = it->second;
    } else if (h.kind == "transformed") {
      place = QObject::tr("[%1] transformed code").arg(qs(h.ref));
    } else if (h.kind == "wrapper") {
      place = QObject::tr("[%1] wrapper").arg(qs(h.ref));
    }
    out.push_back(place);
  }
  return out;
}

}  // namespace

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
    std::vector<QString> places;
    QString error;
    try {
      auto store = storage::Store::open(path);
      hits = store->search(query, 200);
      places = hitPlaces(*store, hits);
    } catch (const std::exception& e) { error = QString::fromUtf8(e.what()); }
    QMetaObject::invokeMethod(
        qApp,
        [self, generation, text, hits = std::move(hits), places = std::move(places), error]() mutable {
          if (self && generation == self->generation_) self->showHits(text, std::move(hits), std::move(places), error);
        },
        Qt::QueuedConnection);
  });
}

void SearchPanel::showHits(const QString& text, std::vector<storage::SearchHit> hits, std::vector<QString> places, const QString& error) {
  list_->clear();
  hits_ = std::move(hits);
  places_ = std::move(places);
  if (!error.isEmpty()) {
    hits_.clear();
    places_.clear();
    list_->addItem(tr("Search failed: %1").arg(error));
    emit searchFinished(0);
    return;
  }
  if (hits_.empty() && !text.trimmed().isEmpty()) list_->addItem(tr("No matches"));
  for (size_t i = 0; i < hits_.size(); ++i) {
    const auto& h = hits_[i];
    QString snippet = QString::fromStdString(h.snippet).simplified();
    auto* item = new QListWidgetItem(tr("#%1 %2: %3").arg(h.sessionId).arg(places_[i], snippet), list_);
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
