// The studio window on Qt's offscreen platform over a hand-built session: select the fused
// stage, wait for the layout (off the UI thread), and check what is drawn, the text panes, the
// source <-> node linking and a screenshot that is not blank.
#include "viewers/studio_window.h"
#include "sample_session.h"
#include "viewers/breaks_panel.h"
#include "viewers/frames_panel.h"
#include "viewers/graph_cluster_item.h"
#include "viewers/graph_diff_view.h"
#include "viewers/graph_legend.h"
#include "viewers/graph_node_item.h"
#include "viewers/graph_overlay.h"
#include "viewers/graph_view.h"
#include "viewers/line_colour.h"
#include "viewers/profile_charts.h"
#include "viewers/script_runner.h"
#include "viewers/search_panel.h"
#include "viewers/session_list_model.h"
#include "viewers/source_view.h"
#include "viewers/stage_list_model.h"
#include "viewers/text_pane.h"
#include "viewers/timings_chart.h"
#include "viewers/verify_panel.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMap>
#include <QMimeData>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>

using namespace kiln;
using namespace kiln::viewers;

class StudioWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // settings go to ~/.qttest, not the user's
    QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")).clear();
    QVERIFY(dir_.isValid());
    sample_ = testing::writeSampleSession(dir_.filePath(QStringLiteral("studio.db")).toStdString());
    window_ = std::make_unique<StudioWindow>(*sample_.store, dir_.filePath(QStringLiteral("no-kiln")));
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }

  void showsTheFusedStageWithItsKernel() {
    window_->refreshSessions();
    QVERIFY(window_->selectSession(sample_.sessionId));
    QCOMPARE(window_->currentSessionId(), sample_.sessionId);
    QCOMPARE(window_->sourceView()->toPlainText().split('\n').value(testing::kSinLine - 1), QStringLiteral("    y = torch.sin(x) * 2"));

    const int fused = 3;
    QCOMPARE(StageListModel::label(window_->stageModel()->stageAt(fused)), QStringLiteral("[0/0] fused"));
    QVERIFY(window_->selectStage(fused));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);

    QSet<QString> names;
    for (GraphNodeItem* n : window_->graphView()->nodeItems()) names.insert(n->name());
    QCOMPARE(names, (QSet<QString>{"l_x_", "sin", "mul", "relu", "output"}));
    const auto clusters = window_->graphView()->clusterItems();
    QCOMPARE(clusters.size(), 1);
    QCOMPARE(clusters[0]->kernelName(), QStringLiteral("kernel_0"));
    for (GraphNodeItem* n : window_->graphView()->nodeItems()) {
      const bool inKernel = clusters[0]->sceneBoundingRect().contains(n->sceneBoundingRect());
      QCOMPARE(inKernel, n->kernel() == QStringLiteral("kernel_0"));
    }

    TextPane* text = window_->textPane();
    // Opened on the stage's IR: no kernel tab, nor the side by side, is filled before it is shown.
    QCOMPARE(text->currentIndex(), int(TextPane::StageIr));
    QVERIFY(text->isFilled(TextPane::StageIr));
    for (TextPane::Tab t : {TextPane::KernelIr, TextPane::LlvmIr, TextPane::Assembly, TextPane::Wrapper}) QVERIFY(!text->isFilled(t));
    QVERIFY(!text->isFilled(TextPane::TabCount));
    QVERIFY(text->text(TextPane::StageIr).startsWith(QStringLiteral("# stage fused")));
    QVERIFY(text->text(TextPane::KernelIr).contains(QStringLiteral("kernel kernel_0 pointwise")));
    QVERIFY2(text->text(TextPane::KernelIr).contains(QStringLiteral("· runs in 0.05 ms")),
             qPrintable(text->text(TextPane::KernelIr).left(300)));
    QVERIFY(text->text(TextPane::LlvmIr).contains(QStringLiteral("define void @kernel_0")));
    QVERIFY(text->text(TextPane::Wrapper).contains(QStringLiteral("kernel_0(args[0], buf0)")));
    // The capture tab explains the compile: its frame, guards and transformed code.
    QVERIFY(text->text(TextPane::Capture).contains(QStringLiteral("Frame 0: f")));
    QVERIFY(text->text(TextPane::Capture).contains(QStringLiteral("TENSOR_MATCH: check_tensor(L['x']")));
    QVERIFY(text->text(TextPane::Capture).contains(QStringLiteral("def __transformed_code_0_for_f(x):")));
  }

  void screenshotIsNotBlank() {
    const QString path = QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/studio_window.png"));
    QVERIFY(window_->grab().save(path, "PNG"));
    const QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), window_->size() * window_->devicePixelRatio());
    // A blank or unpainted window has a handful of colours; text, boxes and tints give many.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
      for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 50, qPrintable(QStringLiteral("only %1 colours").arg(colours.size())));
    // The graph view itself has content: its own grab must not be one flat colour.
    const QImage graph = window_->graphView()->viewport()->grab().toImage();
    QSet<QRgb> graphColours;
    for (int y = 0; y < graph.height(); y += 2)
      for (int x = 0; x < graph.width(); x += 2) graphColours.insert(graph.pixel(x, y));
    QVERIFY(graphColours.size() > 10);
  }

  void sourceLineHighlightsItsNodes() {
    emit window_->sourceView()->lineSelected(testing::kSinLine);
    QSet<QString> lit;
    for (GraphNodeItem* n : window_->graphView()->nodeItems())
      if (n->highlighted()) lit.insert(n->name());
    QCOMPARE(lit, (QSet<QString>{"sin", "mul"}));
    // The kernels generated from the line are tinted in the line's colour in every kernel tab;
    // in kernel IR only the kernel's header and the instructions of the line's nodes (@1, @2).
    QPlainTextEdit* ir = window_->textPane()->editor(TextPane::KernelIr);
    QVERIFY(!ir->extraSelections().isEmpty());
    QCOMPARE(ir->extraSelections().first().format.background().color(), lineColour(testing::kSinLine));
    QStringList tinted;
    for (const auto& sel : ir->extraSelections()) tinted << sel.cursor.block().text().trimmed();
    QCOMPARE(tinted.size(), 1 + 4);
    for (qsizetype i = 1; i < tinted.size(); ++i)
      QVERIFY2(tinted[i].endsWith(QStringLiteral("@1")) || tinted[i].endsWith(QStringLiteral("@2")), qPrintable(tinted[i]));
    // LLVM IR names the node at the end of a line; assembly in a `# @N` line before its code.
    QCOMPARE(window_->textPane()->editor(TextPane::LlvmIr)->extraSelections().size(), 1 + 2);
    QCOMPARE(window_->textPane()->editor(TextPane::Assembly)->extraSelections().size(), 1 + 4);
    emit window_->sourceView()->lineSelected(testing::kReluLine);
    QCOMPARE(ir->extraSelections().size(), 1 + 3);                                               // header, const, max, store of relu (@3)
    QCOMPARE(window_->textPane()->editor(TextPane::Assembly)->extraSelections().size(), 1 + 2);  // not ret after the label
    emit window_->sourceView()->lineSelected(testing::kSinLine);
    QVERIFY(!window_->textPane()->editor(TextPane::Assembly)->extraSelections().isEmpty());
    QCOMPARE(window_->textPane()->highlightSourceLine(testing::kSinLine + 40), 0);  // no kernel there
    QVERIFY(ir->extraSelections().isEmpty());
    emit window_->sourceView()->lineSelected(testing::kSinLine);
  }

  void selectingANodeShowsItsLineAndKernel() {
    QSignalSpy spy(window_->graphView(), &GraphView::nodeSelected);
    for (GraphNodeItem* n : window_->graphView()->nodeItems())
      if (n->name() == QStringLiteral("relu")) n->setSelected(true);
    QVERIFY(!spy.isEmpty());
    QCOMPARE(window_->sourceView()->highlightedLine(), testing::kReluLine);
    QCOMPARE(window_->textPane()->currentIndex(), int(TextPane::KernelIr));
  }

  // Compiler Explorer's hover link: hovering a script line lights its nodes and kernel lines;
  // hovering a node or a kernel line lights its script line (and the line's other parts); a click
  // on a kernel line selects its script line and centres the graph on the line's first node.
  void hoverLinksTheLineAcrossPanes() {
    auto move = [](QWidget* viewport, QPoint at) {
      QMouseEvent e(QEvent::MouseMove, QPointF(at), viewport->mapToGlobal(QPointF(at)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
      QApplication::sendEvent(viewport, &e);
    };
    auto leave = [](QWidget* viewport) {
      QEvent e(QEvent::Leave);
      QApplication::sendEvent(viewport, &e);
    };
    GraphView* graph = window_->graphView();
    SourceView* source = window_->sourceView();
    TextPane* text = window_->textPane();
    QPlainTextEdit* ir = text->editor(TextPane::KernelIr);
    text->setCurrentIndex(TextPane::KernelIr);
    auto hovered = [&] {
      QSet<QString> lit;
      for (GraphNodeItem* n : graph->nodeItems())
        if (n->hoverLine() > 0) lit.insert(n->name() + QStringLiteral("@") + QString::number(n->hoverLine()));
      return lit;
    };
    auto hoverTinted = [&](QPlainTextEdit* e, int line) {
      QStringList out;
      for (const auto& sel : e->extraSelections())
        if (sel.format.background().color() == lineColour(line).darker(118)) out << sel.cursor.block().text().trimmed();
      return out;
    };
    // The script's sin line.
    const QTextBlock sinBlock = source->document()->findBlockByNumber(testing::kSinLine - 1);
    source->setTextCursor(QTextCursor(sinBlock));
    move(source->viewport(), source->cursorRect(QTextCursor(sinBlock)).center());
    QCOMPARE(source->hoveredLine(), testing::kSinLine);
    QCOMPARE(hovered(), (QSet<QString>{QStringLiteral("sin@5"), QStringLiteral("mul@5")}));
    const QStringList sinLines = hoverTinted(ir, testing::kSinLine);
    QCOMPARE(sinLines.size(), 1 + 4);  // the kernel's header and the four instructions of @1, @2
    QVERIFY(sinLines[0].startsWith(QStringLiteral("──── kernel_0")));
    QCOMPARE(hoverTinted(text->editor(TextPane::Assembly), testing::kSinLine).size(), 1 + 4);
    QCOMPARE(text->hoveredSourceLine(), testing::kSinLine);
    // Onto the relu node in the graph.
    GraphNodeItem* relu = nullptr;
    for (GraphNodeItem* n : graph->nodeItems())
      if (n->name() == QStringLiteral("relu")) relu = n;
    QVERIFY(relu);
    graph->centerOn(relu);
    leave(source->viewport());
    move(graph->viewport(), graph->mapFromScene(relu->sceneBoundingRect().center()));
    QCOMPARE(source->hoveredLine(), testing::kReluLine);
    QCOMPARE(hovered(), (QSet<QString>{QStringLiteral("relu@6")}));
    QCOMPARE(hoverTinted(ir, testing::kReluLine).size(), 1 + 3);
    QVERIFY(hoverTinted(ir, testing::kSinLine).isEmpty());
    leave(graph->viewport());
    QCOMPARE(source->hoveredLine(), 0);
    QVERIFY(hovered().isEmpty());
    // A kernel IR line of @3 (relu), then the assembly under `# @1`.
    QTextBlock maxLine;
    for (QTextBlock b = ir->document()->begin(); b.isValid(); b = b.next())
      if (b.text().contains(QStringLiteral("= max "))) maxLine = b;
    QVERIFY(maxLine.isValid());
    QCOMPARE(text->sourceLineAt(ir, maxLine.blockNumber()), testing::kReluLine);
    QCOMPARE(text->sourceLineAt(ir, 0), 0);  // a kernel's header is no one line's
    QPlainTextEdit* assembly = text->editor(TextPane::Assembly);
    for (QTextBlock b = assembly->document()->begin(); b.isValid(); b = b.next()) {
      if (b.text().contains(QStringLiteral("sinf"))) QCOMPARE(text->sourceLineAt(assembly, b.blockNumber()), testing::kSinLine);
      if (b.text().contains(QStringLiteral("vmaxss"))) QCOMPARE(text->sourceLineAt(assembly, b.blockNumber()), testing::kReluLine);
      if (b.text().contains(QStringLiteral("ret"))) QCOMPARE(text->sourceLineAt(assembly, b.blockNumber()), 0);  // after the label
    }
    ir->setTextCursor(QTextCursor(maxLine));
    ir->ensureCursorVisible();
    const QPoint at = ir->cursorRect(QTextCursor(maxLine)).center();
    move(ir->viewport(), at);
    QCOMPARE(source->hoveredLine(), testing::kReluLine);
    QCOMPARE(hovered(), (QSet<QString>{QStringLiteral("relu@6")}));
    // A click there selects the script's line: its nodes highlighted, the graph centred on relu.
    graph->centerOn(graph->sceneRect().topLeft());
    source->highlightLine(testing::kSinLine);  // so that the click's line is news
    QCOMPARE(source->highlightedLine(), testing::kSinLine);
    QTest::mouseClick(ir->viewport(), Qt::LeftButton, {}, at);
    QTRY_COMPARE(source->highlightedLine(), testing::kReluLine);
    QVERIFY(relu->highlighted());
    QVERIFY(graph->mapToScene(graph->viewport()->rect()).boundingRect().contains(relu->sceneBoundingRect().center()));
    leave(ir->viewport());
    QCOMPARE(text->hoveredSourceLine(), 0);
    QVERIFY(hoverTinted(ir, testing::kReluLine).isEmpty());
    emit source->lineSelected(testing::kSinLine);  // as the later tests expect
  }

  // The fused stage against the pass before it: the three ops joined kernel_0, which its kernel
  // group shows, so none is marked changed (no amber everywhere); the Step tab lists the fusion
  // decisions by node name; Alt+Up steps back to that pass.
  void stepperShowsWhatTheStepChanged() {
    QVERIFY(window_->selectStage(3));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    QSet<QString> changed;
    for (GraphNodeItem* n : window_->graphView()->nodeItems())
      if (n->change() == GraphNodeItem::Change::Changed) changed.insert(n->name());
    QCOMPARE(changed, QSet<QString>{});
    const QString step = window_->textPane()->text(TextPane::Step);
    QVERIFY2(step.contains(QStringLiteral("fusion decisions:\n  fused: pointwise into producer's kernel  x2  on mul, relu")),
             qPrintable(step));
    QVERIFY2(step.contains(QStringLiteral("against pass:cse: 0 added (green), 0 changed (amber), 0 removed")), qPrintable(step));
    QVERIFY2(step.contains(QStringLiteral("joining a kernel is not counted")), qPrintable(step));
    window_->stepStage(-1);
    QCOMPARE(window_->stageModel()->stageAt(2).id, window_->currentStageId());
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QVERIFY(window_->textPane()->text(TextPane::Step).contains(QStringLiteral("changed nothing")));
    for (GraphNodeItem* n : window_->graphView()->nodeItems()) QCOMPARE(n->change(), GraphNodeItem::Change::None);
  }

  // Stepping ATen -> pass:cse -> fused keeps every node where it was (the union of the compile's
  // stages is laid out once), keeps the user's zoom, and draws the kernel group only when fused.
  void stepKeepsNodePositionsAndZoom() {
    QCOMPARE(window_->stageModel()->stageAt(1).stage, std::string("aten"));
    QVERIFY(window_->selectStage(1));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    auto positions = [&] {
      QMap<int, QPointF> at;
      for (GraphNodeItem* n : window_->graphView()->nodeItems()) at[n->nodeId()] = n->sceneBoundingRect().center();
      return at;
    };
    const QMap<int, QPointF> aten = positions();
    QVERIFY(window_->graphView()->clusterItems().isEmpty());
    window_->graphView()->scale(1.25, 1.25);
    const QTransform zoom = window_->graphView()->transform();
    for (int row : {2, 3}) {
      window_->stepStage(+1);
      QCOMPARE(window_->currentStageId(), window_->stageModel()->stageAt(row).id);
      QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
      const QMap<int, QPointF> now = positions();
      int shared = 0;
      for (auto it = now.begin(); it != now.end(); ++it)
        if (aten.contains(it.key())) {
          ++shared;
          QCOMPARE(it.value(), aten.value(it.key()));
        }
      QVERIFY(shared >= 4);
      QCOMPARE(window_->graphView()->transform(), zoom);
    }
    QCOMPARE(window_->graphView()->clusterItems().size(), 1);
    // The captured graph has ids of its own: laid out by itself, fitted again.
    QVERIFY(window_->selectStage(0));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    QVERIFY(window_->graphView()->layoutFrameKey().isEmpty());
  }

  // Backward stages have ids of their own: a layout frame of their own, never the forward's.
  void backwardStagesHaveTheirOwnLayoutFrame() {
    const int64_t training = testing::appendTrainingSampleSession(*sample_.store);
    window_->refreshSessions();
    QVERIFY(window_->selectSession(training));
    QCOMPARE(window_->stageModel()->stageAt(4).stage, std::string("backward:fused"));
    auto names = [&] {
      QSet<QString> out;
      for (GraphNodeItem* n : window_->graphView()->nodeItems()) out.insert(n->name());
      return out;
    };
    QVERIFY(window_->selectStage(4));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && names().contains(QStringLiteral("tangents_1")), 20000);
    QCOMPARE(names(), (QSet<QString>{"primals_1", "tangents_1", "cos", "mul_1", "output"}));
    QVERIFY(window_->graphView()->layoutFrameKey().endsWith(QStringLiteral("/backward")));
    QVERIFY(window_->selectStage(2));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && names().contains(QStringLiteral("relu")), 20000);
    QCOMPARE(names(), (QSet<QString>{"l_x_", "sin", "mul", "relu", "output"}));
    QVERIFY(!window_->graphView()->layoutFrameKey().endsWith(QStringLiteral("/backward")));
    QVERIFY(window_->selectSession(sample_.sessionId));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    sample_.store->deleteSession(training);  // later tests count the sessions
    window_->refreshSessions();
  }

  // The find field above the graph counts matches in the stage and steps through them.
  void findInGraphStepsThroughMatches() {
    QVERIFY(window_->selectStage(3));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    QCOMPARE(window_->findInGraph(QStringLiteral("aten.mul"), 0), 1);
    QCOMPARE(window_->findInGraph(QStringLiteral("aten.mul"), 1), 1);
    QSet<QString> selected;
    for (GraphNodeItem* n : window_->graphView()->nodeItems())
      if (n->isSelected()) selected.insert(n->name());
    QCOMPARE(selected, QSet<QString>{QStringLiteral("mul")});
    QCOMPARE(window_->findInGraph(QStringLiteral("nothing like it"), 1), 0);
  }

  // The node inspector shows the op, type, source line and kernel, and the fusion decision.
  void inspectorDescribesTheSelectedNode() {
    QVERIFY(window_->selectStage(3));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    window_->graphView()->selectNode(3);
    const QString text = window_->inspector()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("aten.relu.default")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("f32[8, 8]")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("sample.py:%1").arg(testing::kReluLine)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("kernel_0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("fused: pointwise into producer's kernel")), qPrintable(text));
  }

  // Export writes the laid-out graph as SVG and PNG and its DOT source; unknown suffixes fail.
  void exportsSvgPngAndDot() {
    QVERIFY(window_->selectStage(3));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    const QString svg = dir_.filePath(QStringLiteral("g.svg")), png = dir_.filePath(QStringLiteral("g.png")),
                  dot = dir_.filePath(QStringLiteral("g.dot"));
    QVERIFY(window_->exportGraph(svg));
    QVERIFY(window_->exportGraph(png));
    QVERIFY(window_->exportGraph(dot));
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    const QByteArray svgText = s.readAll();
    QVERIFY(svgText.contains("<svg"));
    QVERIFY(svgText.contains("relu"));  // labels are drawn as text
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100);
    QFile d(dot);
    QVERIFY(d.open(QIODevice::ReadOnly));
    const QByteArray dotText = d.readAll();
    QVERIFY(dotText.startsWith("digraph kiln {"));
    QVERIFY(dotText.contains("subgraph \"cluster_kernel_0\""));
    QVERIFY(dotText.contains("n2 -> n3;"));
    QVERIFY(!window_->exportGraph(dir_.filePath(QStringLiteral("g.bmpx"))));
  }

  // The Timings dock charts the compile's phases from the store.
  void timingsChartShowsEveryPhase() {
    TimingsChart* chart = window_->timings();
    QCOMPARE(chart->compiles(), QStringList{QStringLiteral("0/0")});
    QCOMPARE(chart->phases(), (QStringList{"capture", "lower", "passes", "codegen"}));
    QCOMPARE(chart->ms(QStringLiteral("codegen"), 0), 20.0);
    QCOMPARE(chart->chart()->series().size(), 1);
    // Run and kernel times from the session's profile.
    ProfileCharts* prof = window_->profileCharts();
    QCOMPARE(prof->compiles(), QStringList{QStringLiteral("[0/0]")});
    QCOMPARE(prof->eagerMs(), std::vector<double>{0.4});
    QCOMPARE(prof->compiledMs(), std::vector<double>{0.1});
    QCOMPARE(prof->kernels(), QStringList{QStringLiteral("[0/0] kernel_0")});
    QCOMPARE(prof->runChart()->chart()->series().size(), 1);
    QVERIFY(prof->runChart()->chart()->title().contains(QStringLiteral("median of 5 runs")));
    window_->showTimingsTab(1);
    QTRY_VERIFY(prof->isVisible());
    QVERIFY(window_->grab().save(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/studio_profile.png")), "PNG"));
    window_->showTimingsTab(0);
  }

  // Scripts run from the studio are remembered, newest first and without duplicates, and the
  // window layout is saved on close.
  void recentScriptsAndLayoutPersist() {
    const QString a = dir_.filePath(QStringLiteral("a.py")), b = dir_.filePath(QStringLiteral("b.py"));
    for (const QString& script : {a, b, a}) {
      QSignalSpy done(window_->scriptRunner(), &ScriptRunner::finished);
      window_->runScript(script);  // `kiln` is missing here: the run fails, the script is still recent
      QVERIFY(done.wait(10000));
    }
    QCOMPARE(window_->recentScripts(), (QStringList{a, b}));
    window_->close();
    QVERIFY(!QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")).value(QStringLiteral("windowState")).toByteArray().isEmpty());
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }

  // The Frames dock lists frame 0 `f` with its compile [0/0]; activating it shows the
  // compile's fused stage and its Capture tab.
  void framesPanelListsCompiles() {
    QVERIFY(window_->selectSession(sample_.sessionId));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    FramesPanel* frames = window_->framesPanel();
    QCOMPARE(frames->topLevelItemCount(), 1);
    QTreeWidgetItem* frame = frames->topLevelItem(0);
    QCOMPARE(frame->text(0), QStringLiteral("frame 0: f"));
    QCOMPARE(frame->child(0)->text(0), QStringLiteral("[0/0]"));
    QVERIFY2(frame->child(0)->text(1).startsWith(QStringLiteral("inductor")), qPrintable(frame->child(0)->text(1)));
    QVERIFY(window_->selectStage(0));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    emit frames->itemActivated(frame->child(0), 0);
    QCOMPARE(window_->currentStageId(), window_->stageModel()->stageAt(3).id);
    QCOMPARE(window_->textPane()->currentIndex(), int(TextPane::Capture));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
  }

  // Dragging a .py file over the window is accepted, other files are not; dropping one runs it
  // (here `kiln` is missing, so the run fails, but it was started and the script became recent).
  void droppingAScriptRunsIt() {
    const QString script = dir_.filePath(QStringLiteral("dropped.py"));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(script)});
    QDragEnterEvent enterPy(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enterPy);
    QVERIFY(enterPy.isAccepted());
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(dir_.filePath(QStringLiteral("notes.txt")))});
    QDragEnterEvent enterTxt(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enterTxt);
    QVERIFY(!enterTxt.isAccepted());
    QVERIFY(!window_->runDropped(&text));
    QSignalSpy done(window_->scriptRunner(), &ScriptRunner::finished);
    QVERIFY(window_->runDropped(&mime));
    QVERIFY(window_->stopButton()->isVisibleTo(window_.get()));  // the cancel button, while it runs
    QTRY_VERIFY_WITH_TIMEOUT(done.count() >= 1, 10000);
    QVERIFY(!window_->stopButton()->isVisibleTo(window_.get()));
    QCOMPARE(window_->recentScripts().value(0), script);
  }

  void capturedStageHasNoKernels() {
    QVERIFY(window_->selectStage(0));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(window_->graphView()->nodeItems().size(), 5);
    QVERIFY(window_->graphView()->clusterItems().isEmpty());
    QVERIFY(window_->textPane()->text(TextPane::StageIr).startsWith(QStringLiteral("# stage captured")));
  }

  void newestStageWins() {
    // Asking for every stage in a row must end on the last one asked for, whatever order the
    // layouts finish in.
    for (int row = 0; row < window_->stageModel()->rowCount(); ++row) QVERIFY(window_->selectStage(row));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(window_->currentStageId(), window_->stageModel()->stageAt(3).id);
    QCOMPARE(window_->graphView()->clusterItems().size(), 1);
    QVERIFY(window_->textPane()->text(TextPane::StageIr).startsWith(QStringLiteral("# stage fused")));
  }

  // The legend is always on the graph view; its chooser paints the fused stage's kernel_0 by
  // its profiled time (0.05 ms, the only kernel: the hottest), by bytes (512 B), or by kernel.
  // The ATen stage shares node ids with the fused one, so its nodes show the kernel they end
  // up in; the captured graph's ids are its own, and the legend says so. Stepping inside a
  // layout frame draws at once: the status bar must not stay on "Laying out…".
  void overlaysFromTheLegend() {
    GraphView* view = window_->graphView();
    QVERIFY(window_->selectStage(3));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !view->nodeItems().isEmpty(), 20000);
    GraphLegend* legend = view->legend();
    QVERIFY(legend->isVisible());
    QVERIFY(legend->geometry().bottom() < view->viewport()->geometry().top());  // a strip above the graph, covering no node
    QVERIFY2(legend->text().contains(QStringLiteral("added by this step")), qPrintable(legend->text()));
    auto fills = [&] {
      QMap<QString, QColor> out;
      for (GraphNodeItem* n : view->nodeItems()) out[n->name()] = n->overlayFill();
      return out;
    };
    legend->chooser()->setCurrentIndex(int(Overlay::KernelTime));
    QCOMPARE(view->overlay(), Overlay::KernelTime);
    for (const char* name : {"sin", "mul", "relu"}) QCOMPARE(fills().value(QString::fromLatin1(name)), heatColour(1.0));
    QVERIFY(!fills().value(QStringLiteral("l_x_")).isValid());
    QVERIFY2(legend->text().contains(QStringLiteral("0.0500 ms (the most shown)")), qPrintable(legend->text()));
    for (GraphNodeItem* n : view->nodeItems())
      if (n->name() == QStringLiteral("relu"))
        QVERIFY2(n->toolTip().endsWith(QStringLiteral("0.0500 ms per launch")), qPrintable(n->toolTip()));
    QVERIFY(window_->grab().save(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/studio_overlay.png")), "PNG"));
    legend->chooser()->setCurrentIndex(int(Overlay::Bytes));
    QVERIFY2(legend->text().contains(QStringLiteral("512 B (the most shown)")), qPrintable(legend->text()));
    view->setOverlay(Overlay::Kernel);
    QCOMPARE(legend->chooser()->currentIndex(), int(Overlay::Kernel));
    QCOMPARE(fills().value(QStringLiteral("mul")), kernelColour(QStringLiteral("kernel_0"), 0));
    QVERIFY2(legend->text().contains(QStringLiteral("kernel_0 (3 nodes)")), qPrintable(legend->text()));
    // Back to ATen (the same layout frame: drawn at once) with the overlay kept.
    window_->stepStage(-1);
    window_->stepStage(-1);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && window_->currentStageId() == window_->stageModel()->stageAt(1).id, 20000);
    QCOMPARE(fills().value(QStringLiteral("sin")), kernelColour(QStringLiteral("kernel_0"), 0));
    QVERIFY2(!window_->statusBar()->currentMessage().startsWith(QStringLiteral("Laying out")),
             qPrintable(window_->statusBar()->currentMessage()));
    QVERIFY(window_->selectStage(0));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !view->nodeItems().isEmpty(), 20000);
    QVERIFY(!fills().value(QStringLiteral("sin")).isValid());
    QVERIFY2(legend->text().contains(QStringLiteral("captured graph")), qPrintable(legend->text()));
    view->setOverlay(Overlay::Dtype);
    QVERIFY2(legend->text().contains(QStringLiteral("f32 (4 nodes)")), qPrintable(legend->text()));
    QCOMPARE(fills().value(QStringLiteral("sin")).isValid(), true);
    // Source line: every node in its line's colour, and the script's lines tinted to match.
    view->setOverlay(Overlay::SourceLine);
    QCOMPARE(fills().value(QStringLiteral("sin")), lineColour(testing::kSinLine));
    QCOMPARE(fills().value(QStringLiteral("relu")), lineColour(testing::kReluLine));
    QCOMPARE(window_->sourceView()->lineTints(), (QList<int>{4, testing::kSinLine, testing::kReluLine}));
    // ...and, with no line selected, every kernel IR line in its node's line's colour: @1 and @2
    // (sin, mul) in line 5's, @3 (relu) in line 6's; the header names no node.
    QPlainTextEdit* ir = window_->textPane()->editor(TextPane::KernelIr);
    window_->textPane()->highlightSourceLine(0);
    QMap<QRgb, int> tinted;
    for (const auto& sel : ir->extraSelections()) tinted[sel.format.background().color().rgb()]++;
    QCOMPARE(tinted.value(lineColour(testing::kSinLine).rgb()), 4);
    QCOMPARE(tinted.value(lineColour(testing::kReluLine).rgb()), 3);
    QCOMPARE(ir->extraSelections().size(), 7);
    view->setOverlay(Overlay::None);
    QVERIFY(window_->sourceView()->lineTints().isEmpty());
    QVERIFY(ir->extraSelections().isEmpty());
    emit window_->sourceView()->lineSelected(testing::kSinLine);  // as the earlier tests left it
    for (const QColor& c : fills()) QVERIFY(!c.isValid());
  }

  void diffOfTwoSelectedSessions() {
    const qint64 first = sample_.sessionId;
    const qint64 second = testing::appendChangedSampleSession(*sample_.store);
    window_->refreshSessions(second);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(window_->sessionModel()->rowCount(), 2);
    auto* table = window_->findChild<QTableView*>(QStringLiteral("sessionTable"));
    QVERIFY(table);
    table->selectAll();
    // The first session is the one shown (as after clicking it, then Ctrl+clicking the second).
    table->selectionModel()->setCurrentIndex(window_->sessionModel()->index(window_->sessionModel()->rowOf(first), 0),
                                             QItemSelectionModel::NoUpdate);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && window_->currentSessionId() == first, 20000);
    QSignalSpy shown(window_.get(), &StudioWindow::diffShown);
    window_->diffSelectedSessions();
    QVERIFY(shown.wait(20000));  // computed on a pool thread
    QCOMPARE(shown.at(0).at(2).toBool(), true);
    // The diff shows the second session, compared stage by stage, with both still selected.
    QCOMPARE(window_->currentSessionId(), second);
    QCOMPARE(table->selectionModel()->selectedRows().size(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && window_->graphDiff()->isVisible(), 20000);
    TextPane* text = window_->textPane();
    QCOMPARE(text->currentIndex(), int(TextPane::Diff));
    const QString diff = text->text(TextPane::Diff);
    QVERIFY2(diff.startsWith(QStringLiteral("session %1 (sample.py) vs session %2").arg(first).arg(second)), qPrintable(diff));
    QVERIFY2(diff.contains(QStringLiteral("[0/0] f: captured graph differs")), qPrintable(diff));
    QVERIFY2(diff.contains(QStringLiteral("+ guard CONSTANT_MATCH: G['SCALE'] == 2")), qPrintable(diff));
    QVERIFY2(diff.contains(QStringLiteral("+     # scaled by G['SCALE']")), qPrintable(diff));
    // The second session's stages are now coloured against the first's: its fused stage
    // computes sigmoid where the first computes relu.
    QVERIFY(window_->selectStage(3));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
    const QString step = text->text(TextPane::Step);
    QVERIFY2(step.contains(QStringLiteral("against session %1's [0/0] fused: 0 added (green), 1 changed (amber), 0 removed").arg(first)),
             qPrintable(step));
    for (GraphNodeItem* n : window_->graphView()->nodeItems())
      QCOMPARE(n->change() == GraphNodeItem::Change::Changed, n->name() == QStringLiteral("relu"));
    // The Graph diff dock shows both fused stages side by side, relu amber on both sides.
    GraphDiffView* pair = window_->graphDiff();
    QTRY_VERIFY_WITH_TIMEOUT(pair->before()->nodeItems().size() == 5 && pair->after()->nodeItems().size() == 5, 20000);
    for (GraphView* side : {pair->before(), pair->after()})
      for (GraphNodeItem* n : side->nodeItems())
        QCOMPARE(n->change() == GraphNodeItem::Change::Changed, n->name() == QStringLiteral("relu"));
    // Showing another session keeps the diff; a missing session leaves it alone too.
    QVERIFY(window_->selectSession(first));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(text->text(TextPane::Diff), diff);
    QVERIFY(!window_->diffSessions(first, second + 100));
    QCOMPARE(text->text(TextPane::Diff), diff);
    // kiln run --verify results: the first session's graph agrees with eager; the second's
    // differs, blamed on cse, and its tab says so.
    QCOMPARE(window_->verifyPanel()->checkedCount(), 1);
    QCOMPARE(window_->verifyPanel()->mismatchCount(), 0);
    QVERIFY(window_->selectSession(second));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    VerifyPanel* verify = window_->verifyPanel();
    QCOMPARE(verify->mismatchCount(), 1);
    QCOMPARE(verify->topLevelItem(0)->text(2), QStringLiteral("introduced by pass cse"));
    window_->showTimingsTab(2);
    QTRY_VERIFY(verify->isVisible());
    QVERIFY(window_->grab().save(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/studio_verify.png")), "PNG"));
    window_->showTimingsTab(0);
    // The toggle that makes studio runs verify is in the File menu and remembered.
    QVERIFY(window_->verifyAction()->isCheckable());
    const bool was = window_->verifyAction()->isChecked();
    window_->verifyAction()->setChecked(!was);
    QCOMPARE(window_->scriptRunner()->verify(), !was);
    window_->verifyAction()->setChecked(was);
  }

  void searchHitShowsItsSessionAndStage() {
    SearchPanel* search = window_->searchPanel();
    QVERIFY(search);
    QSignalSpy found(search, &SearchPanel::searchFinished);
    search->search(QStringLiteral("nosuchwordanywhere"));  // runs on a pool thread
    QVERIFY(found.wait(10000));
    QCOMPARE(found.takeFirst().at(0).toInt(), 0);
    search->search(QStringLiteral("stage"));
    QVERIFY(found.wait(10000));
    QVERIFY(found.takeFirst().at(0).toInt() > 0);  // every sample stage's text says "# stage NAME"
    int stageHit = -1;
    for (int i = 0; i < search->hitCount(); ++i)
      if (search->hitAt(i).kind == "stage" && search->hitAt(i).sessionId == sample_.sessionId) stageHit = i;
    QVERIFY(stageHit >= 0);
    const qint64 stageId = QString::fromStdString(search->hitAt(stageHit).ref).toLongLong();
    QVERIFY(window_->selectSession(sample_.sessionId));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    // The hit names its stage as the stage list does, not by row id ("stage 12").
    const int stageRow = window_->stageModel()->rowOfStage(stageId);
    QVERIFY(stageRow >= 0);
    QCOMPARE(search->hitPlace(stageHit), StageListModel::label(window_->stageModel()->stageAt(stageRow)));
    QVERIFY(search->hitPlace(stageHit).startsWith(QStringLiteral("[0/0] ")));
    const QString shown = search->findChild<QListWidget*>()->item(stageHit)->text();
    QVERIFY2(shown.startsWith(QStringLiteral("#%1 [0/0] ").arg(sample_.sessionId)), qPrintable(shown));
    const int other = window_->stageModel()->stageAt(0).id == stageId ? 1 : 0;  // start elsewhere
    QVERIFY(window_->selectStage(other));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QVERIFY(window_->currentStageId() != stageId);
    search->activate(stageHit);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(window_->currentSessionId(), sample_.sessionId);
    QCOMPARE(window_->currentStageId(), stageId);
  }

  void renameAndDeleteSessions() {
    QCOMPARE(window_->sessionModel()->rowCount(), 2);  // after diffOfTwoSelectedSessions
    const qint64 first = sample_.sessionId;
    const qint64 second = window_->sessionModel()->sessionIdAt(0);
    QVERIFY(window_->renameSession(first, QStringLiteral("baseline")));
    const int row = window_->sessionModel()->rowOf(first);
    QCOMPARE(window_->sessionModel()->data(window_->sessionModel()->index(row, SessionListModel::Name)).toString(),
             QStringLiteral("baseline"));
    QVERIFY(!window_->renameSession(first + 100, QStringLiteral("nope")));
    QVERIFY(window_->selectSession(second));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QVERIFY(window_->deleteSessions({second}));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(window_->sessionModel()->rowCount(), 1);
    QCOMPARE(window_->currentSessionId(), first);  // the deleted one was shown: the newest left is
    QVERIFY(!window_->deleteSessions({second}));   // already gone
    QCOMPARE(window_->sessionModel()->rowCount(), 1);
  }

  // A compile that failed before it had a graph (fullgraph=True met a data-dependent branch) is
  // a red row of the stage list with its error and line, a red group of the Breaks dock, a
  // marked source line; selecting it shows why in the graph's place and the Capture tab.
  void failedCompileIsListedAndMarked() {
    const qint64 id = testing::appendFailedCompileSampleSession(*sample_.store);
    window_->refreshSessions(id);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QCOMPARE(window_->currentSessionId(), id);
    // The session list says at a glance that it had a failure.
    const QModelIndex status = window_->sessionModel()->index(window_->sessionModel()->rowOf(id), SessionListModel::Status);
    QCOMPARE(status.data().toString(), QStringLiteral("ok · 1 failed"));
    QCOMPARE(status.data(Qt::ForegroundRole).value<QColor>(), QColor(0xc0, 0x28, 0x28));
    StageListModel* stages = window_->stageModel();
    QCOMPARE(stages->rowCount(), 2);
    QCOMPARE(stages->index(0).data().toString(),
             QStringLiteral("[0/0] failed: Data-dependent branching (line %1)").arg(testing::kFailedLine));
    QCOMPARE(stages->index(0).data(Qt::ForegroundRole).value<QColor>(), QColor(0xc0, 0x39, 0x2b));
    QVERIFY(stages->index(0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Detected data-dependent branching")));
    QCOMPARE(stages->defaultRow(), 1);  // it opens on the graph that was compiled
    QCOMPARE(window_->breaksPanel()->failedCount(), 1);
    // The compile list (Frames) says it too, in red.
    QTreeWidgetItem* failedCompile = window_->framesPanel()->topLevelItem(0)->child(0);
    QCOMPARE(failedCompile->text(1),
             QStringLiteral("inductor · failed · 0 guard(s): Data-dependent branching (line %1)").arg(testing::kFailedLine));
    QCOMPARE(failedCompile->foreground(0).color(), QColor(0xc0, 0x39, 0x2b));
    bool marked = false;
    for (const LineMark& m : window_->sourceView()->marks())
      marked = marked || (m.line == testing::kFailedLine && m.tooltip.contains(QStringLiteral("compile failed")));
    QVERIFY(marked);
    bool said = false;  // the summary in the status bar counts it
    for (QLabel* l : window_->statusBar()->findChildren<QLabel*>()) said = said || l->text().contains(QStringLiteral("1 failed compile"));
    QVERIFY(said);

    QVERIFY(window_->selectStage(0));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    QVERIFY(window_->graphView()->nodeItems().isEmpty());
    QCOMPARE(window_->currentStageId(), 0);
    QCOMPARE(window_->sourceView()->highlightedLine(), testing::kFailedLine);
    QCOMPARE(window_->textPane()->currentIndex(), int(TextPane::Capture));
    QVERIFY(window_->textPane()->text(TextPane::Capture).contains(QStringLiteral("[0/0] compile failed: Data-dependent branching")));
    // Stepping on to the next row shows the compiled graph again.
    window_->stepStage(1);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !window_->graphView()->nodeItems().isEmpty(), 20000);
  }

  // A session without a run profile: the time overlay paints nothing and its legend says why.
  void overlayWithoutAProfileSaysSo() {
    GraphView* view = window_->graphView();
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && !view->nodeItems().isEmpty(), 20000);  // the failed-compile session's graph
    view->setOverlay(Overlay::KernelTime);
    QVERIFY2(view->legend()->text().contains(QStringLiteral("Not profiled")), qPrintable(view->legend()->text()));
    for (GraphNodeItem* n : view->nodeItems()) QVERIFY(!n->overlayFill().isValid());
    view->setOverlay(Overlay::None);
  }

  // File > Export Report writes the page `kiln report` writes, for the session shown, off the UI
  // thread; the file name comes from the save-path chooser (a dialog, replaced here).
  void exportReportWritesTheShownSession() {
    QVERIFY(window_->selectSession(sample_.sessionId));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    const QString path = dir_.filePath(QStringLiteral("report.html"));
    QString asked;
    window_->setSavePathChooser([&](const QString& title, const QString& suggested, const QString&) {
      asked = title + QLatin1Char('|') + suggested;
      return path;
    });
    QSignalSpy written(window_.get(), &StudioWindow::reportExported);
    window_->exportReportAction()->trigger();
    QVERIFY(written.wait(30000));
    QCOMPARE(asked, QStringLiteral("Export Report|kiln-session-%1.html").arg(sample_.sessionId));
    QCOMPARE(written.at(0).at(0).toString(), path);
    QCOMPARE(written.at(0).at(1).toString(), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(f.readAll());
    QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
    QVERIFY2(html.contains(QStringLiteral("<h1>Kiln session %1: sample.py</h1>").arg(sample_.sessionId)), qPrintable(html.left(600)));
    QVERIFY(html.contains(QStringLiteral("Kernel <b>kernel_0</b>")));
    QVERIFY(html.contains(QStringLiteral("0.050 ms per launch")));
    QVERIFY(html.contains(QStringLiteral("Stage <b>fused</b>")));
    QVERIFY(html.trimmed().endsWith(QStringLiteral("</html>")));
    QVERIFY(window_->statusBar()->currentMessage().startsWith(QStringLiteral("Report written to")));
    // An unwritable path is reported, not a crash.
    const QString bad = dir_.filePath(QStringLiteral("no/such/dir/report.html"));
    window_->setSavePathChooser([&](const QString&, const QString&, const QString&) { return bad; });
    written.clear();
    window_->exportReportAction()->trigger();
    QVERIFY(written.wait(30000));
    QVERIFY(!written.at(0).at(1).toString().isEmpty());
    QVERIFY(!QFile::exists(bad));
  }

  // The first start at 1920x1080 (no saved layout): every session column's header in full and
  // no sideways scrolling, the search a tab beside the sessions, a text pane of 20+ lines of
  // code, the graph wider than the script, the failed compile's explanation wrapped in the
  // Breaks dock (not "Detected dat…"), and the kernel chart's labels never cut to "…". Writes
  // build/tests/gui/studio_1920.png to look at.
  void defaultLayoutAt1920x1080() {
    QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")).clear();
    StudioWindow big(*sample_.store, dir_.filePath(QStringLiteral("no-kiln")));
    big.resize(1920, 1080);
    big.show();
    QVERIFY(QTest::qWaitForWindowExposed(&big));
    big.refreshSessions();  // the newest: the run with a failed compile
    QTRY_VERIFY_WITH_TIMEOUT(big.isSettled() && !big.graphView()->nodeItems().isEmpty(), 20000);
    auto* table = big.findChild<QTableView*>(QStringLiteral("sessionTable"));
    for (int col = SessionListModel::Status; col < SessionListModel::ColumnCount; ++col) {
      const QString title = big.sessionModel()->headerData(col, Qt::Horizontal).toString();
      QVERIFY2(table->horizontalHeader()->sectionSize(col) >= table->horizontalHeader()->fontMetrics().horizontalAdvance(title) + 4,
               qPrintable(title));
    }
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    auto* sessionsDock = big.findChild<QDockWidget*>(QStringLiteral("sessions"));
    QVERIFY(big.tabifiedDockWidgets(sessionsDock).contains(big.findChild<QDockWidget*>(QStringLiteral("search"))));
    QPlainTextEdit* code = big.textPane()->editor(TextPane::StageIr);
    QVERIFY2(code->viewport()->height() / code->fontMetrics().lineSpacing() >= 20, qPrintable(QString::number(code->viewport()->height())));
    QVERIFY(big.graphView()->width() > big.sourceView()->width());
    BreaksPanel* breaks = big.breaksPanel();
    QTreeWidgetItem* failed = breaks->topLevelItem(2)->child(0);
    const QString detail = failed->text(2);
    QVERIFY(detail.startsWith(QStringLiteral("Detected data-dependent branching")));
    QVERIFY(breaks->fontMetrics().horizontalAdvance(detail) > breaks->header()->sectionSize(2));  // too long for one line
    QTRY_VERIFY2(breaks->visualItemRect(failed).height() >= 2 * breaks->fontMetrics().lineSpacing(),
                 qPrintable(QStringLiteral("%1 px").arg(breaks->visualItemRect(failed).height())));
    QVERIFY(big.grab().save(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/studio_1920.png")), "PNG"));
    QVERIFY(big.selectSession(sample_.sessionId));  // profiled: the kernel chart has labels
    QTRY_VERIFY_WITH_TIMEOUT(big.isSettled(), 20000);
    const auto axes = big.profileCharts()->kernelChart()->chart()->axes(Qt::Vertical);
    QCOMPARE(axes.size(), 1);
    auto* labels = qobject_cast<QBarCategoryAxis*>(axes.first());
    QVERIFY(labels);
    QCOMPARE(labels->categories(), QStringList{QStringLiteral("[0/0] kernel_0")});
    QVERIFY(!labels->truncateLabels());
  }

  // A session whose break is far down a long script opens with that line in view (issue 17: "the
  // source pane does not scroll to a break until clicked"), the caret left alone.
  void sourceOpensOnTheFirstBreak() {
    std::string script;
    for (int i = 1; i <= 300; ++i) script += "x_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    auto sink = sample_.store->beginSession();
    sink->sessionStart({"long.py", script, "{}", "test", 1700000300000});
    session::GraphBreakEvent b;
    b.code = "KB002";
    b.title = "Failed to trace builtin operator";
    b.file = "long.py";
    b.line = 240;
    sink->graphBreak(b);
    sink->sessionEnd({.status = "ok", .totalMs = 1.0, .outputsJson = "{}"});
    const qint64 id = sample_.store->lastSessionId();
    window_->refreshSessions(id);
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled() && window_->currentSessionId() == id, 20000);
    SourceView* source = window_->sourceView();
    const int top = source->cursorForPosition(QPoint(4, 2)).blockNumber() + 1;
    const int bottom = source->cursorForPosition(QPoint(4, source->viewport()->height() - 2)).blockNumber() + 1;
    QVERIFY2(top <= 240 && 240 <= bottom, qPrintable(QStringLiteral("lines %1 to %2 in view").arg(top).arg(bottom)));
    QCOMPARE(source->textCursor().blockNumber(), 0);
  }

  void cleanupTestCase() { window_.reset(); }

 private:
  QTemporaryDir dir_;
  testing::SampleSession sample_;
  std::unique_ptr<StudioWindow> window_;
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  StudioWindowTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "studio_window_test.moc"
