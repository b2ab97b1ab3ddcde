#include "viewers/text_pane.h"

#include "viewers/diff_highlighter.h"
#include "viewers/gpu_kernel_views.h"
#include "viewers/line_colour.h"
#include "viewers/rule_steps_panel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPointer>
#include <QScrollBar>
#include <QSplitter>
#include <QStringList>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

namespace kiln::viewers {
namespace {

// `runMs` < 0: the session was not profiled.
QString header(const storage::KernelRow& k, double runMs) {
  QStringList nodes, lines;
  for (int n : k.nodeIds) nodes << QString::number(n);
  for (int l : k.sourceLines) lines << QString::number(l);
  QString h = QStringLiteral("──── %1 (%2)").arg(QString::fromStdString(k.name), QString::fromStdString(k.kind));
  if (!nodes.isEmpty()) h += QStringLiteral(" · nodes ") + nodes.join(QStringLiteral(", "));
  if (!lines.isEmpty()) h += QStringLiteral(" · lines ") + lines.join(QStringLiteral(", "));
  h += QStringLiteral(" · compiled in %1 ms").arg(k.compileMs, 0, 'f', 2);
  if (runMs >= 0) h += QStringLiteral(" · runs in %1 ms").arg(runMs, 0, 'g', 3);
  return h + QStringLiteral(" ────");
}

}  // namespace

TextPane::TextPane(QWidget* parent) : QTabWidget(parent) {
  const QString titles[TabCount] = {tr("Stage IR"), tr("Step"),     tr("Capture"), tr("Kernel IR"), tr("Generated source"),
                                    tr("LLVM IR"),  tr("Assembly"), tr("Wrapper"), tr("Output"),    tr("Diff")};
  const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  for (int t = 0; t < TabCount; ++t) {
    auto* e = new QPlainTextEdit(this);
    e->setReadOnly(true);
    e->setLineWrapMode(QPlainTextEdit::NoWrap);
    e->setFont(mono);
    e->setPlaceholderText(tr("Nothing to show"));
    editors_[t] = e;
    if (t != Step) {
      addTab(e, titles[t]);
      continue;
    }
    // The Step tab: the step's report above, its rule applications one at a time below.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(e);
    ruleSteps_ = new RuleStepsPanel(split);
    split->addWidget(ruleSteps_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    addTab(split, titles[t]);
  }
  setTabVisible(KernelSource, false);               // only GPU kernels have source between kernel IR and LLVM IR
  new DiffHighlighter(editors_[Diff]->document());  // owned by the document

  // Side by side, as Compiler Explorer shows source and assembly.
  auto* side = new QWidget(this);
  auto* layout = new QVBoxLayout(side);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* pick = new QComboBox(side);
  pick->addItem(tr("Kernel IR | Assembly"), int(Assembly));
  pick->addItem(tr("Kernel IR | LLVM IR"), int(LlvmIr));
  pick->addItem(tr("Kernel IR | Generated source"), int(KernelSource));
  auto* split = new QSplitter(Qt::Horizontal, side);
  for (QPlainTextEdit** e : {&sideLeftEdit_, &sideRightEdit_}) {
    *e = new QPlainTextEdit(split);
    (*e)->setReadOnly(true);
    (*e)->setLineWrapMode(QPlainTextEdit::NoWrap);
    (*e)->setFont(mono);
    (*e)->setPlaceholderText(tr("Nothing to show"));
    split->addWidget(*e);
  }
  layout->addWidget(pick);
  layout->addWidget(split);
  sideIndex_ = addTab(side, tr("Side by side"));
  new GpuKernelViews(this);  // the CUDA, PTX and SASS tabs, after this one
  connect(pick, &QComboBox::currentIndexChanged, this, [this, pick](int i) { setSideBySide(static_cast<Tab>(pick->itemData(i).toInt())); });
  connect(sideLeftEdit_->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { syncSideBySide(); });
  // Hovering a kernel line links it to its source line and nodes; a click selects that line.
  for (QPlainTextEdit* e :
       {editors_[KernelIr], editors_[KernelSource], editors_[LlvmIr], editors_[Assembly], sideLeftEdit_, sideRightEdit_}) {
    e->viewport()->setMouseTracking(true);
    e->viewport()->installEventFilter(this);
  }
}

TextPane::Tab TextPane::kernelTabOf(const QPlainTextEdit* editor) const {
  if (editor == sideLeftEdit_) return KernelIr;
  if (editor == sideRightEdit_) return sideRight_;
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly})
    if (editors_[t] == editor) return t;
  return TabCount;
}

