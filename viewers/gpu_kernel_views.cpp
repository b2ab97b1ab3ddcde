#include "viewers/gpu_kernel_views.h"

#include "engine/session/kernel_gpu_text.h"
#include "storage/graph_json.h"
#include "viewers/line_colour.h"
#include "viewers/text_pane.h"

#include <QApplication>
#include <QFontDatabase>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QScrollBar>
#include <QStringList>
#include <QTextBlock>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>

namespace kiln::viewers {

namespace {

QString& kilnPath() {
  static QString path;
  return path;
}

// `kiln cuda --json` on the kernels' IR: per kernel its CUDA C++ and GPU info, or the error.
std::vector<std::pair<std::string, session::KernelGpuInfo>> runKilnCuda(const QString& kiln, const QByteArray& kernelIr, QString& error) {
  std::vector<std::pair<std::string, session::KernelGpuInfo>> out;
  QProcess p;
  p.start(kiln, {QStringLiteral("cuda"), QStringLiteral("--json"), QStringLiteral("-")});
  if (!p.waitForStarted(10000)) {
    error = QObject::tr("could not start %1: %2").arg(kiln, p.errorString());
    return out;
  }
  p.write(kernelIr);
  p.closeWriteChannel();
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    error = QString::fromUtf8(p.readAllStandardError()).trimmed();
    if (error.isEmpty()) error = QObject::tr("kiln cuda did not finish");
    return out;
  }
  const QJsonObject j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
  for (const QJsonValue& kv : j.value(QStringLiteral("kernels")).toArray()) {
    const QJsonObject k = kv.toObject();
    // "gpu": the store's gpu_json form, read as the store reads it.
    session::KernelGpuInfo g;
    try {
      g = storage::gpuInfoFromJson(QJsonDocument(k.value(QStringLiteral("gpu")).toObject()).toJson().toStdString());
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
      return {};
    }
    g.ptx = k.value(QStringLiteral("ptx")).toString().toStdString();
    g.sass = k.value(QStringLiteral("sass")).toString().toStdString();
    out.emplace_back(k.value(QStringLiteral("source")).toString().toStdString(), std::move(g));
  }
  if (out.empty()) error = QObject::tr("kiln cuda gave no kernels");
  return out;
}

}  // namespace

void GpuKernelViews::setKilnPath(const QString& path) { kilnPath() = path; }

GpuKernelViews::GpuKernelViews(TextPane* pane) : QObject(pane), pane_(pane) {
  const QString titles[ViewCount] = {tr("CUDA"), tr("PTX"), tr("SASS")};
  const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  for (int v = 0; v < ViewCount; ++v) {
    auto* page = new QWidget(pane);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    status_[v] = new QLabel(page);
    status_[v]->setWordWrap(true);
    status_[v]->setObjectName(QStringLiteral("gpuViewStatus"));
    editors_[v] = new QPlainTextEdit(page);
    editors_[v]->setReadOnly(true);
    editors_[v]->setLineWrapMode(QPlainTextEdit::NoWrap);
    editors_[v]->setFont(mono);
    editors_[v]->setPlaceholderText(tr("Nothing to show"));
    layout->addWidget(status_[v]);
    layout->addWidget(editors_[v], 1);
    pages_[v] = page;
    editors_[v]->viewport()->setMouseTracking(true);
    editors_[v]->viewport()->installEventFilter(this);  // the hover link, and a click selects the line
    pane->addTab(page, titles[v]);
    pane->setTabVisible(pane->indexOf(page), false);
  }
  connect(pane, &TextPane::kernelsShown, this, &GpuKernelViews::setKernels);
  connect(pane, &TextPane::sourceLineTinted, this, &GpuKernelViews::tint);
  connect(pane, &TextPane::sourceLineHovered, this, &GpuKernelViews::hover);
  connect(pane, &QTabWidget::currentChanged, this, [this] { makeIfWanted(); });
}

