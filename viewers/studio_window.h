// StudioWindow: the kiln-studio main window. Sessions on the left, the script and the graph
// of the selected stage in the middle, stages on the right, the stage's text forms below.
// Reads only the store; scripts run in a `kiln` child process (ScriptRunner), and graph
// layout runs on GraphView's worker thread, so the UI thread never waits for either.
#pragma once

#include "storage/store.h"

#include <QMainWindow>

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QLineEdit;
class QDockWidget;
class QMenu;
class QMimeData;
class QListView;
class QProgressBar;
class QTabWidget;
class QToolButton;
class QTableView;
class QTextBrowser;

namespace kiln::viewers {

class ArtifactsPanel;
class BreaksPanel;
class FramesPanel;
class ProfileCharts;
class GraphDiffView;
class GraphView;
class ScriptRunner;
class SearchPanel;
class SessionListModel;
class SourceView;
class StageListModel;
struct StageContent;
struct StepDiff;
class StageGraphs;
class TextPane;
class TimingsChart;
class VerifyPanel;
class AutotunePanel;
class CollectivesTimeline;

class StudioWindow : public QMainWindow {
  Q_OBJECT

 public:
  // `kilnPath` is the `kiln` executable used to run scripts.
  StudioWindow(storage::Store& store, const QString& kilnPath, QWidget* parent = nullptr);
  ~StudioWindow() override;

  // Re-reads the session list and selects `sessionId`, else the current session, else the
  // newest one.
  void refreshSessions(qint64 sessionId = 0);
  void selectNewestSession();
  bool selectSession(qint64 sessionId);
  bool selectStage(int row);
  // Shows `kiln diff a b` in the Diff tab, computed off the UI thread (diffShown when it is
  // there); false (and a status message) when a session is not in the list.
  bool diffSessions(qint64 a, qint64 b);
  // Diffs the two sessions selected in the session list (older first).
  void diffSelectedSessions();
  // Store edits; each reports a failure in the status bar and returns false.
  bool renameSession(qint64 sessionId, const QString& name);
  bool deleteSessions(const QList<qint64>& sessionIds);
  // Runs `script` through `kiln run` and shows the session it stores.
  void runScript(const QString& script);
  // Writes the shown graph as SVG, PNG or DOT (by suffix); reports failures in the status bar.
  bool exportGraph(const QString& path);
  // File › Export Report…: the HTML page `kiln report` writes (storage/session_report.h) for the
  // session shown, to `path`, written on a pool thread; reportExported() says when and how it
  // went. False (nothing started) when no session is shown.
  bool exportReport(const QString& path);
  QAction* exportReportAction() const { return exportReportAction_; }
  // What File › Export Graph… and Export Report… ask for a file name with (title, suggested
  // name, filter -> path, "" to cancel): a save dialog unless replaced (tests, scripted use).
  using SavePathChooser = std::function<QString(const QString& title, const QString& suggested, const QString& filter)>;
  void setSavePathChooser(SavePathChooser chooser) { chooseSavePath_ = std::move(chooser); }
  // Selects the next / previous stage of the stepper (Alt+Down / Alt+Up).
  void stepStage(int delta);
  // Scripts run from the studio, newest first (File > Open Recent), kept in the settings.
  QStringList recentScripts() const;
  // What a drop on the window does: runs the first local .py among `mime`'s URLs; false if none.
  bool runDropped(const QMimeData* mime);

