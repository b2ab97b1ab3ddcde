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
#include <utility>

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
  connect(this, &QTabWidget::currentChanged, this, [this] { fillShown(); });
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
  // A tab not filled yet has nothing to tint: it is tinted when filled.
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly})
    if (filled_[t]) editors_[t]->setExtraSelections(withHover(base_[t], t, editors_[t]));
  if (!sideFilled_) return;
  sideLeftEdit_->setExtraSelections(withHover(sideBase_[0], KernelIr, sideLeftEdit_));
  sideRightEdit_->setExtraSelections(withHover(sideBase_[1], sideRight_, sideRightEdit_));
}

void TextPane::setSideBySide(Tab right) {
  sideRight_ = right;
  sideKernel_ = -1;
  if (sideFilled_) fillSideRight();  // else when the side by side is shown
}

void TextPane::fillSideRight() {
  sideRightEdit_->setPlainText(kernelText(sideRight_, &spans_[sideRight_]));
  int kernels = 0;
  sideBase_[1] = tint(sideRight_, sideRightEdit_, tintedLine(), &kernels);
  applyTints();
  syncSideBySide();
}

// Both sides, made from the kernels when the side by side is first shown.
void TextPane::fillSideBySide() {
  if (sideFilled_ || !kernels_) return;
  sideFilled_ = true;
  sideLeftEdit_->setPlainText(kernelText(KernelIr, &spans_[KernelIr]));
  int kernels = 0;
  sideBase_[0] = tint(KernelIr, sideLeftEdit_, tintedLine(), &kernels);
  if (scroll_ == Scroll::Tint && !sideBase_[0].isEmpty())
    sideLeftEdit_->verticalScrollBar()->setValue(std::max(0, sideBase_[0].first().cursor.blockNumber() - 1));
  fillSideRight();
}

void TextPane::takeSource(Tab tab) {
  if (source_[tab]) pending_[tab] = std::exchange(source_[tab], nullptr)();
}

void TextPane::fill(Tab t) {
  if (filled_[t]) return;
  if (!isKernelTab(t)) {
    takeSource(t);
    filled_[t] = true;
    editors_[t]->setPlainText(std::exchange(pending_[t], QString()));
    return;
  }
  if (!kernels_) return;
  filled_[t] = true;
  editors_[t]->setPlainText(kernelText(t, &spans_[t]));
  int kernels = 0;
  base_[t] = tint(t, editors_[t], tintedLine(), &kernels);
  applyTints();
  scrollKernelTab(t);
}

void TextPane::fillShown() {
  const int cur = currentIndex();
  if (cur == sideIndex_) fillSideBySide();
  else if (cur >= 0 && cur < TabCount) fill(static_cast<Tab>(cur));
}

bool TextPane::isFilled(Tab tab) const { return tab == TabCount ? sideFilled_ : filled_[tab]; }

QPlainTextEdit* TextPane::editor(Tab tab) {
  fill(tab);
  return editors_[tab];
}

QPlainTextEdit* TextPane::sideEditor(bool right) {
  fillSideBySide();
  return right ? sideRightEdit_ : sideLeftEdit_;
}

// The last scroll asked of the kernel tabs (a tinted line's first line, or a kernel's header).
void TextPane::scrollKernelTab(Tab t) {
  QPlainTextEdit* e = editors_[t];
  if (scroll_ == Scroll::Tint && !base_[t].isEmpty()) {
    // Bring the first tinted line into view (with wrapping off a block is a scroll step).
    e->verticalScrollBar()->setValue(std::max(0, base_[t].first().cursor.blockNumber() - 1));
  } else if (scroll_ == Scroll::Kernel) {
    // With wrapping off each line is one block, so the scroll value is a line number.
    for (const auto& span : spans_[t])
      if (span.name == scrollKernel_) e->verticalScrollBar()->setValue(span.first);
  }
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

void TextPane::setText(Tab tab, const QString& text) {
  filled_[tab] = false;
  pending_[tab] = text;
  source_[tab] = nullptr;
  if (currentIndex() == tab) fill(tab);
  else editors_[tab]->clear();  // its last text must not show under this one's tab
}

QString TextPane::text(Tab tab) const {
  if (filled_[tab]) return editors_[tab]->toPlainText();
  if (source_[tab]) return source_[tab]();  // made again, not kept: a const look
  return isKernelTab(tab) ? (kernels_ ? kernelText(tab, nullptr) : QString()) : pending_[tab];
}

void TextPane::setStageText(const QString& text) { setText(StageIr, text); }

void TextPane::setStepReport(const QString& text) { setText(Step, text); }

void TextPane::setWrapper(const QString& text) { setText(Wrapper, text); }

void TextPane::setCapture(const QString& text) { setText(Capture, text); }

void TextPane::setCaptureSource(std::function<QString()> make) {
  filled_[Capture] = false;
  pending_[Capture].clear();
  source_[Capture] = std::move(make);
  if (currentIndex() == Capture) fill(Capture);
  else editors_[Capture]->clear();  // its last text must not show under this one's tab
}

void TextPane::setDiff(const QString& text) {
  setText(Diff, text);
  setCurrentIndex(Diff);
}

void TextPane::setSessionOutput(const QString& stdoutText, const QString& error) {
  setText(Output, error.isEmpty() ? stdoutText : stdoutText + QStringLiteral("\n") + error);
}

void TextPane::setKernels(std::vector<storage::KernelRow> kernels, std::map<int, int> nodeLines,
                          const std::map<std::string, double>& runMs) {
  setKernelList(std::make_shared<const std::vector<storage::KernelRow>>(std::move(kernels)), std::move(nodeLines), runMs);
}

void TextPane::setKernelList(KernelList kernels, std::map<int, int> nodeLines, const std::map<std::string, double>& runMs) {
  kernels_ = kernels ? std::move(kernels) : std::make_shared<const std::vector<storage::KernelRow>>();
  nodeLines_ = std::move(nodeLines);
  runMs_ = runMs;
  scroll_ = Scroll::None;
  bool anySource = false;
  for (const auto& k : *kernels_) anySource = anySource || !k.source.empty();
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly}) {
    filled_[t] = false;
    spans_[t].clear();
    base_[t].clear();
    editors_[t]->clear();
    editors_[t]->setExtraSelections({});
  }
  sideFilled_ = false;
  sideKernel_ = -1;
  for (auto& b : sideBase_) b.clear();
  for (QPlainTextEdit* e : {sideLeftEdit_, sideRightEdit_}) {
    e->clear();
    e->setExtraSelections({});
  }
  setTabVisible(KernelSource, anySource);
  fillShown();
  emit kernelsShown(kernels_, nodeLines_);
}