int GpuKernelViews::tabIndex(View v) const { return pane_->indexOf(pages_[v]); }

QString GpuKernelViews::status() const { return status_[Cuda]->text(); }

void GpuKernelViews::setKernels(const TextPane::KernelList& kernels, const std::map<int, int>& nodeLines) {
  kernels_ = kernels;
  nodeLines_ = nodeLines;
  made_ = making_ = recorded_ = false;
  madeTexts_.clear();
  ++generation_;  // a worker still making the last compile's texts is ignored
  const bool none = !kernels || kernels->empty();
  bool recorded = !none, haveIr = !none;
  if (!none)
    for (const auto& k : *kernels) {
      recorded = recorded && !k.gpu.ptx.empty();
      haveIr = haveIr && !k.kernelIr.empty();
    }
  const bool any = recorded || (haveIr && !kilnPath().isEmpty());
  for (int v = 0; v < ViewCount; ++v) pane_->setTabVisible(tabIndex(static_cast<View>(v)), any);
  for (QPlainTextEdit* e : editors_) {
    e->clear();
    e->setExtraSelections({});
  }
  for (auto& b : base_) b.clear();
  for (auto& s : spans_) s.clear();
  for (bool& f : filled_) f = false;
  for (QLabel* l : status_) l->clear();
  if (!any) return;
  if (recorded) {
    recorded_ = true;
    ready({}, tr("Recorded when these kernels ran on the GPU (%1).").arg(QString::fromStdString(kernels->front().gpu.arch)));
    return;
  }
  makeIfWanted();
}

QString GpuKernelViews::madeStatus(const std::vector<Made>& made) {
  return tr("Made here from the kernel IR for %1: this session ran on the CPU, this is what the GPU would run.")
      .arg(QString::fromStdString(made.front().gpu.arch));
}

int GpuKernelViews::shownView() const {
  const int cur = pane_->currentIndex();
  for (int v = 0; v < ViewCount; ++v)
    if (cur == tabIndex(static_cast<View>(v))) return v;
  return -1;
}

void GpuKernelViews::makeIfWanted() {
  if (!kernels_ || kernels_->empty()) return;
  const int shown = shownView();
  if (shown < 0) return;  // made (and filled) when first looked at
  if (made_) return fill(shown);
  if (making_) return;
  QByteArray ir;
  for (const auto& k : *kernels_) ir += QByteArray::fromStdString(k.kernelIr) + "\n";
  // Stepping through a compile's stages shows its kernels again: made once per kernel IR.
  if (auto it = cache_.find(ir); it != cache_.end() && it->second.size() == kernels_->size()) {
    ready(it->second, madeStatus(it->second));
    return;
  }
  making_ = true;
  for (QLabel* l : status_) l->setText(tr("Compiling these kernels with NVRTC (kiln cuda)…"));
  const quint64 generation = generation_;
  const QString kiln = kilnPath();
  QPointer<GpuKernelViews> self(this);
  QThreadPool::globalInstance()->start([self, generation, kiln, ir] {
    QString error;
    auto made = runKilnCuda(kiln, ir, error);
    QMetaObject::invokeMethod(
        qApp,
        [self, generation, ir, made = std::move(made), error] {
          if (!self || generation != self->generation_) return;
          self->making_ = false;
          std::vector<Made> texts;
          for (const auto& [source, gpu] : made) texts.push_back({source, gpu});
          if (!error.isEmpty() || texts.size() != self->kernels_->size()) {
            self->made_ = true;
            for (QLabel* l : self->status_) l->setText(tr("Not made: %1").arg(error));
            emit self->shown();
            return;
          }
          if (self->cache_.size() >= kCacheSize) self->cache_.clear();
          self->cache_[ir] = texts;
          const QString status = madeStatus(texts);
          self->ready(std::move(texts), status);
        },
        Qt::QueuedConnection);
  });
}

