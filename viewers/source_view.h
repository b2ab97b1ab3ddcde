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
  // Lines tinted in their own colour all at once (the graph's Source line overlay), under the
  // marks and the current line.
  void setLineTints(const QList<int>& lines);
  const QList<int>& lineTints() const { return tints_; }
  // Shows `line` as the current line and scrolls to it; 0 clears.
  void highlightLine(int line);
  // Scrolls `line` to the middle of the view without selecting it, and keeps it there while
  // the view is resized (the window's docks settle after a session opens) until the user
  // scrolls or clicks, or another source or line is shown.
  void scrollToLine(int line);
  int highlightedLine() const { return current_; }
  // The hover link: `line` drawn in its colour, stronger than a tint, while something of it is
  // hovered in another pane (a node, a kernel line) or the mouse is on it here; 0 clears. It
  // does not scroll: hovering must not move what the reader looks at.
  void hoverLine(int line);
  int hoveredLine() const { return hover_; }

  // For the gutter widget.
  int gutterWidth() const;
  void paintGutter(QPaintEvent* event);

 signals:
  void lineSelected(int line);
  // The mouse moved onto line `line` of the script (0: off the text); only changes.
  void lineHovered(int line);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  void updateSelections();
  const LineMark* markAt(int line) const;

  QWidget* gutter_;
  QList<LineMark> marks_;
  QList<int> tints_;
  int current_ = 0;
  int hover_ = 0;
  int mouseLine_ = 0;     // the line under the mouse, as last reported by lineHovered
  int scrollTarget_ = 0;  // scrollToLine()'s line, kept in view across resizes; 0 when none
  void centreLine(int line);
};

}  // namespace kiln::viewers
