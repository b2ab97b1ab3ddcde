// kiln-studio [SCRIPT] [--db PATH] [--open ID] [--diff A,B] [--stage NAME] [--line N] [--tab NAME] [--find TEXT] [--size WxH]
// [--overlay NAME] [--expand PATH|all] [--hover N] [--screenshot PNG] [--kiln PATH] [--plugin PATH]...: opens the session store in the
// studio window. Studio plugins (NAME.studio.so: stage views) from --plugin and KILN_PLUGIN_PATH load here; Kiln plugins go to the `kiln
// run` processes the studio starts. With SCRIPT, runs it through `kiln run` in the background and shows the new session; otherwise shows
// the newest session, or session ID with --open (with --diff, session B and the diff of A and B); --stage,
// --line and --tab then pick what is shown. --screenshot grabs the window once the first session and
// stage are on screen, writes the PNG and exits (README screenshot, `make run` check on Xvfb).
#include "plugin_host/studio_loader.h"
#include "storage/store.h"
#include "viewers/gpu_kernel_views.h"
#include "viewers/graph_overlay.h"
#include "viewers/graph_view.h"
#include "viewers/line_colour.h"
#include "viewers/script_runner.h"
#include "viewers/source_view.h"
#include "viewers/stage_list_model.h"
#include "viewers/stage_views.h"
#include "viewers/studio_window.h"
#include "viewers/text_pane.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using kiln::viewers::ScriptRunner;
using kiln::viewers::StudioWindow;

namespace {

constexpr int kScreenshotTimeoutMs = 180'000;  // a run compiles with LLVM: allow for slow machines

// Errors go to stderr always, and to a dialog when someone is looking at the screen.
void fail(const QString& message, bool headless) {
  std::fprintf(stderr, "kiln-studio: %s\n", qPrintable(message));
  if (!headless) QMessageBox::critical(nullptr, QStringLiteral("Kiln Studio"), message);
}

// The `kiln` command line: --kiln, else next to this executable (build tree and install
// share a directory), else on PATH.
QString findKiln(const QString& given) {
  if (!given.isEmpty()) return QFileInfo(given).absoluteFilePath();
  const QString sibling = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("kiln"));
  if (QFileInfo(sibling).isExecutable()) return sibling;
  const QString onPath = QStandardPaths::findExecutable(QStringLiteral("kiln"));
  return onPath.isEmpty() ? sibling : onPath;
}

// Writes the window to `path` once it has settled (and, with a script, once the run is over).
void armScreenshot(StudioWindow& window, const QString& path, bool waitForRun) {
  auto runOver = std::make_shared<bool>(!waitForRun);
  auto runFailed = std::make_shared<bool>(false);
  auto done = std::make_shared<bool>(false);  // settled() may come again before the grab
  auto grab = [&window, path, done, runFailed](bool timedOut) {
    if (std::exchange(*done, true)) return;
    const bool saved = window.grab().save(path, "PNG");
    if (!saved) std::fprintf(stderr, "kiln-studio: could not write %s\n", qPrintable(path));
    if (timedOut) std::fprintf(stderr, "kiln-studio: timed out waiting for the studio; saved what it showed\n");
    // A check of `make run` must not pass on a screenshot of a failed run.
    QCoreApplication::exit(saved && !timedOut && !*runFailed ? 0 : 1);
  };
  auto maybeGrab = [&window, runOver, grab] {
    // Let pending resizes and repaints land before grabbing; grab() checks it is still settled.
    if (*runOver && window.isSettled())
      QTimer::singleShot(200, &window, [&window, grab] {
        if (window.isSettled()) grab(false);
      });
  };
  QObject::connect(&window, &StudioWindow::settled, &window, maybeGrab);
  // Connected after the window's own handler, so the window has already reacted to the run.
  QObject::connect(window.scriptRunner(), &ScriptRunner::finished, &window,
                   [runOver, runFailed, maybeGrab](qint64 sessionId, const QString& error) {
                     if (!error.isEmpty()) std::fprintf(stderr, "kiln-studio: %s\n", qPrintable(error));
                     *runFailed = sessionId == 0;
                     *runOver = true;
                     maybeGrab();
                   });
  QTimer::singleShot(kScreenshotTimeoutMs, &window, [grab] { grab(true); });
}