  // True once what is selected is fully on screen (see settled()); false while loading.
  bool isSettled() const { return settled_ && pendingReads_ == 0; }
  qint64 currentSessionId() const { return sessionId_; }
  qint64 currentStageId() const { return stageId_; }
  SessionListModel* sessionModel() const { return sessions_; }
  StageListModel* stageModel() const { return stages_; }
  GraphView* graphView() const { return graph_; }
  SourceView* sourceView() const { return source_; }
  TextPane* textPane() const { return text_; }
  QTextBrowser* inspector() const { return inspector_; }
  TimingsChart* timings() const { return timings_; }
  ProfileCharts* profileCharts() const { return profile_; }
  VerifyPanel* verifyPanel() const { return verify_; }
  AutotunePanel* autotunePanel() const { return autotune_; }
  CollectivesTimeline* collectivesTimeline() const { return collectives_; }
  QAction* verifyAction() const { return verifyAction_; }
  QToolButton* stopButton() const { return stopButton_; }
  // Shows the Timings dock on tab 0 (compile phases), 1 (run and kernel times), 2 (verify) or
  // 3 (the collectives' timeline).
  void showTimingsTab(int tab);
  // Find in graph (the field above the graph view): `step` 0 counts the matches of `text` in the
  // stage shown, +1 / -1 reveals the next / previous one. Returns the number of matches.
  int findInGraph(const QString& text, int step);
  BreaksPanel* breaksPanel() const { return breaks_; }
  ArtifactsPanel* artifactsPanel() const { return artifacts_; }
  // Raises the Artifacts tab on the first kept record whose name contains `name`.
  bool showArtifact(const QString& name);
  GraphDiffView* graphDiff() const { return graphDiff_; }
  FramesPanel* framesPanel() const { return frames_; }
  SearchPanel* searchPanel() const { return search_; }
  ScriptRunner* scriptRunner() const { return runner_; }

 protected:
  // Saves the window geometry and dock layout for the next start.
  void closeEvent(QCloseEvent* event) override;
  // The first time: the default dock sizes when no saved layout was restored.
  void showEvent(QShowEvent* event) override;
  // A .py file dropped on the window runs like File > Open Script.
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 signals:
  void sessionShown(qint64 sessionId);
  void stageShown(qint64 stageId);
  // What is selected is fully on screen: the stage's graph is laid out, or there is no graph
  // to lay out (no session, no stages, a failed run or read).
  void settled();
  void diffShown(qint64 a, qint64 b, bool ok);
  void reportExported(const QString& path, const QString& error);  // error "" when written

 private:
  void buildMenus();
  void buildDocks();
  void applyDefaultLayout();
  bool defaultLayoutPending_ = false;
  QDockWidget* addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area);
  bool reloadSessionList();  // false (and settled) when the list is empty or unreadable
  void showSession(qint64 sessionId);
  void showStage(int row);
  void showFailedCompile(const storage::CompileRow& failed);  // a stage-list row without a graph
  void onRunFinished(qint64 sessionId, const QString& error);
  void onNodeSelected(int nodeId);
  // The hover link across the script, the graph and the kernel texts (Compiler Explorer's):
  // whatever is hovered in one pane shows its source line's part in all three.
  void onLineHovered(int line);
  void onLineSelected(int line);
  void onLayoutFinished(const QString& error);
  void openScriptDialog();
  // File ▸ Import PyTorch Trace…: a TORCH_TRACE folder through `kiln import`, opened when stored.
  void importTraceDialog();
  void showSearchHit(qint64 sessionId, qint64 stageId);
  QList<qint64> selectedSessionIds() const;
  void renameCurrentSessionDialog();
  void deleteSelectedSessionsDialog();
  void markSettled();
  // Under the Source line overlay, the script's lines that have nodes in the graph shown, and
  // the kernel lines generated from them, are tinted in their colours too; otherwise none.
  void tintSourceLines();
  std::string scriptPath_;  // the shown session's script (nodes' lines in other files are not its)
  void showStepReport(int row, const StageContent& content);
  void finishStage(quint64 token, int row, std::shared_ptr<const StageContent> read, const QString& error);
  quint64 stageRequest_ = 0;  // the newest showStage() request: older results are dropped
  void showInLayoutFrame(const storage::StageRow& stage, std::shared_ptr<const StageContent> content);
  // Starts reading the layout frame of `stage`'s compile unless it is drawn or being read: from
  // showStage(), beside the stage's own read (each ~1 s for a 17,000-node stage of a 200-layer
  // model), so the two do not run one after the other.
  // `graphs`: shared with the stage's read (each graph read once); none: read alone.
  void readLayoutFrame(const storage::StageRow& stage, std::shared_ptr<StageGraphs> graphs = nullptr);
  static QString layoutFrameKey(qint64 sessionId, const storage::StageRow& stage);
  void finishLayoutFrame(const QString& key, ir::Graph frame, const QString& error);
  QString pendingFrameKey_;                                  // the compile whose stages are being read for a layout frame
  std::shared_ptr<const StageContent> pendingFrameContent_;  // the stage to show when they arrive...
  bool frameGraphWaiting_ = false;                           // ...once its own read has come (the frame may come first)
  QString failedFrameKey_, failedFrameError_;                // a frame that could not be read: its stages are laid out alone
  // Marks `graph`'s nodes added / changed against `before` in the view; the Step tab's text.
  QString describeChanges(const ir::Graph& before, const ir::Graph& graph, const QString& against, bool kernelMembership = true);
  QString describeChanges(StepDiff step, const ir::Graph& graph, const QString& against);  // made already (with the read)
  void exportGraphDialog();
  void exportReportDialog();
  void finishReport(const QString& path, const QString& error);
  void finishDiff(qint64 a, qint64 b, const QString& text, const QString& error);
  void rememberScript(const QString& script);
  void fillRecentMenu();
  void reportError(const QString& what, const std::exception& e);

