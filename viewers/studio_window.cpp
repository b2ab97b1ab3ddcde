#include "viewers/studio_window.h"

#include "viewers/layout_frame.h"

#include "engine/ir/graph_diff.h"
#include "engine/ir/text.h"
#include "storage/session_diff.h"
#include "storage/session_report.h"
#include "viewers/artifacts_panel.h"
#include "viewers/autotune_panel.h"
#include "viewers/breaks_panel.h"
#include "viewers/collectives_timeline.h"
#include "viewers/frames_panel.h"
#include "viewers/graph_diff_view.h"
#include "viewers/graph_overlay.h"
#include "viewers/graph_view.h"
#include "viewers/layout_frame.h"
#include "viewers/profile_charts.h"
#include "viewers/rule_steps_panel.h"
#include "viewers/script_runner.h"
#include "viewers/search_panel.h"
#include "viewers/session_list_model.h"
#include "viewers/source_marks.h"
#include "viewers/source_view.h"
#include "viewers/stage_list_model.h"
#include "viewers/stage_reader.h"
#include "viewers/stage_views.h"
#include "viewers/text_pane.h"
#include "viewers/timings_chart.h"
#include "viewers/verify_panel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QSaveFile>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QThreadPool>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>

namespace kiln::viewers {
namespace {

constexpr int kStatusMs = 8000;
constexpr int kRecentScripts = 8;

// The studio's persistent settings (window layout, recent scripts): ~/.config/Kiln/kiln-studio.conf.
QSettings settings() { return QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")); }

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Graph breaks are reported against the file they happened in; only the script's own lines
// can be marked in the source pane.
bool sameFile(const std::string& file, const std::string& scriptPath) {
  return file.empty() || file == scriptPath || QFileInfo(qs(file)).fileName() == QFileInfo(qs(scriptPath)).fileName();
}

QString esc(const std::string& s) { return qs(s).toHtmlEscaped(); }

// The node inspector: op, arguments, types, provenance, kernel, and for the fused stage the
// fusion decisions taken on the node.
QString nodeReport(const ir::Graph& g, const ir::Node& n, const storage::StageRow& stage) {
  QString h = QStringLiteral("<h3 style='margin:0'>%1</h3><p><code>%2</code></p><table>")
                  .arg(esc(n.name), esc(n.target.empty() ? "placeholder" : n.target));
  auto row = [&](const QString& k, const QString& v) { h += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v); };
  QStringList types, args;
  for (const auto& t : n.types) types << esc(t.str());
  for (const auto& a : n.args) args << esc(ir::printArg(g, a));
  for (const auto& [k, a] : n.kwargs) args << esc(k + "=" + ir::printArg(g, a));
  row(QObject::tr("type"), types.join(QStringLiteral(", ")));
  if (!args.isEmpty()) row(QObject::tr("arguments"), QStringLiteral("<code>%1</code>").arg(args.join(QStringLiteral(", "))));
  const auto& loc = n.prov.loc;
  if (loc.valid()) {
    row(QObject::tr("source"), QStringLiteral("%1:%2:%3 in %4").arg(esc(loc.file)).arg(loc.line).arg(loc.col).arg(esc(loc.function)));
    if (!loc.code.empty()) row(QString(), QStringLiteral("<code>%1</code>").arg(esc(loc.code)));
  }
  if (!n.prov.modulePath.empty()) row(QObject::tr("module"), esc(n.prov.modulePath));
  for (const auto& f : n.prov.userStack)
    row(QObject::tr("called from"), QStringLiteral("%1:%2 in %3").arg(esc(f.file)).arg(f.line).arg(esc(f.function)));
  if (!n.prov.from.empty()) {
    QStringList from;
    for (int id : n.prov.from) from << QString::number(id);
    row(QObject::tr("derived from"), QObject::tr("nodes %1 of the previous stage").arg(from.join(QStringLiteral(", "))));
  }
  if (!n.kernel.empty()) row(QObject::tr("kernel"), esc(n.kernel));
  h += QStringLiteral("</table>");
  QStringList decisions;
  if (stage.stage == "fused")
    for (const auto& r : stage.rules)
      if (std::find(r.nodes.begin(), r.nodes.end(), n.id) != r.nodes.end()) decisions << esc(r.rule);
  if (!decisions.isEmpty()) h += QObject::tr("<p><b>Fusion</b><br>%1</p>").arg(decisions.join(QStringLiteral("<br>")));
  return h;
}

}  // namespace

StudioWindow::StudioWindow(storage::Store& store, const QString& kilnPath, QWidget* parent)
    : QMainWindow(parent),
      store_(store),
      sessions_(new SessionListModel(store, this)),
      stages_(new StageListModel(store, this)),
      runner_(new ScriptRunner(kilnPath, this)) {
  chooseSavePath_ = [this](const QString& title, const QString& suggested, const QString& filter) {
    return QFileDialog::getSaveFileName(this, title, suggested, filter);
  };
  setWindowTitle(tr("Kiln Studio — %1").arg(qs(store.path())));
  buildDocks();
  buildMenus();
  setAcceptDrops(true);
  {
    const QSettings s = settings();
    restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
    // No saved layout (a first start): the default sizes are set when the window's size is known.
    defaultLayoutPending_ = !restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  }

  summary_ = new QLabel(this);
  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);  // activity only until the run reports how far it has got
  busy_->setMaximumWidth(120);
  busy_->hide();
  // A stop button beside the progress bar while a script runs (File › Stop Run does the same).
  stopButton_ = new QToolButton(this);
  stopButton_->setDefaultAction(stopAction_);
  stopButton_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  stopButton_->hide();
  statusBar()->addPermanentWidget(summary_);
  statusBar()->addPermanentWidget(busy_);
  statusBar()->addPermanentWidget(stopButton_);

  connect(sessionTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (current.isValid()) showSession(sessions_->sessionIdAt(current.row()));
  });
  connect(stageList_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (current.isValid()) showStage(current.row());
  });
  connect(graph_, &GraphView::nodeSelected, this, &StudioWindow::onNodeSelected);
  // One rule application selected in the Step tab: its nodes marked in the graph.
  connect(text_->ruleSteps(), &RuleStepsPanel::applicationSelected, this, [this] { markApplication(*text_->ruleSteps(), *graph_); });
  connect(graph_, &GraphView::layoutFinished, this, &StudioWindow::onLayoutFinished);
  connect(graph_, &GraphView::overlayChanged, this, &StudioWindow::tintSourceLines);
  connect(source_, &SourceView::lineSelected, this, &StudioWindow::onLineSelected);
  connect(source_, &SourceView::lineHovered, this, &StudioWindow::onLineHovered);
  connect(graph_, &GraphView::lineHovered, this, &StudioWindow::onLineHovered);
  connect(text_, &TextPane::lineHovered, this, &StudioWindow::onLineHovered);
  connect(text_, &TextPane::lineClicked, this, [this](int line) {
    source_->highlightLine(line);  // scrolls the script to it
    onLineSelected(line);
  });
  connect(runner_, &ScriptRunner::progress, this, [this](const QString& m) { statusBar()->showMessage(m); });
  connect(runner_, &ScriptRunner::percent, this, [this](int value) {
    busy_->setRange(0, 100);
    busy_->setValue(value);
  });
  connect(runner_, &ScriptRunner::finished, this, &StudioWindow::onRunFinished);
}

StudioWindow::~StudioWindow() = default;

QDockWidget* StudioWindow::addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);  // saveState() restores docks by name
  dock->setWidget(widget);
  addDockWidget(area, dock);
  return dock;
}

