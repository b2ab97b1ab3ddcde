// ArtifactsPanel: the records an imported session keeps as they came (TORCH_TRACE artifacts,
// guards, compile-time stats, what the importer did not understand, its problems): grouped
// by compile id, filtered by name, and the selected one's body beside the list (JSON
// indented). Bodies are read only when shown, through the loader: a real model's session
// holds thousands of records, some of megabytes.
#pragma once

#include "storage/store.h"

#include <QWidget>

#include <functional>
#include <vector>

class QLineEdit;
class QPlainTextEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace kiln::viewers {

class ArtifactsPanel : public QWidget {
  Q_OBJECT

 public:
  using Loader = std::function<std::string(int64_t artifactId)>;
  explicit ArtifactsPanel(QWidget* parent = nullptr);

  void setArtifacts(const std::vector<storage::ArtifactRow>& rows, Loader loader);
  int artifactCount() const { return static_cast<int>(rows_.size()); }
  int visibleCount() const;  // rows the filter leaves
  // Selects the first artifact whose name contains `name` (and shows its body); false if none.
  bool selectArtifact(const QString& name);
  QTreeWidget* list() const { return list_; }
  QLineEdit* filterField() const { return filter_; }
  QString shownText() const;  // the selected record's body as shown

 private:
  void applyFilter(const QString& text);
  void show(QTreeWidgetItem* item);

  QLineEdit* filter_;
  QTreeWidget* list_;
  QPlainTextEdit* body_;
  std::vector<storage::ArtifactRow> rows_;
  Loader loader_;
};

}  // namespace kiln::viewers