int TextPane::sourceLineAt(const QPlainTextEdit* editor, int block) const {
  const Tab t = kernelTabOf(editor);
  if (t == TabCount || t == KernelSource) return 0;  // generated source names no nodes
  for (const auto& span : spans_[t]) {
    if (block <= span.first || block > span.last) continue;  // a header is the whole kernel's, no one line's
    const bool backward = span.name.startsWith(QStringLiteral("bw_"));
    if (t != Assembly) return sourceLineOf(editor->document()->findBlockByNumber(block).text(), backward);
    // Assembly: the `# @N` line above names the node of the instructions up to the next label.
    for (int b = block; b > span.first; --b) {
      const QString text = editor->document()->findBlockByNumber(b).text();
      if (text.trimmed().startsWith(QStringLiteral("# @"))) return sourceLineOf(text, backward);
      if (!text.isEmpty() && !text[0].isSpace()) return 0;  // a label
    }
    return 0;
  }
  return 0;
}

bool TextPane::eventFilter(QObject* watched, QEvent* event) {
  auto* editor = qobject_cast<QPlainTextEdit*>(watched->parent());
  if (editor) followMouse(editor, event, [this, editor](int block) { return sourceLineAt(editor, block); });
  return false;
}

void TextPane::followMouse(QPlainTextEdit* editor, QEvent* event, const std::function<int(int)>& lineAt) {
  const auto type = event->type();
  if (type != QEvent::MouseMove && type != QEvent::MouseButtonRelease && type != QEvent::Leave) return;
  int line = 0;
  if (type != QEvent::Leave) {
    auto* mouse = static_cast<QMouseEvent*>(event);
    if (type == QEvent::MouseMove && mouse->buttons() != Qt::NoButton) return;  // selecting text
    line = lineAt(editor->cursorForPosition(mouse->position().toPoint()).blockNumber());
    if (type == QEvent::MouseButtonRelease) {
      if (line > 0 && mouse->button() == Qt::LeftButton) reportLineClicked(editor, line);
      return;
    }
  }
  reportLineHovered(line);
}

void TextPane::reportLineHovered(int line) {
  if (line == mouseLine_) return;
  mouseLine_ = line;
  emit lineHovered(line);
}

void TextPane::reportLineClicked(QPlainTextEdit* editor, int line) {
  // After the editor has placed its cursor (queued): a drag that selected text is no click.
  QPointer<QPlainTextEdit> e(editor);
  QMetaObject::invokeMethod(
      this,
      [this, e, line] {
        if (e && !e->textCursor().hasSelection()) emit lineClicked(line);
      },
      Qt::QueuedConnection);
}

void TextPane::hoverSourceLine(int line) {
  if (line == hover_) return;
  hover_ = line;
  applyTints();
  emit sourceLineHovered(line);
}

void TextPane::applyTints() {
  // The hovered line's kernel lines, darker than a selected line's tint so both read.
  auto withHover = [this](const QList<QTextEdit::ExtraSelection>& base, Tab t, QPlainTextEdit* e) {
    QList<QTextEdit::ExtraSelection> sels = base;
    if (hover_ <= 0) return sels;
    int kernels = 0;
    for (QTextEdit::ExtraSelection sel : tint(t, e, hover_, &kernels)) {
      sel.format.setBackground(lineColour(hover_).darker(118));
      sels << sel;
    }
    return sels;
  };
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly}) editors_[t]->setExtraSelections(withHover(base_[t], t, editors_[t]));
  sideLeftEdit_->setExtraSelections(withHover(sideBase_[0], KernelIr, sideLeftEdit_));
  sideRightEdit_->setExtraSelections(withHover(sideBase_[1], sideRight_, sideRightEdit_));
}