void StudioWindow::buildDocks() {
  source_ = new SourceView(this);
  graph_ = new GraphView(this);
  // Find in graph, above the view: matches in folded modules are revealed (expanded).
  findField_ = new QLineEdit(this);
  findField_->setPlaceholderText(tr("Find node (name, op or module): Enter next, Shift+Enter previous"));
  findField_->setClearButtonEnabled(true);
  findCount_ = new QLabel(this);
  auto* graphPane = new QWidget(this);
  auto* graphLayout = new QVBoxLayout(graphPane);
  graphLayout->setContentsMargins(0, 0, 0, 0);
  graphLayout->setSpacing(2);
  auto* findRow = new QHBoxLayout;
  findRow->addWidget(findField_);
  findRow->addWidget(findCount_);
  graphLayout->addLayout(findRow);
  graphLayout->addWidget(graph_);
  connect(findField_, &QLineEdit::textChanged, this, [this](const QString& t) { findInGraph(t, 0); });
  connect(findField_, &QLineEdit::returnPressed, this,
          [this] { findInGraph(findField_->text(), QApplication::keyboardModifiers() & Qt::ShiftModifier ? -1 : 1); });
  auto* centre = new QSplitter(Qt::Horizontal, this);
  centre->addWidget(source_);
  centre->addWidget(graphPane);
  centre->setStretchFactor(0, 2);
  centre->setStretchFactor(1, 3);
  setCentralWidget(centre);

  sessionTable_ = new QTableView(this);
  // Named: stage views (stage_views.h) add tables of their own, so tests and tools find this
  // one by name, not as the window's first QTableView.
  sessionTable_->setObjectName(QStringLiteral("sessionTable"));
  sessionTable_->setModel(sessions_);
  sessionTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  sessionTable_->setSelectionMode(QAbstractItemView::ExtendedSelection);  // Ctrl+click a second one to diff
  sessionTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  sessionTable_->verticalHeader()->hide();
  // Every column's header in full ("Breaks", not "Br"); the name takes what is left, elided.
  sessionTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  sessionTable_->horizontalHeader()->setSectionResizeMode(SessionListModel::Name, QHeaderView::Stretch);
  sessionTable_->setTextElideMode(Qt::ElideMiddle);
  sessionsDock_ = addDock(tr("Sessions"), QStringLiteral("sessions"), sessionTable_, Qt::LeftDockWidgetArea);

  search_ = new SearchPanel(store_, this);
  // A tab beside the sessions (Ctrl+F raises it): an empty result list is no default pane.
  searchDock_ = addDock(tr("Search"), QStringLiteral("search"), search_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(sessionsDock_, searchDock_);
  sessionsDock_->raise();
  connect(search_, &SearchPanel::hitActivated, this, &StudioWindow::showSearchHit);

  stageList_ = new QListView(this);
  stageList_->setModel(stages_);
  stageList_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  stageList_->setUniformItemSizes(true);
  stagesDock_ = addDock(tr("Stages and passes"), QStringLiteral("stages"), stageList_, Qt::RightDockWidgetArea);

  frames_ = new FramesPanel(this);
  auto* framesDock = addDock(tr("Frames"), QStringLiteral("frames"), frames_, Qt::LeftDockWidgetArea);
  connect(frames_, &FramesPanel::compileActivated, this, [this](const QString& cid) {
    // The compile's last stage (fused, or the last one it reached) and its Capture tab.
    int row = -1;
    for (int r = 0; r < stages_->rowCount(); ++r)
      if (qs(stages_->stageAt(r).compileId) == cid) row = r;
    if (row >= 0) selectStage(row);
    text_->setCurrentIndex(TextPane::Capture);
  });

  breaks_ = new BreaksPanel(this);
  auto* breaksDock = breaksDock_ = addDock(tr("Breaks and recompiles"), QStringLiteral("breaks"), breaks_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(framesDock, breaksDock);
  // Imported sessions keep records as they came (artifacts): a third tab beside them.
  artifacts_ = new ArtifactsPanel(this);
  artifactsDock_ = addDock(tr("Artifacts"), QStringLiteral("artifacts"), artifacts_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(breaksDock, artifactsDock_);
  breaksDock->raise();
  connect(breaks_, &BreaksPanel::lineActivated, this, [this](int line) {
    source_->highlightLine(line);
    onLineSelected(line);
  });

  // Compile phases, run time eager vs compiled, and kernel times: one dock, three tabs.
  timings_ = new TimingsChart(this);
  profile_ = new ProfileCharts(this);
  timingTabs_ = new QTabWidget(this);
  timingTabs_->addTab(timings_, tr("Compile phases"));
  timingTabs_->addTab(profile_, tr("Run and kernel times"));
  verify_ = new VerifyPanel(this);
  timingTabs_->addTab(verify_, tr("Verify"));
  collectives_ = new CollectivesTimeline(this);
  timingTabs_->addTab(collectives_, tr("Collectives"));
  autotune_ = new AutotunePanel(this);
  timingTabs_->addTab(autotune_, tr("Autotune"));
  auto* timingsDock = addDock(tr("Timings"), QStringLiteral("timings"), timingTabs_, Qt::BottomDockWidgetArea);

  inspector_ = new QTextBrowser(this);
  inspector_->setPlaceholderText(tr("Click a node to inspect it"));
  inspectorDock_ = addDock(tr("Node"), QStringLiteral("inspector"), inspector_, Qt::RightDockWidgetArea);

  text_ = new TextPane(this);
  auto* textDock = textDock_ = addDock(tr("Text"), QStringLiteral("text"), text_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(textDock, timingsDock);
  graphDiff_ = new GraphDiffView(this);
  graphDiffDock_ = addDock(tr("Graph diff"), QStringLiteral("graphDiff"), graphDiff_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(textDock, graphDiffDock_);
  graphDiffDock_->hide();  // shown once a diff is active and a stage of its second session is
  textDock->raise();
}

// The first start's dock sizes, as shares of the window (at 1920x1080: sessions 480 px wide,
// stages 300, the text pane 430 px tall, ~25 lines of code): the centre keeps the script and
// the graph, the text pane is tall enough to read a kernel, and no empty pane is large.
void StudioWindow::applyDefaultLayout() {
  resizeDocks({sessionsDock_, stagesDock_}, {std::max(420, width() / 4), std::max(260, width() * 16 / 100)}, Qt::Horizontal);
  const int bottom = std::max(260, height() * 2 / 5);
  resizeDocks({textDock_}, {bottom}, Qt::Vertical);
  const int left = height() - bottom;
  resizeDocks({sessionsDock_, breaksDock_}, {left * 2 / 5, left * 3 / 5}, Qt::Vertical);
  resizeDocks({stagesDock_, inspectorDock_}, {left * 3 / 5, left * 2 / 5}, Qt::Vertical);
  // The centre: script 2 : graph 3 (sizes are scaled to the splitter's width).
  if (auto* centre = qobject_cast<QSplitter*>(centralWidget())) centre->setSizes({2000, 3000});
}

void StudioWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (std::exchange(defaultLayoutPending_, false)) applyDefaultLayout();
}

void StudioWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open Script…"), QKeySequence::Open, this, &StudioWindow::openScriptDialog);
  file->addAction(tr("&Import PyTorch Trace (TORCH_TRACE folder)…"), QKeySequence(Qt::CTRL | Qt::Key_I), this,
                  &StudioWindow::importTraceDialog);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &StudioWindow::fillRecentMenu);
  stopAction_ = file->addAction(tr("&Stop Run"), this, [this] { runner_->cancel(); });
  // Runs check every compiled graph against eager and bisect a difference (kiln run --verify).
  verifyAction_ = file->addAction(tr("&Verify Compiled Graphs Against Eager"));
  verifyAction_->setCheckable(true);
  verifyAction_->setChecked(settings().value(QStringLiteral("verifyRuns"), false).toBool());
  runner_->setVerify(verifyAction_->isChecked());
  connect(verifyAction_, &QAction::toggled, this, [this](bool on) {
    runner_->setVerify(on);
    settings().setValue(QStringLiteral("verifyRuns"), on);
  });
  stopAction_->setEnabled(false);
  file->addAction(tr("&Refresh Sessions"), QKeySequence::Refresh, this, [this] { refreshSessions(); });
  file->addAction(tr("&Export Graph…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &StudioWindow::exportGraphDialog);
  exportReportAction_ = file->addAction(tr("Export &Report… (HTML, as kiln report)"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                                        &StudioWindow::exportReportDialog);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
  QMenu* session = menuBar()->addMenu(tr("&Session"));
  session->addAction(tr("&Diff Selected Sessions"), QKeySequence(Qt::CTRL | Qt::Key_D), this, &StudioWindow::diffSelectedSessions);
  session->addAction(tr("&Search Sessions…"), QKeySequence::Find, this, [this] {
    searchDock_->show();
    searchDock_->raise();
    search_->field()->setFocus();
    search_->field()->selectAll();
  });
  session->addAction(tr("&Rename Session…"), QKeySequence(Qt::Key_F2), this, &StudioWindow::renameCurrentSessionDialog);
  session->addAction(tr("De&lete Selected Sessions…"), QKeySequence::Delete, this, &StudioWindow::deleteSelectedSessionsDialog);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit Graph"), QKeySequence(Qt::CTRL | Qt::Key_0), graph_, &GraphView::zoomToFit);
  view->addAction(tr("&Zoom to Selection"), QKeySequence(Qt::CTRL | Qt::Key_Period), graph_, &GraphView::zoomToSelection);
  view->addAction(tr("Find in &Graph…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), this, [this] {
    findField_->setFocus();
    findField_->selectAll();
  });
  view->addAction(tr("&Next Stage"), QKeySequence(Qt::ALT | Qt::Key_Down), this, [this] { stepStage(1); });
  view->addAction(tr("&Previous Stage"), QKeySequence(Qt::ALT | Qt::Key_Up), this, [this] { stepStage(-1); });
  // Within a rule-table pass: one rule application at a time, in the Step tab.
  view->addAction(tr("Next &Rule Application"), QKeySequence(Qt::ALT | Qt::Key_Right), this, [this] {
    text_->setCurrentIndex(TextPane::Step);
    text_->ruleSteps()->step(1);
  });
  view->addAction(tr("Previous R&ule Application"), QKeySequence(Qt::ALT | Qt::Key_Left), this, [this] {
    text_->setCurrentIndex(TextPane::Step);
    text_->ruleSteps()->step(-1);
  });
}

bool StudioWindow::reloadSessionList() {
  try {
    sessions_->refresh();
  } catch (const std::exception& e) {
    reportError(tr("Could not read the session list"), e);
    markSettled();
    return false;
  }
  sessionTable_->resizeColumnsToContents();
  if (sessions_->rowCount() > 0) return true;
  sessionId_ = 0;
  stages_->load(0);
  source_->setSource({});
  text_->clearAll();
  graph_->clearGraph(tr("No sessions yet. File › Open Script… runs one."));
  markSettled();
  return false;
}

void StudioWindow::refreshSessions(qint64 sessionId) {
  if (!reloadSessionList()) return;
  if (sessionId > 0 && selectSession(sessionId)) return;
  if (sessionId_ > 0 && selectSession(sessionId_)) return;
  selectSession(sessions_->sessionIdAt(0));
}

void StudioWindow::selectNewestSession() {
  if (reloadSessionList()) selectSession(sessions_->sessionIdAt(0));
}

bool StudioWindow::selectSession(qint64 sessionId) {
  const int row = sessions_->rowOf(sessionId);
  if (row < 0) return false;
  const QModelIndex index = sessions_->index(row, 0);
  if (sessionTable_->currentIndex().row() == row) showSession(sessionId);  // no change signal
  else sessionTable_->setCurrentIndex(index);
  sessionTable_->scrollTo(index);
  return true;
}

bool StudioWindow::selectStage(int row) {
  if (row < 0 || row >= stages_->rowCount()) return false;
  if (stageList_->currentIndex().row() == row) showStage(row);
  else stageList_->setCurrentIndex(stages_->index(row));
  return true;
}

void StudioWindow::showSession(qint64 sessionId) {
  sessionId_ = sessionId;
  stageId_ = 0;
  compileId_.clear();
  text_->clearAll();
  QString raisedWhat;  // the exception the run ended with, and its line in the script
  int raisedLine = 0;
  try {
    const auto detail = store_.session(sessionId);
    if (!detail) throw storage::StoreError("session " + std::to_string(sessionId) + " no longer exists");
    const storage::SessionSummary& s = detail->summary;
    scriptPath_ = s.scriptPath;
    source_->setSource(qs(detail->scriptText));
    // An imported run whose script was not found at import time has no source to show.
    source_->setPlaceholderText(detail->scriptText.empty()
                                    ? tr("The script's source is not in this session: %1 was not found when it was recorded "
                                         "or imported (kiln import --source-root DIR finds it elsewhere).")
                                          .arg(qs(s.scriptPath))
                                    : QString());
    QList<LineMark> marks;
    for (const auto& b : store_.graphBreaks(sessionId)) {
      if (!sameFile(b.file, s.scriptPath)) continue;
      QStringList tip{QStringLiteral("%1 graph break: %2").arg(qs(b.code), qs(b.title)), qs(b.explanation)};
      for (const auto& h : b.hints) tip << QStringLiteral("hint: ") + qs(h);
      marks << LineMark{b.line, QColor(0xd9, 0x48, 0x3b), tip.join(QLatin1Char('\n'))};
    }
    const auto recompiles = store_.recompiles(sessionId);
    // Read once for the session, the guards only counted (a 200-layer model's are 5 MB of JSON,
    // 140-250 ms to parse before any stage read could start): the Capture tab reads its
    // compile's guards when it is shown.
    sessionCompiles_ = std::make_shared<const std::vector<storage::CompileRow>>(store_.compiles(sessionId, storage::GuardRead::Counted));
    const auto& compiles = *sessionCompiles_;
    marks << recompileMarks(recompiles);
    // A failed compile (a break under fullgraph=True) marks its line as a break does.
    for (const auto& c : compiles)
      if (c.status == "failed" && c.line > 0 && (c.file.empty() || sameFile(c.file, s.scriptPath)))
        marks << LineMark{c.line, QColor(0xd9, 0x48, 0x3b),
                          tr("[%1] compile failed: %2").arg(qs(c.compileId), qs(c.message)) +
                              (c.detail.empty() ? QString() : QStringLiteral("\n") + qs(c.detail))};
    // A run that raised shows where, first: the line marked and the traceback in front.
    const LineMark raised = detail->error.empty() ? LineMark{} : errorMark(qs(detail->error), qs(s.scriptPath));
    if (raised.line > 0) marks << raised;
    if (!detail->error.empty()) {
      raisedWhat = raised.tooltip.isEmpty() ? qs(detail->error) : raised.tooltip;
      if (raised.line > 0) raisedWhat += tr(" (line %1)").arg(raised.line);
      raisedLine = raised.line;
    }
    source_->setMarks(marks);
    // The first marked line (a break, a failed compile, a recompile's guard) is in view when the
    // session opens, not only once clicked in the Breaks dock.
    int firstMarked = 0;
    for (const LineMark& m : marks)
      if (m.line > 0 && (firstMarked == 0 || m.line < firstMarked)) firstMarked = m.line;
    source_->scrollToLine(firstMarked);
    breaks_->setSession(store_.graphBreaks(sessionId), recompiles, compiles);
    if (auto* dock = qobject_cast<QDockWidget*>(breaks_->parentWidget()))
      dock->setWindowTitle(breaks_->failedCount() ? tr("Breaks and recompiles · %n failed", nullptr, breaks_->failedCount())
                                                  : tr("Breaks and recompiles"));
    artifacts_->setArtifacts(store_.artifactIndex(sessionId), [this](int64_t id) { return store_.artifactText(id); });
    artifactsDock_->setWindowTitle(artifacts_->artifactCount() ? tr("Artifacts (%1)").arg(artifacts_->artifactCount()) : tr("Artifacts"));
    frames_->setSession(store_.frames(sessionId), compiles, recompiles);
    timings_->setTimings(store_.timings(sessionId));
    profile_->setProfiles(store_.profiles(sessionId));
    verify_->setResults(store_.verifications(sessionId));
    autotune_->setChoices(store_.autotuneChoices(sessionId));
    timingTabs_->setTabText(timingTabs_->indexOf(autotune_),
                            autotune_->productCount() > 0 ? tr("Autotune (%1)").arg(autotune_->productCount()) : tr("Autotune"));
    collectives_->setCollectives(store_.collectives(sessionId));
    timingTabs_->setTabText(timingTabs_->indexOf(collectives_), collectives_->collectiveCount() > 0
                                                                    ? tr("Collectives (%1)").arg(collectives_->collectiveCount())
                                                                    : tr("Collectives"));
    timingTabs_->setTabText(timingTabs_->indexOf(verify_),
                            verify_->mismatchCount() > 0 ? tr("Verify (%1 differ)").arg(verify_->mismatchCount()) : tr("Verify"));
    text_->setSessionOutput(qs(detail->stdoutText), qs(detail->error));
    stages_->load(sessionId, compiles);
    summary_->setText(tr("#%1 %2 · %3 · %4 graphs · %5 breaks · %6 recompiles")
                          .arg(s.id)
                          .arg(qs(s.name), qs(s.status))
                          .arg(s.graphCount)
                          .arg(s.breakCount)
                          .arg(s.recompileCount) +
                      (breaks_->failedCount() ? tr(" · %n failed compile(s)", nullptr, breaks_->failedCount()) : QString()));
  } catch (const std::exception& e) {
    stages_->load(0);
    breaks_->setSession({}, {});
    artifacts_->setArtifacts({}, nullptr);
    frames_->setSession({}, {}, {});
    graph_->clearGraph(tr("Could not read this session"));
    reportError(tr("Could not read session %1").arg(sessionId), e);
    markSettled();
    return;
  }
  emit sessionShown(sessionId);
  const int row = stages_->defaultRow();
  if (row < 0) graph_->clearGraph(tr("This session compiled no graphs"));
  else selectStage(row);
  if (!raisedWhat.isEmpty()) {
    text_->setCurrentIndex(TextPane::Output);
    if (raisedLine > 0) source_->highlightLine(raisedLine);
    statusBar()->showMessage(raisedWhat);
  }
  if (row < 0) markSettled();
}

// The stage's graph and texts are read on a pool thread with a connection of its own (a
// 4,096-node stage takes ~50 ms to read); only the newest request is shown.
void StudioWindow::showStage(int row) {
  if (const storage::CompileRow* failed = stages_->failureAt(row)) return showFailedCompile(*failed);
  const storage::StageRow& stage = stages_->stageAt(row);
  stageId_ = stage.id;
  settled_ = false;
  findText_.clear();  // matches are per stage: the next find searches this one
  StageRequest request;
  request.sessionId = sessionId_;
  request.stage = stage;
  // The stage stepped from: the one before it in the same piece and direction, not simply the
  // row above (a DDP split's submod_1 does not step from submod_0, nor the joint graph from the
  // forward's fused stage).
  if (const int from = stages_->steppedFromRow(row); from >= 0) request.previous = stages_->stageAt(from);
  if (diffBase_.second == sessionId_ && diffBase_.first > 0) request.diffBase = diffBase_.first;
  // Kernels and wrapper belong to the compile: read them when the compile on screen differs.
  request.withCompile = stage.compileId != compileId_;
  request.compiles = sessionCompiles_;
  // The step report's diff against the stage before (showStepReport's case) is made with the read.
  request.withStepDiff = request.previous && !(diffBase_.second == sessionId_ && diffBase_.first > 0) && row > 0 &&
                         stages_->stageAt(row - 1).stage != "captured";
  request.kernelMembership = stage.stage != "fused";
  request.withCapture = false;  // made when the Capture tab is shown (finishStage)
  const quint64 token = ++stageRequest_;
  ++pendingReads_;
  statusBar()->showMessage(tr("Reading %1…").arg(StageListModel::label(stage)));
  // Started from the event loop, not here: opening a session selects its default stage and the
  // caller may pick another at once (--stage, a stage given with the session); a read that is
  // moot before it starts is not made (a 200-layer model's took a second of a core).
  QMetaObject::invokeMethod(
      this,
      [this, request, token, row] {
        if (token != stageRequest_) {
          --pendingReads_;
          if (isSettled()) emit settled();
          return;
        }
        auto graphs = std::make_shared<StageGraphs>();
        readLayoutFrame(request.stage, graphs);
        const std::string path = store_.path();
        QPointer<StudioWindow> self(this);
        QThreadPool::globalInstance()->start([self, path, request, token, row, graphs] {
          auto content = std::make_shared<StageContent>();
          QString error;
          try {
            auto store = storage::Store::open(path);
            *content = readStageContent(*store, request, graphs.get());
          } catch (const std::exception& e) { error = QString::fromUtf8(e.what()); }
          QMetaObject::invokeMethod(
              qApp,
              [self, token, row, content = std::shared_ptr<const StageContent>(content), error] {
                if (self) self->finishStage(token, row, content, error);
              },
              Qt::QueuedConnection);
        });
      },
      Qt::QueuedConnection);
}

// A compile that failed before it had a graph: why, in the graph's place and the Capture tab,
// and its line marked and scrolled to.
void StudioWindow::showFailedCompile(const storage::CompileRow& failed) {
  stageId_ = 0;
  ++stageRequest_;  // a stage still being read is not shown over this
  compileId_.clear();
  const QString what = tr("[%1] compile failed: %2").arg(qs(failed.compileId), qs(failed.message)) +
                       (failed.line > 0 ? tr(" (line %1)").arg(failed.line) : QString());
  // The explanation wrapped to lines of ~60 characters: the message is one text item.
  QString wrapped;
  int column = 0;
  for (const QString& word : qs(failed.detail).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (column > 0 && column + word.size() > 60) wrapped += QLatin1Char('\n'), column = 0;
    else if (column > 0) wrapped += QLatin1Char(' '), ++column;
    wrapped += word;
    column += int(word.size());
  }
  graph_->clearGraph(what + (wrapped.isEmpty() ? QString() : QStringLiteral("\n\n") + wrapped));
  clearStageViews(text_);
  text_->setCapture(what + QStringLiteral("\n\n") + qs(failed.detail) +
                    tr("\n\nThis compile produced no graph: with fullgraph=True a graph break is an error."));
  text_->setCurrentIndex(TextPane::Capture);
  if (failed.line > 0) source_->highlightLine(failed.line);
  statusBar()->showMessage(what);
  markSettled();
}

void StudioWindow::finishStage(quint64 token, int row, std::shared_ptr<const StageContent> read, const QString& error) {
  const StageContent& content = *read;
  --pendingReads_;
  if (token != stageRequest_ || row >= stages_->rowCount()) {  // a newer stage was asked for
    if (isSettled()) emit settled();
    return;
  }
  const storage::StageRow& stage = stages_->stageAt(row);
  if (!error.isEmpty()) {
    compileId_.clear();
    graph_->clearGraph(tr("Could not read this stage"));
    clearStageViews(text_);
    statusBar()->showMessage(tr("Could not read stage %1: %2").arg(StageListModel::label(stage), error));
    markSettled();
    return;
  }
  if (content.withCompile) {
    compileId_ = stage.compileId;
    text_->setKernelList(content.kernels, content.nodeLines, content.runMs);
    text_->setWrapper(qs(content.wrapper));
    // Read when the tab is shown: its compile's guards (5 MB of JSON for a 200-layer model) are
    // parsed there, not before the first paint.
    text_->setCaptureSource([this, sessionId = sessionId_, compileId = stage.compileId, compiles = sessionCompiles_] {
      try {
        return qs(captureReport(store_, sessionId, compileId, compiles.get()));
      } catch (const std::exception& e) { return tr("Could not read what capture did: %1").arg(QString::fromUtf8(e.what())); }
    });
    // New kernel text: tint the selected source line's lines in it again.
    if (const int line = source_->highlightedLine(); line > 0) text_->highlightSourceLine(line);
    compileKernels_.clear();
    for (const auto& k : *content.kernels) {
      storage::KernelRow slim;
      slim.name = k.name;
      slim.nodeIds = k.nodeIds;
      compileKernels_.push_back(std::move(slim));
    }
    compileRunMs_ = content.runMs;
    compileRunBytes_ = content.runBytes;
    compileProfiled_ = content.profiled;
  }
  graph_->setOverlayData(overlayDataFor(stage.stage, compileKernels_, compileProfiled_, compileRunMs_, compileRunBytes_));
  // Before the graph is handed over: stepping inside a layout frame draws it at once, and its
  // "N nodes" must not be overwritten by a "Laying out…" that nothing clears.
  statusBar()->showMessage(tr("Laying out %1…").arg(StageListModel::label(stage)));
  showInLayoutFrame(stage, read);
  // After the graph is handed to the layout worker: the Stage IR tab's text (130 ms of the UI
  // thread for a 17,000-node stage when it is the tab shown) is set while the layout is made.
  text_->setStageText(qs(content.text));
  showStepReport(row, content);
  // Stage views (stage_views.h), Kiln's own and studio plugins': tabs after the text tabs.
  showStageViews(text_, {store_, sessionId_, stage, content.graph, content.previous ? &*content.previous : nullptr, content.text});
  emit stageShown(stage.id);
}

// ATen, the passes and the fused stage of one compile share node ids: the graph view lays out
// their union once and keeps every node where it was while the user steps (layout_frame.h).
// The captured graph has ids of its own and is laid out by itself; the backward stages
// (backward:*) share ids among themselves only, so they get a frame of their own. The union needs every stage
// of the compile (0.4 s of reading for a 4,096-node model): read on a pool thread with a
// connection of its own, started by showStage() beside the stage's own read; the stage is drawn
// when both have come, in whichever order.
void StudioWindow::showInLayoutFrame(const storage::StageRow& stage, std::shared_ptr<const StageContent> content) {
  const ir::Graph& graph = content->graph;
  if (stage.stage == "captured") {
    pendingFrameKey_.clear();
    frameGraphWaiting_ = false;
    graph_->clearLayoutFrame();
    graph_->showGraph(graph);
    return;
  }
  const QString key = layoutFrameKey(sessionId_, stage);
  if (graph_->layoutFrameKey() == key || failedFrameKey_ == key) {
    if (failedFrameKey_ == key)
      statusBar()->showMessage(tr("Could not read the stages for a stable layout: %1").arg(failedFrameError_), kStatusMs);
    failedFrameKey_.clear();
    pendingFrameKey_.clear();
    frameGraphWaiting_ = false;
    graph_->showGraph(graph);
    return;
  }
  readLayoutFrame(stage);                     // unless showStage() started it
  pendingFrameContent_ = std::move(content);  // held, not copied (a 17,000-node graph took 50-130 ms)
  frameGraphWaiting_ = true;
}

QString StudioWindow::layoutFrameKey(qint64 sessionId, const storage::StageRow& stage) {
  const bool backward = stage.stage.rfind("backward:", 0) == 0;
  return QStringLiteral("%1/%2%3").arg(sessionId).arg(qs(stage.compileId)).arg(backward ? QStringLiteral("/backward") : QString());
}

void StudioWindow::readLayoutFrame(const storage::StageRow& stage, std::shared_ptr<StageGraphs> graphs) {
  if (stage.stage == "captured") return;
  const QString key = layoutFrameKey(sessionId_, stage);
  if (graph_->layoutFrameKey() == key || pendingFrameKey_ == key) return;  // drawn, or already being read
  const bool backward = stage.stage.rfind("backward:", 0) == 0;
  pendingFrameKey_ = key;
  frameGraphWaiting_ = false;  // a graph waiting for another compile's frame is not drawn in this one
  failedFrameKey_.clear();
  graph_->clearGraph(tr("Reading the stages of [%1]…").arg(qs(stage.compileId)));
  ++pendingReads_;
  const std::string path = store_.path(), compileId = stage.compileId;
  const qint64 sessionId = sessionId_;
  QPointer<StudioWindow> self(this);
  if (!graphs) graphs = std::make_shared<StageGraphs>();
  QThreadPool::globalInstance()->start([self, path, sessionId, compileId, key, backward, graphs] {
    auto frame = std::make_shared<ir::Graph>();
    QString error;
    try {
      auto store = storage::Store::open(path);
      std::vector<int64_t> ids;
      std::set<int64_t> read;  // a stage stored as a repeat of one read already adds nothing
      for (const auto& st : store->stages(sessionId, compileId))
        if (st.stage != "captured" && (st.stage.rfind("backward:", 0) == 0) == backward &&
            read.insert(st.sameAs ? st.sameAs : st.id).second)
          ids.push_back(st.id);
      // Last stage first: the stage's own read starts with the stage and the one before it, and
      // each graph is read once, by whichever of the two asks first.
      std::vector<StageGraphs::Graph> held(ids.size());
      for (size_t i = ids.size(); i-- > 0;) held[i] = graphs->get(*store, ids[i]);
      std::vector<const ir::Graph*> stages;
      for (const auto& g : held) stages.push_back(g.get());
      *frame = unionOfStages(stages);
    } catch (const std::exception& e) { error = QString::fromUtf8(e.what()); }
    QMetaObject::invokeMethod(
        qApp,
        [self, key, frame, error] {
          if (self) self->finishLayoutFrame(key, std::move(*frame), error);
        },
        Qt::QueuedConnection);
  });
}

void StudioWindow::finishLayoutFrame(const QString& key, ir::Graph frame, const QString& error) {
  --pendingReads_;
  if (key != pendingFrameKey_) {  // the user moved to another compile meanwhile
    if (isSettled()) emit settled();
    return;
  }
  pendingFrameKey_.clear();
  if (!frameGraphWaiting_) {  // the stage's own read is still going: finishStage() draws it in this frame
    if (error.isEmpty()) {
      graph_->setLayoutFrame(key, std::move(frame));
    } else {
      failedFrameKey_ = key;
      failedFrameError_ = error;
    }
    if (isSettled()) emit settled();
    return;
  }
  frameGraphWaiting_ = false;
  if (error.isEmpty()) graph_->setLayoutFrame(key, std::move(frame));
  else statusBar()->showMessage(tr("Could not read the stages for a stable layout: %1").arg(error), kStatusMs);
  // showGraph() forgets the step's change marks: keep the ones the step report set.
  const ir::GraphChanges changes = graph_->changes();
  std::vector<ir::Node> removed = graph_->removedNodes();
  graph_->showGraph(pendingFrameContent_->graph);
  pendingFrameContent_.reset();
  graph_->setChanges(changes, false, std::move(removed));
}

// The step into stage `row`: its rules (node names from the stage before it, the pass's input)
// and, against that stage, the nodes added, removed and changed (coloured in the graph view).
void StudioWindow::showStepReport(int row, const StageContent& content) {
  const storage::StageRow& stage = stages_->stageAt(row);
  const ir::Graph& graph = content.graph;
  QString text = QStringLiteral("[%1] %2 · %3 ms · %4\n")
                     .arg(qs(stage.compileId), qs(stage.stage))
                     .arg(stage.ms, 0, 'f', 2)
                     .arg(stage.changed ? tr("changed the graph") : tr("changed nothing"));
  static const ir::Graph kNone;
  const ir::Graph& prev = content.previous ? *content.previous : kNone;
  if (!stage.rules.empty()) {
    text += stage.stage == "fused" ? tr("\nfusion decisions:\n") : tr("\nrules that fired:\n");
    for (const auto& r : stage.rules) {
      QStringList names;
      for (int id : r.nodes) {
        const ir::Node* n = prev.find(id) ? prev.find(id) : graph.find(id);
        names << (n ? qs(n->name) : QString::number(id));
      }
      text += QStringLiteral("  %1  x%2  on %3\n").arg(qs(r.rule)).arg(r.count).arg(names.join(QStringLiteral(", ")));
    }
  }
  // Against the same stage of the diff's first session when this is its second one (a graph
  // diff per stage, matched by node name), else against the stage before (what the step did).
  // Captured -> ATen renames every node: a name diff would say "everything changed".
  if (diffBase_.second == sessionId_ && diffBase_.first > 0) {
    if (content.base) {
      // Captured graphs of two compilers (an imported PyTorch run against Kiln's) name their
      // nodes each their own way: paired by op and source line there (ir::pairGraphs).
      const bool captured = stage.stage == "captured";
      if (!captured)
        text += describeChanges(*content.base, graph,
                                tr("session %1's [%2] %3").arg(diffBase_.first).arg(qs(stage.compileId), qs(stage.stage)));
      graphDiff_->showPair(*content.base, tr("session %1 [%2] %3").arg(diffBase_.first).arg(qs(stage.compileId), qs(stage.stage)), graph,
                           tr("session %1 [%2] %3").arg(sessionId_).arg(qs(stage.compileId), qs(stage.stage)),
                           captured ? GraphDiffView::Match::ByProvenance : GraphDiffView::Match::ByName);
      if (captured) {
        graph_->setChanges(graphDiff_->after()->changes());
        text += tr("\nagainst session %1's [%2] captured graph, node by node (A: %1, B: %3): %4")
                    .arg(diffBase_.first)
                    .arg(qs(stage.compileId))
                    .arg(sessionId_)
                    .arg(graphDiff_->pairingReport());
      }
      if (graphDiffDock_->isHidden()) {
        graphDiffDock_->show();
        // Side by side graphs need height: the text dock's ~260 px leaves labels unreadable.
        resizeDocks({graphDiffDock_}, {height() * 2 / 5}, Qt::Vertical);
      }
      graphDiffDock_->raise();
    }
  } else if (content.previous && stages_->stageAt(row - 1).stage != "captured") {
    // Into the fused stage every node joins a kernel: the kernel groups show that, so only what
    // changed otherwise (op, arguments, types) is marked, not the whole graph in amber.
    const bool fused = stage.stage == "fused";
    const QString against = qs(stages_->stageAt(row - 1).stage);
    text += content.step ? describeChanges(*content.step, graph, against) : describeChanges(prev, graph, against, !fused);
    if (fused) text += tr("  (joining a kernel is not counted as a change: the kernel groups show it)\n");
  }
  text_->setStepReport(text);
  // A rule-table pass's applications, one at a time (hidden for the other stages).
  if (content.previous && !content.applications.empty()) text_->ruleSteps()->setApplications(content.applications, prev, graph);
  else text_->ruleSteps()->clear();
}

void StudioWindow::showTimingsTab(int tab) {
  timingTabs_->setCurrentIndex(tab);
  for (QWidget* w = timingTabs_->parentWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) {
      dock->show();
      dock->raise();
      // The timeline's lanes want more height than the charts' default strip.
      if (timingTabs_->widget(tab) == collectives_ && dock->height() < height() / 3) resizeDocks({dock}, {height() * 2 / 5}, Qt::Vertical);
      break;
    }
}

int StudioWindow::findInGraph(const QString& text, int step) {
  if (text != findText_) {  // a new search starts before the first match
    findText_ = text;
    findMatches_ = graph_->findNodes(text);
    findAt_ = -1;
  }
  const int n = static_cast<int>(findMatches_.size());
  if (n == 0) {
    findCount_->setText(text.trimmed().isEmpty() ? QString() : tr("no match"));
    return 0;
  }
  if (step != 0) {
    findAt_ = ((findAt_ < 0 && step < 0 ? 0 : findAt_ + step) % n + n) % n;
    graph_->revealNode(findMatches_[static_cast<size_t>(findAt_)]);
    if (graph_->isLayingOut()) settled_ = false;  // its module unfolds: settled once drawn
  }
  findCount_->setText(findAt_ < 0 ? tr("%n match(es)", nullptr, n) : tr("%1 of %2").arg(findAt_ + 1).arg(n));
  return n;
}

QString StudioWindow::describeChanges(const ir::Graph& before, const ir::Graph& graph, const QString& against, bool kernelMembership) {
  return describeChanges(stepDiff(before, graph, kernelMembership), graph, against);
}

QString StudioWindow::describeChanges(StepDiff step, const ir::Graph& graph, const QString& against) {
  const ir::GraphChanges& c = step.changes;
  graph_->setChanges(c, false, std::move(step.removed));  // removed nodes: drawn as ghosts, or counted in their folded module
  auto names = [&](const std::vector<int>& ids) {
    QStringList l;
    for (int id : ids) l << qs(graph.find(id)->name);
    return l.join(QStringLiteral(", "));
  };
  QStringList removed;
  for (const auto& r : c.removed) removed << qs(r);
  QString text = tr("\nagainst %1: %2 added (green), %3 changed (amber), %4 removed\n")
                     .arg(against)
                     .arg(c.added.size())
                     .arg(c.changed.size())
                     .arg(c.removed.size());
  if (!c.added.empty()) text += tr("  added: ") + names(c.added) + QLatin1Char('\n');
  if (!c.changed.empty()) text += tr("  changed: ") + names(c.changed) + QLatin1Char('\n');
  if (!removed.isEmpty()) text += tr("  removed: ") + removed.join(QStringLiteral(", ")) + QLatin1Char('\n');
  return text;
}

void StudioWindow::stepStage(int delta) {
  int row = stageList_->currentIndex().row() + delta;
  if (row >= 0 && row < stages_->rowCount()) selectStage(row);
}

bool StudioWindow::exportGraph(const QString& path) {
  QString error;
  if (!graph_->exportTo(path, &error)) {
    statusBar()->showMessage(tr("Export failed: %1").arg(error), kStatusMs);
    return false;
  }
  statusBar()->showMessage(tr("Graph written to %1").arg(path), kStatusMs);
  return true;
}

void StudioWindow::exportGraphDialog() {
  const QString path =
      chooseSavePath_(tr("Export Graph"), QStringLiteral("graph.svg"), tr("SVG image (*.svg);;PNG image (*.png);;Graphviz DOT (*.dot)"));
  if (!path.isEmpty()) exportGraph(path);
}

void StudioWindow::exportReportDialog() {
  if (sessionId_ <= 0) {
    statusBar()->showMessage(tr("No session shown: nothing to report"), kStatusMs);
    return;
  }
  const QString path =
      chooseSavePath_(tr("Export Report"), QStringLiteral("kiln-session-%1.html").arg(sessionId_), tr("HTML page (*.html)"));
  if (!path.isEmpty()) exportReport(path);
}

// The report reads every stage and kernel of the session and runs `dot` per compile: on a pool
// thread with a store connection of its own, like the diff.
bool StudioWindow::exportReport(const QString& path) {
  if (sessionId_ <= 0) return false;
  ++pendingReads_;
  statusBar()->showMessage(tr("Writing the report of session %1…").arg(sessionId_));
  const std::string store = store_.path();
  const qint64 id = sessionId_;
  QPointer<StudioWindow> self(this);
  QThreadPool::globalInstance()->start([self, store, id, path] {
    QString error;
    try {
      auto reader = storage::Store::open(store, storage::Store::Access::ReadOnly);
      const std::string html = storage::sessionReportHtml(*reader, id);
      QSaveFile f(path);
      if (!f.open(QIODevice::WriteOnly) || f.write(html.data(), qint64(html.size())) != qint64(html.size()) || !f.commit())
        error = f.errorString();
    } catch (const std::exception& e) { error = QString::fromUtf8(e.what()); }
    QMetaObject::invokeMethod(
        qApp,
        [self, path, error] {
          if (self) self->finishReport(path, error);
        },
        Qt::QueuedConnection);
  });
  return true;
}

void StudioWindow::finishReport(const QString& path, const QString& error) {
  --pendingReads_;
  statusBar()->showMessage(
      error.isEmpty() ? tr("Report written to %1").arg(path) : tr("Could not write the report %1: %2").arg(path, error), kStatusMs);
  emit reportExported(path, error);
  if (isSettled()) emit settled();
}

void StudioWindow::onLayoutFinished(const QString& error) {
  const size_t all = graph_->graph().nodes.size(), shown = graph_->shownGraph().nodes.size();
  if (error.isEmpty())
    statusBar()->showMessage(
        shown == all ? tr("%1 nodes").arg(all)
                     : tr("%1 nodes, %2 boxes shown: double-click a module to expand it, a node to fold its module").arg(all).arg(shown),
        kStatusMs);
  else statusBar()->showMessage(error);
  tintSourceLines();
  markSettled();
}

void StudioWindow::tintSourceLines() {
  QList<int> lines;
  if (graph_->overlay() == Overlay::SourceLine) {
    std::set<int> seen;
    for (const auto& n : graph_->graph().nodes)
      if (n.prov.loc.line > 0 && sameFile(n.prov.loc.file, scriptPath_)) seen.insert(n.prov.loc.line);
    lines = QList<int>(seen.begin(), seen.end());
  }
  source_->setLineTints(lines);
  text_->setEveryLineTinted(graph_->overlay() == Overlay::SourceLine);
}

void StudioWindow::runScript(const QString& script) {
  if (runner_->isRunning()) {
    statusBar()->showMessage(tr("A script is already running: %1").arg(runner_->script()), kStatusMs);
    return;
  }
  busy_->setRange(0, 0);
  busy_->show();
  stopButton_->show();
  stopAction_->setEnabled(true);
  rememberScript(script);
  runner_->run(script, qs(store_.path()));
}

QStringList StudioWindow::recentScripts() const { return settings().value(QStringLiteral("recentScripts")).toStringList(); }

void StudioWindow::rememberScript(const QString& script) {
  QStringList recent = recentScripts();
  const QString path = QFileInfo(script).absoluteFilePath();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kRecentScripts) recent.removeLast();
  settings().setValue(QStringLiteral("recentScripts"), recent);
}

void StudioWindow::fillRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = recentScripts();
  for (int i = 0; i < recent.size(); ++i) {
    QAction* a =
        recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(recent[i]), this, [this, path = recent[i]] { runScript(path); });
    a->setEnabled(QFileInfo::exists(recent[i]));
  }
  if (recent.isEmpty()) recentMenu_->addAction(tr("No recent scripts"))->setEnabled(false);
}

namespace {

// The first local .py file among the dropped URLs, or "".
QString droppedScript(const QMimeData* mime) {
  if (!mime || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".py"))) return url.toLocalFile();
  return {};
}

}  // namespace

void StudioWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!droppedScript(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void StudioWindow::dropEvent(QDropEvent* event) {
  if (runDropped(event->mimeData())) event->acceptProposedAction();
}

bool StudioWindow::runDropped(const QMimeData* mime) {
  const QString script = droppedScript(mime);
  if (script.isEmpty()) return false;
  runScript(script);
  return true;
}

void StudioWindow::closeEvent(QCloseEvent* event) {
  QSettings s = settings();
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("windowState"), saveState());
  QMainWindow::closeEvent(event);
}

void StudioWindow::onRunFinished(qint64 sessionId, const QString& error) {
  busy_->hide();
  stopButton_->hide();
  stopAction_->setEnabled(false);
  if (sessionId > 0) {
    // A script that raised still stored its session; its traceback is in the Output tab.
    statusBar()->showMessage(error.isEmpty() ? tr("Session %1 stored").arg(sessionId) : error.section(QLatin1Char('\n'), 0, 0), kStatusMs);
    refreshSessions(sessionId);
    return;
  }
  statusBar()->showMessage(tr("Run failed"), kStatusMs);
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Run failed"), error, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // not exec(): the UI keeps running
  markSettled();
}

void StudioWindow::onNodeSelected(int nodeId) {
  const ir::Node* n = nodeId >= 0 ? graph_->node(nodeId) : nullptr;
  if (!n) {
    statusBar()->clearMessage();
    inspector_->clear();
    return;
  }
  const int row = stages_->rowOfStage(stageId_);
  inspector_->setHtml(nodeReport(graph_->graph(), *n, row >= 0 ? stages_->stageAt(row) : storage::StageRow{}));
  QStringList parts{qs(n->name) + QStringLiteral(" = ") + qs(n->target)};
  for (const auto& t : n->types) parts << qs(t.str());
  if (n->prov.loc.line > 0) parts << tr("line %1").arg(n->prov.loc.line);
  if (!n->prov.modulePath.empty()) parts << qs(n->prov.modulePath);
  if (!n->kernel.empty()) parts << tr("kernel %1").arg(qs(n->kernel));
  statusBar()->showMessage(parts.join(QStringLiteral(" · ")));
  if (n->prov.loc.line > 0) source_->highlightLine(n->prov.loc.line);
  if (!n->kernel.empty()) text_->showKernel(qs(n->kernel));
}

