#include "viewers/source_view.h"

#include "viewers/line_colour.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolTip>

namespace kiln::viewers {
namespace {

// The line-number strip; all painting is done by the SourceView it belongs to.
class Gutter : public QWidget {
 public:
  explicit Gutter(SourceView* view) : QWidget(view), view_(view) {}
  QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { view_->paintGutter(event); }

 private:
  SourceView* view_;
};

}  // namespace

SourceView::SourceView(QWidget* parent) : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
  setReadOnly(true);
  setLineWrapMode(NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  setPlaceholderText(tr("No session selected"));
  // Dragging or clicking the scroll bar is the user's scrolling too.
  connect(verticalScrollBar(), &QScrollBar::actionTriggered, this, [this] { scrollTarget_ = 0; });
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy) gutter_->scroll(0, dy);
    else gutter_->update(0, rect.y(), gutter_->width(), rect.height());
  });
  setViewportMargins(gutterWidth(), 0, 0, 0);
  viewport()->setMouseTracking(true);  // hovering a line links it to its nodes and kernel lines
}

void SourceView::setSource(const QString& text) {
  marks_.clear();
  tints_.clear();
  current_ = 0;
  hover_ = 0;
  scrollTarget_ = 0;
  // A final newline would show as an extra, empty numbered line.
  setPlainText(text.endsWith(QLatin1Char('\n')) ? text.chopped(1) : text);
  updateSelections();
}

void SourceView::setLineTints(const QList<int>& lines) {
  if (lines == tints_) return;
  tints_ = lines;
  updateSelections();
}

void SourceView::setMarks(const QList<LineMark>& marks) {
  marks_ = marks;
  updateSelections();
  gutter_->update();
}

void SourceView::highlightLine(int line) {
  current_ = line;
  scrollTarget_ = 0;
  updateSelections();
  if (line <= 0) return;
  const QTextBlock block = document()->findBlockByNumber(line - 1);
  if (!block.isValid()) return;
  QTextCursor cursor(block);
  setTextCursor(cursor);
  centerCursor();
}

void SourceView::hoverLine(int line) {
  if (line == hover_) return;
  hover_ = line;
  updateSelections();
}

void SourceView::scrollToLine(int line) {
  scrollTarget_ = line;
  centreLine(line);
}

void SourceView::centreLine(int line) {
  const QTextBlock block = document()->findBlockByNumber(line - 1);
  if (line <= 0 || !block.isValid()) return;
  const QTextCursor keep = textCursor();
  setTextCursor(QTextCursor(block));
  centerCursor();
  // Put the caret back without scrolling to it (setTextCursor would scroll to it).
  const int top = verticalScrollBar()->value();
  setTextCursor(keep);
  verticalScrollBar()->setValue(top);
}

const LineMark* SourceView::markAt(int line) const {
  for (const auto& m : marks_)
    if (m.line == line) return &m;
  return nullptr;
}

void SourceView::updateSelections() {
  QList<QTextEdit::ExtraSelection> selections;
  auto add = [&](int line, const QColor& color) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (!block.isValid()) return;
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(color);
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(block);
    selections << sel;
  };
  for (int line : tints_) add(line, lineColour(line).lighter(106));
  for (const auto& m : marks_) add(m.line, m.color.lighter(170));
  if (current_ > 0) add(current_, lineColour(current_));  // the line's colour in every pane
  // Hovered: darker than the selected line's colour, so both read when they differ.
  if (hover_ > 0) add(hover_, lineColour(hover_).darker(118));
  setExtraSelections(selections);
}

int SourceView::gutterWidth() const {
  int digits = 1;
  for (int n = std::max(1, blockCount()); n >= 10; n /= 10) ++digits;
  return 14 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * (digits + 1);
}

void SourceView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect cr = contentsRect();
  gutter_->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
  if (scrollTarget_ > 0) centreLine(scrollTarget_);
}

void SourceView::wheelEvent(QWheelEvent* event) {
  scrollTarget_ = 0;  // the user scrolls: resizes no longer move the view
  QPlainTextEdit::wheelEvent(event);
}

void SourceView::paintGutter(QPaintEvent* event) {
  QPainter p(gutter_);
  p.fillRect(event->rect(), QColor(0xee, 0xef, 0xf2));
  p.setFont(font());
  const int h = fontMetrics().height();
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= event->rect().bottom()) {
    const int line = block.blockNumber() + 1;
    if (const LineMark* m = markAt(line)) {
      p.setPen(Qt::NoPen);
      p.setBrush(m->color);
      p.drawEllipse(QPointF(6, top + h / 2.0), 3.5, 3.5);
    }
    p.setPen(line == current_ ? QColor(0x20, 0x22, 0x26) : QColor(0x90, 0x94, 0x9c));
    p.drawText(0, top, gutter_->width() - 6, h, Qt::AlignRight, QString::number(line));
    top += qRound(blockBoundingRect(block).height());
    block = block.next();
  }
}

void SourceView::mouseReleaseEvent(QMouseEvent* event) {
  scrollTarget_ = 0;
  QPlainTextEdit::mouseReleaseEvent(event);
  // A drag that selected text is not a line click.
  if (textCursor().hasSelection()) return;
  const int line = cursorForPosition(event->position().toPoint()).blockNumber() + 1;
  current_ = line;  // no scrolling: the line is already under the mouse
  updateSelections();
  emit lineSelected(line);
}

void SourceView::mouseMoveEvent(QMouseEvent* event) {
  QPlainTextEdit::mouseMoveEvent(event);
  int line = 0;
  if (event->buttons() == Qt::NoButton) {  // not while selecting text
    const QTextBlock block = cursorForPosition(event->position().toPoint()).block();
    // Past the last line the cursor is still on it: only a point on a line's own row counts.
    const QRectF row = blockBoundingGeometry(block).translated(contentOffset());
    if (block.isValid() && row.contains(QPointF(row.left() + 1, event->position().y()))) line = block.blockNumber() + 1;
  }
  if (line == mouseLine_) return;
  mouseLine_ = line;
  emit lineHovered(line);
}

bool SourceView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::Leave && mouseLine_ != 0) {
    mouseLine_ = 0;
    emit lineHovered(0);
  }
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const LineMark* m = markAt(cursorForPosition(help->pos()).blockNumber() + 1);
    if (m && !m->tooltip.isEmpty()) QToolTip::showText(help->globalPos(), m->tooltip, this);
    else QToolTip::hideText();
    return true;
  }
  return QPlainTextEdit::viewportEvent(event);
}

}  // namespace kiln::viewers
