#include "viewers/artifacts_panel.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>
#include <string>
#include <vector>

namespace kiln::viewers {

namespace {
constexpr int kIdRole = Qt::UserRole;
// Bodies over this are shown as they are: indenting megabytes of JSON in the GUI thread
// would stall the window, and the raw text is what the log holds anyway.
constexpr int64_t kIndentLimit = 1 << 20;

QString sizeText(int64_t bytes) { return QLocale::system().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); }
}  // namespace

ArtifactsPanel::ArtifactsPanel(QWidget* parent) : QWidget(parent) {
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter by name"));
  filter_->setClearButtonEnabled(true);
  list_ = new QTreeWidget(this);
  list_->setColumnCount(3);
  list_->setHeaderLabels({tr("Record"), tr("Size"), tr("Log line")});
  list_->setUniformRowHeights(true);
  list_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  list_->header()->setStretchLastSection(false);
  body_ = new QPlainTextEdit(this);
  body_->setReadOnly(true);
  body_->setLineWrapMode(QPlainTextEdit::NoWrap);
  body_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  body_->setPlaceholderText(tr("Select a record to see its body"));
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(list_);
  split->addWidget(body_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(filter_);
  layout->addWidget(split);
  connect(filter_, &QLineEdit::textChanged, this, &ArtifactsPanel::applyFilter);
  connect(list_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) { show(item); });
  setArtifacts({}, nullptr);
}

void ArtifactsPanel::setArtifacts(const std::vector<storage::ArtifactRow>& rows, Loader loader) {
  rows_ = rows;
  loader_ = std::move(loader);
  list_->clear();
  body_->clear();
  if (rows_.empty()) {
    auto* none = new QTreeWidgetItem(list_, {tr("No kept records (sessions imported from TORCH_TRACE logs have them)")});
    none->setFlags(Qt::NoItemFlags);
    return;
  }
  // One group per compile id in first-seen order; records that belong to no compile first.
  std::map<std::string, QTreeWidgetItem*> groups;
  for (const auto& r : rows_) {
    QTreeWidgetItem*& group = groups[r.compileId];
    if (!group) {
      group = new QTreeWidgetItem(
          list_, {r.compileId.empty() ? tr("(no compile)") : QStringLiteral("[%1]").arg(QString::fromStdString(r.compileId))});
      group->setFlags(Qt::ItemIsEnabled);
      group->setExpanded(true);
    }
    auto* item =
        new QTreeWidgetItem(group, {QString::fromStdString(r.name), sizeText(r.bytes), r.line > 0 ? QString::number(r.line) : QString()});
    item->setData(0, kIdRole, QVariant::fromValue<qint64>(r.id));
    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
    // What the importer could not read is what a user must see first.
    if (r.name == "import problem") item->setForeground(0, QColor(0xd9, 0x48, 0x3b));
  }
  for (auto& [cid, group] : groups) group->setText(1, tr("%n record(s)", nullptr, group->childCount()));
  applyFilter(filter_->text());
}

int ArtifactsPanel::visibleCount() const {
  int n = 0;
  for (int g = 0; g < list_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = list_->topLevelItem(g);
    for (int i = 0; i < group->childCount(); ++i) n += !group->child(i)->isHidden();
  }
  return n;
}

void ArtifactsPanel::applyFilter(const QString& text) {
  for (int g = 0; g < list_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = list_->topLevelItem(g);
    int shown = 0;
    for (int i = 0; i < group->childCount(); ++i) {
      QTreeWidgetItem* item = group->child(i);
      const bool hide = !text.isEmpty() && !item->text(0).contains(text, Qt::CaseInsensitive);
      item->setHidden(hide);
      shown += !hide;
    }
    group->setHidden(group->childCount() > 0 && shown == 0);
  }
}

bool ArtifactsPanel::selectArtifact(const QString& name) {
  for (int g = 0; g < list_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = list_->topLevelItem(g);
    for (int i = 0; i < group->childCount(); ++i)
      if (group->child(i)->text(0).contains(name)) {
        list_->setCurrentItem(group->child(i));
        list_->scrollToItem(group->child(i));
        return true;
      }
  }
  return false;
}

QString ArtifactsPanel::shownText() const { return body_->toPlainText(); }

void ArtifactsPanel::show(QTreeWidgetItem* item) {
  const QVariant id = item ? item->data(0, kIdRole) : QVariant();
  if (!id.isValid() || !loader_) {
    body_->clear();
    return;
  }
  QString text;
  try {
    const std::string raw = loader_(id.toLongLong());
    text = QString::fromStdString(raw);
    // A TORCH_TRACE record is kept as its line's JSON, then its payload on the next lines:
    // each part that is JSON is indented.
    if (raw.size() < kIndentLimit) {
      QStringList parts;
      const size_t nl = raw.find('\n');
      for (const std::string& part :
           nl == std::string::npos ? std::vector<std::string>{raw} : std::vector<std::string>{raw.substr(0, nl), raw.substr(nl + 1)}) {
        QJsonParseError err;
        const QJsonDocument doc = (part.starts_with('{') || part.starts_with('['))
                                      ? QJsonDocument::fromJson(QByteArray::fromStdString(part), &err)
                                      : QJsonDocument();
        parts << (!doc.isNull() ? QString::fromUtf8(doc.toJson(QJsonDocument::Indented)).trimmed() : QString::fromStdString(part));
      }
      text = parts.join(QLatin1Char('\n'));
    }
  } catch (const std::exception& e) { text = tr("Could not read this record: %1").arg(QString::fromUtf8(e.what())); }
  body_->setPlainText(text);
}

}  // namespace kiln::viewers