void StudioWindow::onLineHovered(int line) {
  source_->hoverLine(line);
  graph_->hoverLine(line);
  text_->hoverSourceLine(line);
}

void StudioWindow::onLineSelected(int line) {
  graph_->highlightLine(line);
  graph_->centreOnLine(line);  // a click goes to the line's first node
  text_->highlightSourceLine(line);
  int count = 0;
  for (const auto& n : graph_->graph().nodes) count += n.prov.loc.line == line ? 1 : 0;
  statusBar()->showMessage(tr("Line %1: %n node(s) in this stage", nullptr, count).arg(line), kStatusMs);
}

void StudioWindow::markSettled() {
  settled_ = true;
  if (isSettled()) emit settled();
}

QList<qint64> StudioWindow::selectedSessionIds() const {
  QList<qint64> ids;
  for (const QModelIndex& row : sessionTable_->selectionModel()->selectedRows()) ids << sessions_->sessionIdAt(row.row());
  return ids;
}

bool StudioWindow::renameSession(qint64 sessionId, const QString& name) {
  try {
    store_.renameSession(sessionId, name.toStdString());
  } catch (const std::exception& e) {
    statusBar()->showMessage(tr("Could not rename session %1: %2").arg(sessionId).arg(QString::fromUtf8(e.what())));
    return false;
  }
  refreshSessions(sessionId);
  return true;
}