  storage::Store& store_;
  SessionListModel* sessions_;
  StageListModel* stages_;
  ScriptRunner* runner_;
  QTableView* sessionTable_ = nullptr;
  QListView* stageList_ = nullptr;
  SourceView* source_ = nullptr;
  GraphView* graph_ = nullptr;
  TextPane* text_ = nullptr;
  SearchPanel* search_ = nullptr;
  QTextBrowser* inspector_ = nullptr;
  TimingsChart* timings_ = nullptr;
  ProfileCharts* profile_ = nullptr;
  VerifyPanel* verify_ = nullptr;
  AutotunePanel* autotune_ = nullptr;
  CollectivesTimeline* collectives_ = nullptr;
  QLineEdit* findField_ = nullptr;
  QToolButton* stopButton_ = nullptr;
  QLabel* findCount_ = nullptr;
  QString findText_;
  std::vector<int> findMatches_;
  int findAt_ = -1;
  QTabWidget* timingTabs_ = nullptr;
  BreaksPanel* breaks_ = nullptr;
  ArtifactsPanel* artifacts_ = nullptr;
  QDockWidget* artifactsDock_ = nullptr;
  QDockWidget* sessionsDock_ = nullptr;
  QDockWidget* searchDock_ = nullptr;
  QDockWidget* stagesDock_ = nullptr;
  QDockWidget* breaksDock_ = nullptr;
  QDockWidget* inspectorDock_ = nullptr;
  QDockWidget* textDock_ = nullptr;
  FramesPanel* frames_ = nullptr;
  GraphDiffView* graphDiff_ = nullptr;
  QDockWidget* graphDiffDock_ = nullptr;
  QLabel* summary_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QAction* stopAction_ = nullptr;
  QAction* exportReportAction_ = nullptr;
  SavePathChooser chooseSavePath_;
  QAction* verifyAction_ = nullptr;  // File ▸ Verify Compiled Graphs Against Eager (kiln run --verify)
  QMenu* recentMenu_ = nullptr;
  bool settled_ = false;
  int pendingReads_ = 0;
  std::pair<qint64, qint64> diffBase_{
      0, 0};  // the last diff (a, b): b's stages are coloured against a's  // store reads running on the thread pool (diffs)
  qint64 sessionId_ = 0;
  qint64 stageId_ = 0;
  std::string compileId_;                                                    // compile whose kernels and wrapper the text pane holds
  std::shared_ptr<const std::vector<storage::CompileRow>> sessionCompiles_;  // the shown session's, read once
  // That compile's kernels (names and node ids only) and run profile, for the graph's overlays.
  std::vector<storage::KernelRow> compileKernels_;
  std::map<std::string, double> compileRunMs_;
  std::map<std::string, int64_t> compileRunBytes_;
  bool compileProfiled_ = false;
};

}  // namespace kiln::viewers