QString TextPane::kernelText(Tab t, std::vector<KernelSpan>* spans) const {
  QStringList texts;
  int lineCount = 0;
  if (spans) spans->clear();
  for (const auto& k : *kernels_) {
    const std::string& part = t == KernelIr ? k.kernelIr : t == KernelSource ? k.source : t == LlvmIr ? k.llvmIr : k.assembly;
    const QString body = part.empty() ? tr("(none)") : QString::fromStdString(part);
    auto ms = runMs_.find(k.name);
    texts << header(k, ms == runMs_.end() ? -1.0 : ms->second) << body << QString();
    const int first = lineCount;
    lineCount += 2 + int(body.count(QLatin1Char('\n'))) + 1;
    if (spans) spans->push_back({QString::fromStdString(k.name), first, lineCount - 2, k.sourceLines});
  }
  return texts.join(QLatin1Char('\n'));
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
  // Every line at once: the view stays where the reader is. A tab not filled yet is tinted and
  // scrolled when it is.
  if (shown > 0) scroll_ = Scroll::Tint;
  int kernels = 0;
  if (kernels_ && line > 0)
    for (const auto& k : *kernels_) kernels += std::find(k.sourceLines.begin(), k.sourceLines.end(), line) != k.sourceLines.end();
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly}) {
    int n = 0;
    base_[t] = filled_[t] ? tint(t, editors_[t], shown, &n) : QList<QTextEdit::ExtraSelection>();
    if (filled_[t] && shown > 0) scrollKernelTab(t);
  }
  int n = 0;
  sideBase_[0] = sideFilled_ ? tint(KernelIr, sideLeftEdit_, shown, &n) : QList<QTextEdit::ExtraSelection>();
  sideBase_[1] = sideFilled_ ? tint(sideRight_, sideRightEdit_, shown, &n) : QList<QTextEdit::ExtraSelection>();
  applyTints();
  const auto& left = sideBase_[0];
  if (shown > 0 && !left.isEmpty()) sideLeftEdit_->verticalScrollBar()->setValue(std::max(0, left.first().cursor.blockNumber() - 1));
  emit sourceLineTinted(shown);
  return kernels;
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
    pending_[t].clear();
    source_[t] = nullptr;
    filled_[t] = !isKernelTab(t);  // empty is what they show
  }
  kernels_.reset();
  runMs_.clear();
  scroll_ = Scroll::None;
  sideFilled_ = false;
  ruleSteps_->clear();
  sideBase_[0].clear();
  sideBase_[1].clear();
  setTabVisible(KernelSource, false);
  for (QPlainTextEdit* e : {sideLeftEdit_, sideRightEdit_}) {
    e->clear();
    e->setExtraSelections({});
  }
  sideKernel_ = -1;
  emit kernelsShown(nullptr, {});
}

void TextPane::showKernel(const QString& kernel) {
  scroll_ = Scroll::Kernel;
  scrollKernel_ = kernel;
  if (!isKernelTab(currentIndex())) setCurrentIndex(KernelIr);  // filled and scrolled as it is shown
  for (Tab t : {KernelIr, KernelSource, LlvmIr, Assembly})
    if (filled_[t]) scrollKernelTab(t);
}

}  // namespace kiln::viewers