bool StudioWindow::deleteSessions(const QList<qint64>& sessionIds) {
  QStringList failed;
  for (qint64 id : sessionIds) {
    try {
      store_.deleteSession(id);
    } catch (const std::exception& e) { failed << QString::fromUtf8(e.what()); }
  }
  refreshSessions();  // shows the current session if it is still there, else the newest
  if (!failed.isEmpty()) statusBar()->showMessage(tr("Could not delete: %1").arg(failed.join(QStringLiteral("; "))));
  return failed.isEmpty();
}

void StudioWindow::renameCurrentSessionDialog() {
  if (sessionId_ <= 0) return;
  const int row = sessions_->rowOf(sessionId_);
  const QString current = sessions_->data(sessions_->index(row, SessionListModel::Name)).toString();
  bool ok = false;
  const QString name =
      QInputDialog::getText(this, tr("Rename Session"), tr("Name of session %1:").arg(sessionId_), QLineEdit::Normal, current, &ok);
  if (ok && !name.trimmed().isEmpty()) renameSession(sessionId_, name.trimmed());
}

void StudioWindow::deleteSelectedSessionsDialog() {
  const QList<qint64> ids = selectedSessionIds();
  if (ids.isEmpty()) return;
  const auto answer = QMessageBox::question(this, tr("Delete Sessions"),
                                            tr("Delete %n session(s) and everything recorded in them?", nullptr, int(ids.size())));
  if (answer == QMessageBox::Yes) deleteSessions(ids);
}

