// The kernel pane's CUDA, PTX and SASS tabs: what the GPU runs for the compile's kernels, each under
// a header with its launch (grid, block), registers, shared memory and spills. Kernels that ran
// on a GPU carry it in the store (schema 10); for the others it is made on demand, when one of
// these tabs is opened, by `kiln cuda --json` (app/cli/cuda_command.cpp) in a worker thread: the
// studio never links the compiler, and the UI never waits for NVRTC.
//
// Lines are tinted like the other kernel tabs: a CUDA line by the node its `// @N` names, a PTX
// line by the `.loc` above it and a SASS line by the `//## File` line above it (both annotated by
// the engine with "// cuda line K @N"), each node through its user source line. They take part
// in the hover link (Compiler Explorer's): hovering a line here lights its source line in the
// script, the graph and every kernel tab, and a hover elsewhere lights its lines here.
//
// Like the pane's own kernel tabs, a view is filled when it is shown (or its editor asked for):
// a compile's kernels are shared with the pane, never copied, and a recorded session's texts
// are read out of them only for the view shown.
#pragma once

#include "storage/store.h"
#include "viewers/text_pane.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTextEdit>

#include <map>
#include <vector>

class QLabel;
class QPlainTextEdit;

namespace kiln::viewers {

class GpuKernelViews : public QObject {
  Q_OBJECT

 public:
  enum View { Cuda, Ptx, Sass, ViewCount };

  // Appends the three tabs to `pane` and follows its kernels and tinted line.
  explicit GpuKernelViews(TextPane* pane);

  // The `kiln` executable that makes them for CPU sessions; "" (the default): they are shown
  // only for sessions that recorded them.
  static void setKilnPath(const QString& path);

  // The view's editor, filled first when its texts are there (recorded, or made already): a
  // CPU session's are not made by asking for the editor, only by showing a view.
  QPlainTextEdit* editor(View v);
  bool isFilled(View v) const { return filled_[v]; }
  // The source line line `block` of view `v` shows (0: none, or a kernel's header): a CUDA line
  // through its `// @N`, a PTX or SASS line through the line-info line above it.
  int sourceLineAt(int v, int block) const;
  int hoveredLine() const { return hover_; }
  QString status() const;  // where the texts come from, and what is missing
  int tabIndex(View v) const;

 signals:
  void shown();  // texts were shown: from the store, or a worker's result (tests wait on it)

 private:
  struct Made {  // per kernel: CUDA C++ and what the GPU runs
    std::string source;
    session::KernelGpuInfo gpu;
  };
  void setKernels(const TextPane::KernelList& kernels, const std::map<int, int>& nodeLines);
  // On showing one of the views: fill it, or start making the texts.
  void makeIfWanted();
  // The texts are there (recorded, or `made`): say where from, fill the view shown.
  void ready(std::vector<Made> made, const QString& status);
  void fill(int v);
  // Kernel i's source / PTX / SASS (view v) and GPU info: recorded in its row, or made here.
  const std::string& body(size_t i, int v) const;
  const session::KernelGpuInfo& gpu(size_t i) const;
  size_t textCount() const;
  int shownView() const;  // the view whose tab is current, or -1
  static QString madeStatus(const std::vector<Made>& made);
  void tint(int line);
  void tintView(int v);  // the selected line's tint in view v (once filled), under the hover
  void hover(int line);  // the hover link (TextPane::sourceLineHovered)
  QList<QTextEdit::ExtraSelection> selections(int v, int line, int darker) const;
  int sourceLineOf(const QString& text, bool backward) const;
  bool eventFilter(QObject* watched, QEvent* event) override;  // hover and clicks on the texts

  TextPane* pane_;
  QWidget* pages_[ViewCount] = {};
  QPlainTextEdit* editors_[ViewCount] = {};
  QLabel* status_[ViewCount] = {};
  TextPane::KernelList kernels_;
  std::map<int, int> nodeLines_;
  bool made_ = false;      // texts are there for kernels_ (recorded, made, or the reason there are none)
  bool recorded_ = false;  // ...in the kernels' rows (made_ is empty)
  std::vector<Made> madeTexts_;
  bool filled_[ViewCount] = {};  // the view holds its text for kernels_
  bool making_ = false;          // a worker is making them
  quint64 generation_ = 0;
  std::map<QByteArray, std::vector<Made>> cache_;  // kernel IR -> what kiln cuda made of it
  static constexpr size_t kCacheSize = 32;
  int line_ = 0;                                      // the tinted source line (-1: every line)
  int hover_ = 0;                                     // the hovered source line (0: none)
  QList<QTextEdit::ExtraSelection> base_[ViewCount];  // the tinted line's selections, under the hover
  struct Span {
    QString name;
    int first = 0, last = 0;
    std::vector<int> sourceLines;
  };
  std::vector<Span> spans_[ViewCount];
};

}  // namespace kiln::viewers
