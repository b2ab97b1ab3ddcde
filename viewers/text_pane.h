// TextPane: the text forms of what is selected, one monospace tab each: the stage's IR, what the
// step into it changed, what capture did for the compile (breaks, recompiles, guards, transformed
// code), the compile's kernel IR, generated source (GPU only), LLVM IR, assembly and wrapper, and
// the session's printed output, and the diff of two sessions. Kernel tabs hold every kernel of the
// compile under a header line; showKernel() scrolls them to one.
//
// A tab is filled when it is first shown (or its editor or text asked for), not when its text
// arrives: the 200-layer MiniTransformer's 1,601 kernels are ~26 MB of kernel IR, LLVM IR and
// assembly, and putting all of it into four kernel tabs and the side by side took the UI thread
// 2-3 s before the window was first painted. The kernels are held (shared with the stage read,
// never copied) and each tab's text is made from them when it is shown; a source line's tint,
// a hover and a scroll to a kernel are kept and applied to a tab when it is filled.
#pragma once

#include "storage/store.h"

#include <QTabWidget>
#include <QTextEdit>

#include <functional>
#include <map>
#include <memory>
#include <vector>

class QPlainTextEdit;

namespace kiln::viewers {

class RuleStepsPanel;

class TextPane : public QTabWidget {
  Q_OBJECT

 public:
  enum Tab { StageIr, Step, Capture, KernelIr, KernelSource, LlvmIr, Assembly, Wrapper, Output, Diff, TabCount };
  // A compile's kernels, shared by the stage read that made them, this pane and its GPU tabs.
  using KernelList = std::shared_ptr<const std::vector<storage::KernelRow>>;

  explicit TextPane(QWidget* parent = nullptr);

  void setStageText(const QString& text);
  // What the step into the selected stage did: rules that fired (for the fused stage, every
  // fusion decision) and the nodes it added, removed and changed.
  void setStepReport(const QString& text);
  // `nodeLines` maps the graph nodes kernel IR instructions name (`@N`) to their source lines:
  // with it, a source line tints only its own lines (and each kernel's header) in the kernel
  // IR, LLVM IR (`; @N`) and assembly (`# @N` before the instructions) tabs.
  // `runMs`: each kernel's time per launch from the session's profile (shown in its header).
  // Only the tab showing is filled now; the others when shown.
  void setKernels(std::vector<storage::KernelRow> kernels, std::map<int, int> nodeLines = {},
                  const std::map<std::string, double>& runMs = {});
  // The same without a copy of the kernels (the studio passes the stage read's).
  void setKernelList(KernelList kernels, std::map<int, int> nodeLines = {}, const std::map<std::string, double>& runMs = {});
  const KernelList& kernels() const { return kernels_; }
  // Whether tab `tab` holds its text yet (a kernel tab or text not shown since it was set does
  // not); the side by side when `tab` is TabCount.
  bool isFilled(Tab tab) const;
 signals:
  // For the tabs other views add (the CUDA, PTX and SASS ones, gpu_kernel_views.h): the kernels
  // shown (null after clearAll) with their nodes' source lines, and the source line tinted
  // (-1: every line in its own colour, 0: none).
  void kernelsShown(const kiln::viewers::TextPane::KernelList& kernels, const std::map<int, int>& nodeLines);
  void sourceLineTinted(int line);

 public:
  void setWrapper(const QString& text);
  // What capture did for the selected compile: graph breaks, recompile reasons, guards and the
  // transformed code (with resume functions), as Dynamo's logs and depyf show them.
  void setCapture(const QString& text);
  // The Capture tab's text made when the tab is first shown or its text asked for, not now (its
  // guards are 5 MB of JSON for a 200-layer model: read only where shown). setCapture replaces it.
  void setCaptureSource(std::function<QString()> make);
  void setSessionOutput(const QString& stdoutText, const QString& error);
  // `kiln diff` of two sessions; switches to the Diff tab. Kept when another session is shown.
  void setDiff(const QString& text);
  void clearAll();

  // Tints, in every kernel tab, the kernels generated from source line `line` (0 clears) in the
  // line's colour; returns how many kernels that is.
  int highlightSourceLine(int line);
  // With no line selected, tint every kernel line whose node has a source line in that line's
  // colour (the graph's Source line overlay); a selected line still tints only its own.
  void setEveryLineTinted(bool on);
  // The hover link: the kernel lines of source line `line` (in every kernel tab and the side by
  // side) drawn in its colour over the tint of the selected line, without scrolling; 0 clears.
  // A hover costs the kernels of that line, not the whole text: the selected line's tint is kept.
  void hoverSourceLine(int line);
  int hoveredSourceLine() const { return hover_; }
  // The hover link and clicks of a kernel text's mouse `event` (on its viewport): `lineAt` gives the
  // source line of a text block (0: none); emitted as lineHovered (on a change) / lineClicked.
  // Its own tabs and the tabs other panes add (the CUDA/PTX/SASS tabs) alike.
  void followMouse(QPlainTextEdit* editor, QEvent* event, const std::function<int(int)>& lineAt);
  // The source line of line `block` of the kernel tab `editor` shows (0: none, or not a kernel
  // tab): through its `@N` (assembly: the `# @N` above it); a kernel's header gives its first line.
  int sourceLineAt(const QPlainTextEdit* editor, int block) const;
  // Scrolls the kernel tabs to `kernel`, switching to the kernel IR tab unless one is showing.
  void showKernel(const QString& kernel);
  // The tab's editor, filled first (whoever asks for it reads or draws it).
  QPlainTextEdit* editor(Tab tab);
  // Under the Step tab's report: a rule-table pass's rule applications, one at a time (hidden
  // for other stages; rule_steps_panel.h).
  RuleStepsPanel* ruleSteps() const { return ruleSteps_; }
  QString text(Tab tab) const;  // the tab's text, filled or not (without filling it)