void GpuKernelViews::ready(std::vector<Made> made, const QString& status) {
  made_ = true;
  madeTexts_ = std::move(made);
  QString notes = textCount() == 0 ? QString() : QString::fromStdString(gpu(0).notes).trimmed();
  for (QLabel* l : status_)
    l->setText(notes.isEmpty() ? status : status + QLatin1Char(' ') + notes.replace(QLatin1Char('\n'), QStringLiteral("; ")));
  if (const int shown = shownView(); shown >= 0) fill(shown);
  emit shown();
}

size_t GpuKernelViews::textCount() const {
  if (!kernels_) return 0;
  return recorded_ ? kernels_->size() : std::min(kernels_->size(), madeTexts_.size());
}

const session::KernelGpuInfo& GpuKernelViews::gpu(size_t i) const { return recorded_ ? (*kernels_)[i].gpu : madeTexts_[i].gpu; }

const std::string& GpuKernelViews::body(size_t i, int v) const {
  if (v == Cuda) return recorded_ ? (*kernels_)[i].source : madeTexts_[i].source;
  return v == Ptx ? gpu(i).ptx : gpu(i).sass;
}

QPlainTextEdit* GpuKernelViews::editor(View v) {
  fill(v);
  return editors_[v];
}

// View `v`'s text, made from the kernels when it is first shown; tinted for the selected line.
void GpuKernelViews::fill(int v) {
  if (!made_ || filled_[v]) return;
  filled_[v] = true;
  QStringList texts;
  int lines = 0;
  spans_[v].clear();
  for (size_t i = 0; i < textCount(); ++i) {
    const auto& k = (*kernels_)[i];
    const QString header =
        QStringLiteral("──── %1 (%2) · %3 ────")
            .arg(QString::fromStdString(k.name), QString::fromStdString(k.kind), QString::fromStdString(session::gpuSummary(gpu(i))));
    const std::string& text = body(i, v);
    QString b = text.empty() ? tr("(none)") : QString::fromStdString(text);
    if (b.endsWith(QLatin1Char('\n'))) b.chop(1);
    texts << header << b << QString();
    const int first = lines;
    lines += 2 + int(b.count(QLatin1Char('\n'))) + 1;
    spans_[v].push_back({QString::fromStdString(k.name), first, lines - 2, k.sourceLines});
  }
  editors_[v]->setPlainText(texts.join(QLatin1Char('\n')));
  tintView(v);
}

// The hover link: the lines of source line `line` drawn over the selected line's tint, darker, as
// the other kernel tabs draw them; no scrolling (hovering must not move what is read).
void GpuKernelViews::hover(int line) {
  if (line == hover_) return;
  hover_ = line;
  for (int v = 0; v < ViewCount; ++v)
    if (filled_[v]) editors_[v]->setExtraSelections(line > 0 ? base_[v] + selections(v, line, 118) : base_[v]);
}

int GpuKernelViews::sourceLineAt(int v, int block) const {
  if (nodeLines_.empty()) return 0;
  const QTextDocument* doc = editors_[v]->document();
  for (const auto& span : spans_[v]) {
    if (block <= span.first || block > span.last) continue;  // a header is the whole kernel's
    const bool backward = span.name.startsWith(QStringLiteral("bw_"));
    if (v == Cuda) return sourceLineOf(doc->findBlockByNumber(block).text(), backward);
    // PTX and SASS: the line-info line above (or this one). SASS names an inlined call's frames
    // on consecutive lines, the innermost first; one outside the kernel (no line) keeps the
    // group's, so the nearest with a line wins, as tint() reads them forwards.
    auto isInfo = [v](const QString& t) {
      return v == Ptx ? t.trimmed().startsWith(QStringLiteral(".loc")) : t.contains(QStringLiteral("//## File"));
    };
    int b = block;
    while (b > span.first && !isInfo(doc->findBlockByNumber(b).text())) --b;
    for (; b > span.first; --b) {
      const QString text = doc->findBlockByNumber(b).text();
      if (!isInfo(text)) break;
      if (text.contains(QStringLiteral("// cuda line")))
        if (const int line = sourceLineOf(text, backward); line > 0) return line;
    }
    return 0;
  }
  return 0;
}

