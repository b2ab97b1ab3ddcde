// SourceView: the script, read-only, with line numbers. Clicking a line emits lineSelected;
// marked lines (graph breaks, say) get a tinted background, a gutter dot and a tooltip.
#pragma once

#include <QColor>
#include <QList>
#include <QPlainTextEdit>

namespace kiln::viewers {

struct LineMark {
  int line = 0;
  QColor color;
  QString tooltip;
};

class SourceView : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit SourceView(QWidget* parent = nullptr);

  void setSource(const QString& text);
  void setMarks(const QList<LineMark>& marks);
  const QList<LineMark>& marks() const { return marks_; }
  // Shows `line` as the current line and scrolls to it; 0 clears.
  void highlightLine(int line);
  int highlightedLine() const { return current_; }

  // For the gutter widget.
  int gutterWidth() const;
  void paintGutter(QPaintEvent* event);

 signals:
  void lineSelected(int line);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  void updateSelections();
  const LineMark* markAt(int line) const;

  QWidget* gutter_;
  QList<LineMark> marks_;
  int current_ = 0;
};

}  // namespace kiln::viewers