// Milliseconds since this process started, from the kernel's start time (/proc/self/stat,
// field 22, in clock ticks since boot, against CLOCK_BOOTTIME): what someone who typed the
// command waits, the executable's and Qt's loading included. -1 where /proc is not there.
qint64 msSinceProcessStart() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t comm = text.rfind(')');  // the command name may hold spaces and parentheses
  if (comm == std::string::npos) return -1;
  std::istringstream fields(text.substr(comm + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {}  // fields 3 (state) .. 22 (starttime)
  timespec now{};
  if (field.empty() || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double startedMs = std::stod(field) * 1000.0 / double(sysconf(_SC_CLK_TCK));
  return qint64(double(now.tv_sec) * 1000.0 + double(now.tv_nsec) / 1e6 - startedMs);
}

// Prints "kiln-studio: first paint of STAGE after N ms" once the graph view has painted the
// stage shown: after the window first settles (the stage read, laid out and drawn into the
// scene; a placeholder such as "Reading the stages…" does not settle it), at the end of the
// view's next paint. Issue 17's measure of opening a big session.
class FirstPaintTimer : public QObject {
 public:
  explicit FirstPaintTimer(StudioWindow& window) : QObject(&window), window_(window) {
    connect(&window, &StudioWindow::settled, this, [this] {
      if (!armed_ && !done_ && window_.currentStageId() > 0) {
        armed_ = true;
        window_.graphView()->viewport()->installEventFilter(this);
        window_.graphView()->viewport()->update();  // painted by now or not: the next paint is of the drawn stage
      }
    });
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Paint && armed_ && !done_) {
      done_ = true;
      watched->removeEventFilter(this);
      // Queued: runs once this paint has been handled.
      QTimer::singleShot(0, this, [this] {
        const int row = window_.stageModel()->rowOfStage(window_.currentStageId());
        const QString label =
            row >= 0 ? kiln::viewers::StageListModel::label(window_.stageModel()->stageAt(row)) : QString::number(window_.currentStageId());
        std::fprintf(stderr, "kiln-studio: first paint of %s after %lld ms\n", qPrintable(label),
                     static_cast<long long>(msSinceProcessStart()));
      });
    }
    return false;
  }

 private:
  StudioWindow& window_;
  bool armed_ = false, done_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  // QApplication's constructor takes `-plugin SPEC` / `--plugin SPEC` (a Qt generic plugin) out
  // of argv, so the studio's --plugin never reached its own parser: they are read here first.
  QStringList plugins;
  std::vector<char*> qtArgs;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--plugin" || a == "-plugin") && i + 1 < argc) plugins << QString::fromLocal8Bit(argv[++i]);
    else if (a.rfind("--plugin=", 0) == 0) plugins << QString::fromLocal8Bit(argv[i] + 9);
    else qtArgs.push_back(argv[i]);
  }
  int qtArgc = static_cast<int>(qtArgs.size());
  qtArgs.push_back(nullptr);
  QApplication app(qtArgc, qtArgs.data());
  QApplication::setApplicationName(QStringLiteral("kiln-studio"));
  QApplication::setOrganizationName(QStringLiteral("Kiln"));
  QApplication::setApplicationVersion(QStringLiteral(KILN_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Kiln Studio: step through every stage of a Kiln compile."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("script"), QStringLiteral("Python script to run and show."), QStringLiteral("[SCRIPT]"));
  const QCommandLineOption dbOption(
      QStringLiteral("db"), QStringLiteral("Session store (default: %1).").arg(QString::fromStdString(kiln::storage::defaultStorePath())),
      QStringLiteral("PATH"));
  const QCommandLineOption shotOption(QStringLiteral("screenshot"), QStringLiteral("Write the window to PNG once loaded, then exit."),
                                      QStringLiteral("PNG"));
  const QCommandLineOption kilnOption(QStringLiteral("kiln"), QStringLiteral("The kiln executable used to run scripts."),
                                      QStringLiteral("PATH"));
  const QCommandLineOption diffOption(QStringLiteral("diff"), QStringLiteral("Show the diff of sessions A and B (as kiln diff A B)."),
                                      QStringLiteral("A,B"));
  const QCommandLineOption stageOption(QStringLiteral("stage"),
                                       QStringLiteral("Open this stage of the session's first compile (aten, pass:NAME, fused ...), or of "
                                                      "another one as '[0/1] fused'."),
                                       QStringLiteral("NAME"));
  const QCommandLineOption lineOption(QStringLiteral("line"), QStringLiteral("Select this source line (as a click on it does)."),
                                      QStringLiteral("N"));
  const QCommandLineOption tabOption(
      QStringLiteral("tab"),
      QStringLiteral("Show this text tab: stage, step, capture, kernel, llvm, asm, wrapper, output, diff, side; or "
                     "this Timings tab: phases, times, verify, collectives."),
      QStringLiteral("NAME"));
  const QCommandLineOption sessionOption(
      QStringLiteral("open"), QStringLiteral("Open stored session ID (see kiln sessions) instead of the newest."), QStringLiteral("ID"));
  const QCommandLineOption artifactOption(QStringLiteral("artifact"),
                                          QStringLiteral("Show the Artifacts tab with the first kept record whose name contains NAME "
                                                         "(imported sessions: dynamo_cpp_guards_str, import problem ...)."),
                                          QStringLiteral("NAME"));
  const QCommandLineOption findOption(
      QStringLiteral("find"), QStringLiteral("Find this node in the graph shown (as Find in graph + Enter)."), QStringLiteral("TEXT"));
  const QCommandLineOption overlayOption(QStringLiteral("overlay"),
                                         QStringLiteral("Colour the graph's nodes by: %1 (as the graph legend's chooser does).")
                                             .arg(kiln::viewers::overlayKeys().join(QStringLiteral(", "))),
                                         QStringLiteral("NAME"));
  const QCommandLineOption expandOption(QStringLiteral("expand"),
                                        QStringLiteral("Unfold this module of the graph shown (a module path, or 'all' for every one)."),
                                        QStringLiteral("PATH"));
  const QCommandLineOption hoverOption(QStringLiteral("hover"),
                                       QStringLiteral("Hover this source line (its nodes and kernel lines light up, as under the mouse)."),
                                       QStringLiteral("N"));
  const QCommandLineOption sizeOption(QStringLiteral("size"), QStringLiteral("Window size (default 1500x950)."), QStringLiteral("WxH"));
  // A Kiln plugin (engine: passes, backends, importers) is not loaded by the studio, which links
  // no engine: it goes on KILN_PLUGIN_PATH, which the `kiln run` processes the studio starts
  // inherit and load (plugin_host/loader.h). A studio plugin (NAME.studio.so: stage views,
  // plugin_host/kiln_studio_plugin.h) is loaded by the studio itself.
  const QCommandLineOption pluginOption(QStringLiteral("plugin"),
                                        QStringLiteral("Load this studio plugin (NAME.studio.so: stage views), or this Kiln plugin "
                                                       "in the scripts the studio runs (repeatable)."),
                                        QStringLiteral("PATH"));
  parser.addOptions({dbOption, shotOption, kilnOption, diffOption, stageOption, lineOption, tabOption, sessionOption, artifactOption,
                     findOption, sizeOption, overlayOption, pluginOption, expandOption, hoverOption});
  parser.process(app);
  // Studio plugins. One on KILN_PLUGIN_PATH that fails to load is reported (stderr and the status
  // bar) and skipped: the variable is set once for every start, and a stale plugin there must
  // not keep the studio from opening. One named by --plugin fails the start (exit 1), as
  // `kiln --plugin` does: it was asked for on this command line, and a screenshot or check run
  // without the view it was meant to show must not pass.
  kiln::plugin::registerBuiltinStudioViews();
  QStringList pluginErrors;
  if (const QByteArray env = qgetenv("KILN_PLUGIN_PATH"); !env.isEmpty())
    for (const std::string& error : kiln::plugin::loadStudioPluginPath(env.toStdString())) {
      std::fprintf(stderr, "kiln-studio: %s\n", error.c_str());
      pluginErrors << QString::fromStdString(error);
    }
  for (const QString& plugin : plugins) {
    const QFileInfo file(plugin);
    if (!file.isFile() || plugin.contains(QLatin1Char(':'))) {
      fail(QStringLiteral("--plugin: no such plugin file: %1").arg(plugin), true);
      return 1;
    }
    if (kiln::plugin::isStudioPluginFile(file.absoluteFilePath().toStdString())) {
      try {
        kiln::plugin::loadStudioPlugin(file.absoluteFilePath().toStdString());
      } catch (const kiln::plugin::PluginError& e) {
        fail(QString::fromUtf8(e.what()), true);
        return 1;
      }
      continue;
    }
    const QByteArray before = qgetenv("KILN_PLUGIN_PATH");
    qputenv("KILN_PLUGIN_PATH", (before.isEmpty() ? QByteArray() : before + ':') + file.absoluteFilePath().toLocal8Bit());
  }

  const QString screenshot = parser.value(shotOption);
  const bool headless = !screenshot.isEmpty() || QGuiApplication::platformName() == QLatin1String("offscreen");
  const QStringList args = parser.positionalArguments();
  if (args.size() > 1) {
    fail(QStringLiteral("expected at most one script, got %1").arg(args.size()), true);
    return 2;
  }
  const QString script = args.value(0);
  qint64 diffA = 0, diffB = 0;
  if (parser.isSet(diffOption)) {
    const QStringList ids = parser.value(diffOption).split(QLatin1Char(','));
    bool okA = false, okB = false;
    if (ids.size() == 2) {
      diffA = ids[0].trimmed().toLongLong(&okA);
      diffB = ids[1].trimmed().toLongLong(&okB);
    }
    if (!okA || !okB || diffA <= 0 || diffB <= 0 || !script.isEmpty()) {
      fail(QStringLiteral("--diff takes two session ids, A,B (see kiln sessions), and no script"), true);
      return 2;
    }
  }
  if (!script.isEmpty() && !QFileInfo(script).isFile()) {
    fail(QStringLiteral("no such script: %1").arg(script), headless);
    return 1;
  }

  const QString db = parser.isSet(dbOption) ? parser.value(dbOption) : QString::fromStdString(kiln::storage::defaultStorePath());
  std::unique_ptr<kiln::storage::Store> store;
  try {
    QDir().mkpath(QFileInfo(db).absolutePath());  // the first run has no data directory yet
    store = kiln::storage::Store::open(db.toStdString());
  } catch (const std::exception& e) {
    fail(QStringLiteral("cannot open the session store %1:\n%2").arg(db, QString::fromUtf8(e.what())), headless);
    return 1;
  }

  const QString kiln = findKiln(parser.value(kilnOption));
  // The kernel pane's CUDA, PTX and SASS tabs make them for CPU sessions with `kiln cuda`.
  kiln::viewers::GpuKernelViews::setKilnPath(kiln);
  StudioWindow window(*store, kiln);
  if (!pluginErrors.isEmpty()) {
    // Kept in the status bar (a message would be replaced by the next one), the lines in its tip.
    auto* notLoaded = new QLabel(QStringLiteral("%1 studio plugin(s) not loaded: %2").arg(pluginErrors.size()).arg(pluginErrors.first()));
    notLoaded->setStyleSheet(QStringLiteral("color: #b00020"));
    notLoaded->setToolTip(pluginErrors.join(QLatin1Char('\n')));
    notLoaded->setObjectName(QStringLiteral("pluginErrors"));
    window.statusBar()->addPermanentWidget(notLoaded);
  }
  if (parser.isSet(overlayOption)) {
    const qsizetype overlay = kiln::viewers::overlayKeys().indexOf(parser.value(overlayOption));
    if (overlay < 0) {
      fail(QStringLiteral("--overlay takes one of: %1").arg(kiln::viewers::overlayKeys().join(QStringLiteral(", "))), true);
      return 2;
    }
    window.graphView()->setOverlay(kiln::viewers::Overlay(overlay));
  }
  const QStringList size = parser.value(sizeOption).split(QLatin1Char('x'));
  window.resize(size.size() == 2 && size[0].toInt() > 0 ? size[0].toInt() : 1500,
                size.size() == 2 && size[1].toInt() > 0 ? size[1].toInt() : 950);
  if (parser.isSet(findOption)) {
    // Once, when the stage is on screen (before the screenshot's handler: a find that unfolds a
    // module unsettles the window until its layout is drawn).
    auto found = std::make_shared<bool>(false);
    QObject::connect(&window, &StudioWindow::settled, &window, [&window, found, text = parser.value(findOption)] {
      if (!std::exchange(*found, true)) window.findInGraph(text, 1);
    });
  }
  if (parser.isSet(expandOption) || parser.isSet(hoverOption)) {
    // Once, when the stage is on screen (an unfolded module unsettles the window until its layout
    // is drawn; a hovered line stays lit through relayouts).
    auto done = std::make_shared<bool>(false);
    const QString expand = parser.value(expandOption);
    const int hover = parser.value(hoverOption).toInt();
    QObject::connect(&window, &StudioWindow::settled, &window, [&window, done, expand, hover] {
      if (std::exchange(*done, true)) return;
      if (expand == QLatin1String("all")) window.graphView()->expandAll();
      else if (!expand.isEmpty()) window.graphView()->expandModule(expand.toStdString());
      if (hover <= 0) return;
      emit window.sourceView()->lineHovered(hover);
      // For a picture of it: the line, its first node and its first kernel line in view (a
      // hover itself scrolls nothing).
      window.sourceView()->scrollToLine(hover);
      auto centre = [&window, hover] { window.graphView()->centreOnLine(hover); };
      if (window.graphView()->isLayingOut())
        QObject::connect(window.graphView(), &kiln::viewers::GraphView::layoutFinished, &window, centre, Qt::SingleShotConnection);
      else centre();
      QPlainTextEdit* ir = window.textPane()->editor(kiln::viewers::TextPane::KernelIr);
      for (const auto& sel : ir->extraSelections())
        if (sel.format.background().color() == kiln::viewers::lineColour(hover).darker(118)) {
          ir->verticalScrollBar()->setValue(std::max(0, sel.cursor.blockNumber() - 1));
          break;
        }
    });
  }
  if (!screenshot.isEmpty() || qEnvironmentVariableIntValue("KILN_STUDIO_TIMING") == 1) new FirstPaintTimer(window);
  if (!screenshot.isEmpty()) armScreenshot(window, screenshot, !script.isEmpty());
  window.show();
  if (parser.isSet(diffOption)) {
    window.refreshSessions(diffB);
    if (!window.diffSessions(diffA, diffB)) {
      fail(QStringLiteral("no session %1 or %2 in %3 (see kiln sessions)").arg(diffA).arg(diffB).arg(db), headless);
      return 1;
    }
  } else if (parser.isSet(sessionOption)) {
    bool ok = false;
    const qint64 id = parser.value(sessionOption).toLongLong(&ok);
    window.refreshSessions(id);
    if (!ok || !script.isEmpty() || !window.selectSession(id)) {
      fail(QStringLiteral("--open takes the id of a stored session (see kiln sessions), and no script"), headless);
      return 1;
    }
  } else if (script.isEmpty()) {
    window.selectNewestSession();
  } else {
    window.refreshSessions();  // show what is there while the script runs
    window.runScript(script);
  }
  if (parser.isSet(stageOption)) {
    if (!script.isEmpty()) {
      fail(QStringLiteral("--stage opens a stored session: give no script"), true);
      return 2;
    }
    const std::string name = parser.value(stageOption).toStdString();
    int row = -1;
    for (int r = 0; r < window.stageModel()->rowCount() && row < 0; ++r)
      if (const auto& st = window.stageModel()->stageAt(r); st.stage == name || "[" + st.compileId + "] " + st.stage == name) row = r;
    if (row < 0 || !window.selectStage(row)) {
      fail(QStringLiteral("the session has no stage '%1'").arg(parser.value(stageOption)), headless);
      return 1;
    }
  }
  if (parser.isSet(lineOption)) {
    bool ok = false;
    const int line = parser.value(lineOption).toInt(&ok);
    if (!ok || line <= 0) {
      fail(QStringLiteral("--line takes a line number"), true);
      return 2;
    }
    window.sourceView()->highlightLine(line);
    emit window.sourceView()->lineSelected(line);
  }
  if (parser.isSet(tabOption)) {
    static const QStringList names = {"stage", "step", "capture", "kernel", "source", "llvm", "asm", "wrapper", "output", "diff", "side"};
    // The Timings dock's tabs, in its order: compile phases, run and kernel times, verify, the collectives' timeline,
    // max-autotune's candidates.
    static const QStringList timingNames = {"phases", "times", "verify", "collectives", "autotune"};
    // Or a stage view's id (stage_views.h: rules, a studio plugin's): raised when the stage is shown.
    QStringList views;
    for (const auto& v : kiln::viewers::StageViewRegistry::global().entries()) views << QString::fromStdString(v.id);
    const QString value = parser.value(tabOption);
    const qsizetype tab = names.indexOf(value), timingTab = timingNames.indexOf(value);
    if (tab < 0 && timingTab < 0 && !views.contains(value)) {
      fail(QStringLiteral("--tab takes one of: %1").arg((names + timingNames + views).join(QStringLiteral(", "))), true);
      return 2;
    }
    if (tab >= 0) {
      window.textPane()->setCurrentIndex(static_cast<int>(tab));
    } else if (timingTab >= 0) {
      window.showTimingsTab(static_cast<int>(timingTab));
    } else {
      auto raised = std::make_shared<bool>(false);
      QObject::connect(&window, &StudioWindow::stageShown, &window, [&window, raised, value] {
        if (std::exchange(*raised, true)) return;
        kiln::viewers::TextPane* pane = window.textPane();
        for (int i = 0; i < pane->count(); ++i)
          if (kiln::viewers::stageViewIdAt(pane, i) == value) return pane->setCurrentIndex(i);
        std::fprintf(stderr, "kiln-studio: --tab %s: the stage shown has no such view\n", qPrintable(value));
      });
    }
  }
  if (parser.isSet(artifactOption) && !window.showArtifact(parser.value(artifactOption))) {
    fail(QStringLiteral("the session keeps no record named like '%1' (see kiln show SESSION --stage artifacts)")
             .arg(parser.value(artifactOption)),
         headless);
    return 1;
  }
  return app.exec();
}