void StudioWindow::diffSelectedSessions() {
  QList<qint64> ids = selectedSessionIds();
  if (ids.size() != 2) {
    statusBar()->showMessage(tr("Select two sessions to diff (Ctrl+click the second one)"));
    return;
  }
  std::sort(ids.begin(), ids.end());
  diffSessions(ids[0], ids[1]);
}

bool StudioWindow::diffSessions(qint64 a, qint64 b) {
  if (sessions_->rowOf(a) < 0 || sessions_->rowOf(b) < 0) {
    statusBar()->showMessage(tr("Could not diff sessions %1 and %2: no such session (refresh the list?)").arg(a).arg(b), kStatusMs);
    return false;
  }
  // The diff reads every stage and kernel of both sessions: on a pool thread with a connection
  // of its own (SQLite in WAL mode lets it read while this one stays usable).
  ++pendingReads_;
  statusBar()->showMessage(tr("Diffing sessions %1 and %2…").arg(a).arg(b));
  const std::string path = store_.path();
  QPointer<StudioWindow> self(this);
  QThreadPool::globalInstance()->start([self, path, a, b] {
    QString text, error;
    try {
      auto store = storage::Store::open(path);
      const storage::SessionDiff d = storage::diffSessions(*store, a, b);
      text = qs(d.text());
      for (const auto& c : d.compiles)
        if (c.capturedTextDiffers)
          text += QStringLiteral("\n──── [%1] captured graph, session %2 → %3 ────\n%4")
                      .arg(qs(c.compileId))
                      .arg(a)
                      .arg(b)
                      .arg(qs(c.capturedUnifiedDiff));
    } catch (const std::exception& e) { error = QString::fromUtf8(e.what()); }
    QMetaObject::invokeMethod(
        qApp,
        [self, a, b, text, error] {
          if (self) self->finishDiff(a, b, text, error);
        },
        Qt::QueuedConnection);
  });
  return true;
}