  // The "Side by side" tab (after Diff): kernel IR on the left, the same kernels' assembly, LLVM IR
  // or generated source on the right (`setSideBySide`), kept on the same kernel as the left
  // scrolls, and tinted for the selected source line like the other kernel tabs.
  int sideBySideIndex() const { return sideIndex_; }
  void setSideBySide(Tab right);  // LlvmIr, Assembly or KernelSource
  Tab sideBySideRight() const { return sideRight_; }
  QPlainTextEdit* sideEditor(bool right);  // filled first, as editor()

 signals:
  // The mouse moved onto a kernel line of source line `line` (0: a line of none); only changes.
  void lineHovered(int line);
  // A kernel line of source line `line` was clicked.
  void lineClicked(int line);
  // hoverSourceLine() changed the hovered line (tabs added by other panes draw it too).
  void sourceLineHovered(int line);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;  // hover and clicks on kernel text

 private:
  void setText(Tab tab, const QString& text);  // shown at once on the current tab, else kept until shown
  // Fills what is showing: the current tab, or the side by side.
  void fillShown();
  void fill(Tab tab);
  void fillSideBySide();
  void fillSideRight();
  static bool isKernelTab(int tab) { return tab == KernelIr || tab == KernelSource || tab == LlvmIr || tab == Assembly; }
  // The kernel tab an editor shows (the side by side's editors included); TabCount: none.
  Tab kernelTabOf(const QPlainTextEdit* editor) const;
  void applyTints();  // the selected line's tint (base_) plus the hovered line's
  void reportLineHovered(int line);
  void reportLineClicked(QPlainTextEdit* editor, int line);
  QList<QTextEdit::ExtraSelection> base_[TabCount], sideBase_[2];
  int hover_ = 0;
  int mouseLine_ = 0;

  QPlainTextEdit* editors_[TabCount] = {};
  RuleStepsPanel* ruleSteps_ = nullptr;
  // Where each kernel sits in a kernel tab: its header line (where showKernel scrolls) to its
  // last line, and the source lines it came from (what highlightSourceLine tints).
  struct KernelSpan {
    QString name;
    int first = 0, last = 0;
    std::vector<int> sourceLines;
  };
  std::vector<KernelSpan> spans_[TabCount];
  // Kernel tab `t`'s text made from kernels_, with where each kernel sits in it.
  QString kernelText(Tab t, std::vector<KernelSpan>* spans) const;
  KernelList kernels_;
  std::map<std::string, double> runMs_;
  std::map<int, int> nodeLines_;
  // A tab's text until it is shown (kernel tabs: made from kernels_ then); filled_: it is in the
  // editor. The side by side is filled as a whole (both sides; the right side again when it
  // changes to another text).
  QString pending_[TabCount];
  std::function<QString()> source_[TabCount];  // makes pending_ when first needed (setCaptureSource)
  void takeSource(Tab tab);                    // pending_[tab] from source_[tab], if it has one
  bool filled_[TabCount] = {};
  bool sideFilled_ = false;
  // The last scroll asked of the kernel tabs, applied to a tab when it is filled: to the first
  // line of the tinted source line (highlightSourceLine), or to a kernel (showKernel).
  enum class Scroll { None, Tint, Kernel } scroll_ = Scroll::None;
  QString scrollKernel_;
  void scrollKernelTab(Tab t);
  int sourceLineOf(const QString& kernelIrLine, bool backward) const;  // backward: a bw_* kernel
  // The tint of source line `line` (kEveryLine: each line its own) for the kernels of tab `t`,
  // as selections in editor `e` (which shows that tab's text).
  QList<QTextEdit::ExtraSelection> tint(Tab t, QPlainTextEdit* e, int line, int* kernels) const;
  void syncSideBySide();

  int sideIndex_ = -1;
  Tab sideRight_ = Assembly;
  QPlainTextEdit* sideLeftEdit_ = nullptr;
  QPlainTextEdit* sideRightEdit_ = nullptr;
  int sideKernel_ = -1;                  // the kernel the right side was last scrolled to
  int line_ = 0;                         // the source line tinted
  bool everyLine_ = false;               // setEveryLineTinted
  static constexpr int kEveryLine = -1;  // tint()'s `line` for every line in its own colour
  int tintedLine() const { return line_ > 0 ? line_ : everyLine_ ? kEveryLine : 0; }
};

}  // namespace kiln::viewers