void TextPane::setSideBySide(Tab right) {
  sideRight_ = right;
  sideKernel_ = -1;
  sideRightEdit_->setPlainText(editors_[right]->toPlainText());
  int kernels = 0;
  sideBase_[1] = tint(right, sideRightEdit_, tintedLine(), &kernels);
  applyTints();
  syncSideBySide();
}

// The right side follows the kernel at the top of the left side.
void TextPane::syncSideBySide() {
  // The line under the top one: tinting scrolls a header to the second line of the view.
  const int top = sideLeftEdit_->verticalScrollBar()->value() + 1;
  const auto& left = spans_[KernelIr];
  int k = -1;
  for (size_t i = 0; i < left.size(); ++i)
    if (left[i].first <= top) k = static_cast<int>(i);
  if (k < 0 || k == sideKernel_ || static_cast<size_t>(k) >= spans_[sideRight_].size()) return;
  sideKernel_ = k;
  sideRightEdit_->verticalScrollBar()->setValue(spans_[sideRight_][static_cast<size_t>(k)].first);
}

void TextPane::setText(Tab tab, const QString& text) { editors_[tab]->setPlainText(text); }

QString TextPane::text(Tab tab) const { return editors_[tab]->toPlainText(); }

void TextPane::setStageText(const QString& text) { setText(StageIr, text); }

void TextPane::setStepReport(const QString& text) { setText(Step, text); }

void TextPane::setWrapper(const QString& text) { setText(Wrapper, text); }

void TextPane::setCapture(const QString& text) { setText(Capture, text); }

void TextPane::setDiff(const QString& text) {
  setText(Diff, text);
  setCurrentIndex(Diff);
}

void TextPane::setSessionOutput(const QString& stdoutText, const QString& error) {
  setText(Output, error.isEmpty() ? stdoutText : stdoutText + QStringLiteral("\n") + error);
}

void TextPane::setKernels(const std::vector<storage::KernelRow>& kernels, std::map<int, int> nodeLines,
                          const std::map<std::string, double>& runMs) {
  nodeLines_ = std::move(nodeLines);
  const Tab tabs[] = {KernelIr, KernelSource, LlvmIr, Assembly};
  QStringList texts[TabCount];
  int lineCount[TabCount] = {};
  for (Tab t : tabs) spans_[t].clear();
  bool anySource = false;
  for (const auto& k : kernels) {
    const std::string* parts[TabCount] = {};
    parts[KernelIr] = &k.kernelIr;
    parts[KernelSource] = &k.source;
    parts[LlvmIr] = &k.llvmIr;
    parts[Assembly] = &k.assembly;
    anySource = anySource || !k.source.empty();
    for (Tab t : tabs) {
      const QString body = parts[t]->empty() ? tr("(none)") : QString::fromStdString(*parts[t]);
      auto ms = runMs.find(k.name);
      texts[t] << header(k, ms == runMs.end() ? -1.0 : ms->second) << body << QString();
      const int first = lineCount[t];
      lineCount[t] += 2 + int(body.count(QLatin1Char('\n'))) + 1;
      spans_[t].push_back({QString::fromStdString(k.name), first, lineCount[t] - 2, k.sourceLines});
    }
  }
  for (Tab t : tabs) setText(t, texts[t].join(QLatin1Char('\n')));
  setTabVisible(KernelSource, anySource);
  sideLeftEdit_->setPlainText(editors_[KernelIr]->toPlainText());
  setSideBySide(sideRight_);
  emit kernelsShown(kernels, nodeLines_);
}

// The source line of a kernel IR instruction, through its `@N` provenance; 0 for other lines.
int TextPane::sourceLineOf(const QString& kernelIrLine, bool backward) const {
  return sourceLineOfNodeRef(kernelIrLine, backward, nodeLines_);
}