void StudioWindow::finishDiff(qint64 a, qint64 b, const QString& text, const QString& error) {
  --pendingReads_;
  if (error.isEmpty()) {
    text_->setDiff(text);
    diffBase_ = {a, b};
    statusBar()->showMessage(tr("Session %1 vs %2: stages of session %2 are coloured against session %1's").arg(a).arg(b));
    if (sessionId_ == b && stageId_ > 0) {
      selectStage(stageList_->currentIndex().row());  // recolour what is shown
    } else if (const int row = sessions_->rowOf(b); row >= 0) {
      // Show the second session, whose stages are compared (and the Graph diff dock with them),
      // keeping both sessions selected in the list.
      sessionTable_->selectionModel()->setCurrentIndex(sessions_->index(row, 0), QItemSelectionModel::NoUpdate);
    }
  } else {
    statusBar()->showMessage(tr("Could not diff sessions %1 and %2: %3").arg(a).arg(b).arg(error));
  }
  emit diffShown(a, b, error.isEmpty());
  if (isSettled()) emit settled();
}

void StudioWindow::showSearchHit(qint64 sessionId, qint64 stageId) {
  if (sessions_->rowOf(sessionId) < 0) refreshSessions();  // a session recorded since the list was read
  if (!selectSession(sessionId)) {
    statusBar()->showMessage(tr("Session %1 is no longer in the store").arg(sessionId));
    return;
  }
  if (stageId > 0) selectStage(stages_->rowOfStage(stageId));
}

bool StudioWindow::showArtifact(const QString& name) {
  if (!artifacts_->selectArtifact(name)) return false;
  artifactsDock_->show();
  artifactsDock_->raise();
  return true;
}

void StudioWindow::openScriptDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Script"), QString(), tr("Python scripts (*.py);;All files (*)"));
  if (!path.isEmpty()) runScript(path);
}

void StudioWindow::importTraceDialog() {
  if (runner_->isRunning()) {
    statusBar()->showMessage(tr("A script is already running: %1").arg(runner_->script()), kStatusMs);
    return;
  }
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Import a TORCH_TRACE folder (PyTorch's structured logs)"));
  if (dir.isEmpty()) return;
  busy_->setRange(0, 100);
  busy_->show();
  stopButton_->show();
  stopAction_->setEnabled(true);
  runner_->importTrace(dir, qs(store_.path()));
}

void StudioWindow::reportError(const QString& what, const std::exception& e) {
  const QString message = what + QStringLiteral(": ") + QString::fromUtf8(e.what());
  statusBar()->showMessage(message);
  auto* box = new QMessageBox(QMessageBox::Critical, tr("Kiln Studio"), message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace kiln::viewers