bool GpuKernelViews::eventFilter(QObject* watched, QEvent* event) {
  for (int v = 0; v < ViewCount; ++v)
    if (editors_[v]->viewport() == watched) pane_->followMouse(editors_[v], event, [this, v](int block) { return sourceLineAt(v, block); });
  return false;
}

// A source line through the `@N` at the end of a CUDA line or of an annotated `.loc` / `//## File`.
int GpuKernelViews::sourceLineOf(const QString& text, bool backward) const { return sourceLineOfNodeRef(text, backward, nodeLines_); }

// The lines of view `v` from source line `line` (every tinted line when `line` < 0), each in its
// line's colour (darker by `darker` percent).
QList<QTextEdit::ExtraSelection> GpuKernelViews::selections(int v, int line, int darker) const {
  const bool every = line < 0;
  QPlainTextEdit* e = editors_[v];
  QList<QTextEdit::ExtraSelection> sels;
  {
    for (const auto& span : spans_[v]) {
      const bool has = std::find(span.sourceLines.begin(), span.sourceLines.end(), line) != span.sourceLines.end();
      if (!every && (line <= 0 || !has)) continue;
      const bool backward = span.name.startsWith(QStringLiteral("bw_"));
      int current = 0;           // PTX and SASS: the line of the last line-info line above
      bool lastWasInfo = false;  // SASS names an inlined group's frames on consecutive lines
      for (int b = span.first; b <= span.last; ++b) {
        const QTextBlock block = e->document()->findBlockByNumber(b);
        if (!block.isValid()) break;
        const QString text = block.text();
        int at = 0;
        if (b == span.first) {
          at = every ? 0 : line;  // the header: the kernel has the line
        } else if (nodeLines_.empty()) {
          at = every ? 0 : line;  // no node lines: the whole kernel, as the other tabs do
        } else if (v == Cuda) {
          at = sourceLineOf(text, backward);
        } else {
          const bool lineInfo = v == Ptx ? text.trimmed().startsWith(QStringLiteral(".loc")) : text.contains(QStringLiteral("//## File"));
          if (lineInfo) {
            const int here = text.contains(QStringLiteral("// cuda line")) ? sourceLineOf(text, backward) : 0;
            if (here > 0 || !lastWasInfo) current = here;  // a frame outside the kernel keeps its group's line
          }
          lastWasInfo = lineInfo;
          at = current;
        }
        if (at <= 0 || (!every && at != line)) continue;
        QTextEdit::ExtraSelection sel;
        sel.format.setBackground(darker > 100 ? lineColour(at).darker(darker) : lineColour(at));
        sel.format.setProperty(QTextFormat::FullWidthSelection, true);
        sel.cursor = QTextCursor(block);
        sels << sel;
      }
    }
  }
  return sels;
}

void GpuKernelViews::tint(int line) {
  line_ = line;
  for (int v = 0; v < ViewCount; ++v) tintView(v);  // a view not filled yet is tinted when it is
}

void GpuKernelViews::tintView(int v) {
  if (!filled_[v]) {
    base_[v].clear();
    return;
  }
  QPlainTextEdit* e = editors_[v];
  const QList<QTextEdit::ExtraSelection> sels = selections(v, line_, 100);
  base_[v] = sels;
  e->setExtraSelections(hover_ > 0 ? sels + selections(v, hover_, 118) : sels);
  // Bring the first tinted line of code into view, a few lines of context above it: PTX's
  // declarations can push it far below the kernel's (tinted) header.
  if (line_ > 0 && !sels.isEmpty()) {
    const int first = sels.size() > 1 ? sels[1].cursor.blockNumber() - 3 : sels.first().cursor.blockNumber() - 1;
    e->verticalScrollBar()->setValue(std::max(0, first));
  }
}

}  // namespace kiln::viewers