QList<QTextEdit::ExtraSelection> TextPane::tint(Tab t, QPlainTextEdit* e, int line, int* kernels) const {
  QList<QTextEdit::ExtraSelection> sels;
  const bool every = line == kEveryLine;
  for (const auto& span : spans_[t]) {
    if (every ? span.sourceLines.empty()
              : line <= 0 || std::find(span.sourceLines.begin(), span.sourceLines.end(), line) == span.sourceLines.end())
      continue;
    ++*kernels;
    // Kernel IR and LLVM IR name the node of each line at its end (@N, ; @N); in assembly a
    // `# @N` line names the node of the instructions after it, up to the next label.
    const bool perLine = !nodeLines_.empty() && t != KernelSource;
    if (every && !perLine) continue;                                    // generated source names no nodes: no line's colour to give
    const bool backward = span.name.startsWith(QStringLiteral("bw_"));  // its @N are backward nodes
    int asmLine = 0;
    for (int b = span.first; b <= span.last; ++b) {
      const QTextBlock block = e->document()->findBlockByNumber(b);
      if (!block.isValid()) break;
      const QString text = block.text();
      if (t == Assembly) {
        if (text.trimmed().startsWith(QStringLiteral("# @"))) asmLine = sourceLineOf(text, backward);
        else if (!text.isEmpty() && !text[0].isSpace()) asmLine = 0;  // a label
      }
      const int at = perLine ? (t == Assembly ? asmLine : sourceLineOf(text, backward)) : line;
      if (every ? b == span.first || at <= 0 : perLine && b != span.first && at != line) continue;
      QTextEdit::ExtraSelection sel;
      sel.format.setBackground(lineColour(every ? at : line));
      sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      sel.cursor = QTextCursor(block);
      sels << sel;
    }
  }
  return sels;
}

int TextPane::highlightSourceLine(int line) {
  line_ = line;
  const int shown = tintedLine();
  const bool scroll = shown > 0;  // every line at once: the view stays where the reader is
  int kernels = 0;
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly}) {
    int n = 0;
    QPlainTextEdit* e = editors_[t];
    const QList<QTextEdit::ExtraSelection> sels = tint(t, e, shown, &n);
    if (t == KernelIr) kernels = n;
    base_[t] = sels;
    // Bring the first tinted line into view (with wrapping off a block is a scroll step).
    if (scroll && !sels.isEmpty()) e->verticalScrollBar()->setValue(std::max(0, sels.first().cursor.blockNumber() - 1));
  }
  int n = 0;
  const auto left = tint(KernelIr, sideLeftEdit_, shown, &n);
  sideBase_[0] = left;
  sideBase_[1] = tint(sideRight_, sideRightEdit_, shown, &n);
  applyTints();
  if (scroll && !left.isEmpty()) sideLeftEdit_->verticalScrollBar()->setValue(std::max(0, left.first().cursor.blockNumber() - 1));
  emit sourceLineTinted(shown);
  return line > 0 ? kernels : 0;
}

void TextPane::setEveryLineTinted(bool on) {
  everyLine_ = on;
  if (line_ <= 0) highlightSourceLine(0);  // a selected line keeps its own tint
}

void TextPane::clearAll() {
  for (int t = 0; t < TabCount; ++t) {
    if (t == Diff) continue;  // a diff spans two sessions; it stays until the next diff
    editors_[t]->clear();
    editors_[t]->setExtraSelections({});
    spans_[t].clear();
    base_[t].clear();
  }
  ruleSteps_->clear();
  sideBase_[0].clear();
  sideBase_[1].clear();
  setTabVisible(KernelSource, false);
  for (QPlainTextEdit* e : {sideLeftEdit_, sideRightEdit_}) {
    e->clear();
    e->setExtraSelections({});
  }
  sideKernel_ = -1;
  emit kernelsShown({}, {});
}

void TextPane::showKernel(const QString& kernel) {
  const int cur = currentIndex();
  const bool onKernelTab = cur == KernelIr || cur == KernelSource || cur == LlvmIr || cur == Assembly;
  if (!onKernelTab) setCurrentIndex(KernelIr);
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly}) {
    // With wrapping off each line is one block, so the scroll value is a line number.
    for (const auto& span : spans_[t])
      if (span.name == kernel) editors_[t]->verticalScrollBar()->setValue(span.first);
  }
}

}  // namespace kiln::viewers
