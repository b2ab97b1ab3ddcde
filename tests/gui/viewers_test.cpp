// The studio's parts on their own: the models over a real store (checked by
// QAbstractItemModelTester), the layout worker's newest-request-wins rule, and the script
// runner's handling of the `kiln run` process.
#include "sample_session.h"
#include "viewers/artifacts_panel.h"
#include "viewers/autotune_panel.h"
#include "viewers/breaks_panel.h"
#include "viewers/diff_highlighter.h"
#include "viewers/graph_breadcrumbs.h"
#include "viewers/graph_cluster_item.h"
#include "viewers/graph_diff_view.h"
#include "viewers/graph_layout_worker.h"
#include "viewers/graph_legend.h"
#include "viewers/graph_minimap.h"
#include "viewers/graph_navigation.h"
#include "viewers/graph_node_item.h"
#include "viewers/graph_overlay.h"
#include "viewers/graph_view.h"
#include "viewers/layout_frame.h"
#include "viewers/layout_wrap.h"
#include "viewers/line_colour.h"
#include "viewers/module_collapse.h"
#include "viewers/op_colour.h"
#include "viewers/script_runner.h"
#include "viewers/session_list_model.h"
#include "viewers/source_marks.h"
#include "viewers/source_view.h"
#include "viewers/stage_list_model.h"
#include "viewers/stage_reader.h"
#include "viewers/text_pane.h"
#include "viewers/verify_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStyleOptionGraphicsItem>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QTreeWidget>
#include <map>
#include <thread>

using namespace kiln;
using namespace kiln::viewers;

namespace {

// x -> for each block i: blocks.i.attn (n nodes), blocks.i.mlp (n nodes) -> head (2 nodes) -> output.
ir::Graph layered(int blocks, int n) {
  ir::Graph g;
  auto add = [&](ir::NodeKind kind, const std::string& target, int arg, const std::string& module) {
    ir::Node node;
    node.kind = kind;
    node.target = target;
    node.name = target;
    if (arg >= 0) node.args.push_back(ir::Arg::ref(arg));
    node.types.push_back(ir::TensorType{ir::DType::Float32, {4, 8}});
    node.prov.modulePath = module;
    return g.add(std::move(node)).id;
  };
  int last = add(ir::NodeKind::Placeholder, "x", -1, "");
  for (int b = 0; b < blocks; ++b)
    for (const char* m : {"attn", "mlp"})
      for (int i = 0; i < n; ++i)
        last = add(ir::NodeKind::CallFunction, "aten.relu.default", last, "blocks." + std::to_string(b) + "." + m);
  for (int i = 0; i < 2; ++i) last = add(ir::NodeKind::CallFunction, "aten.mul.Tensor", last, "head");
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = out.target = "output";
  out.args.push_back(ir::Arg::listOf({ir::Arg::ref(last)}));
  g.add(std::move(out));
  return g;
}

}  // namespace

class ViewersTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    sample_ = testing::writeSampleSession(dir_.filePath(QStringLiteral("models.db")).toStdString());
    QVERIFY(sample_.sessionId > 0);
  }

  void sessionListModel() {
    SessionListModel model(*sample_.store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.refresh();
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.columnCount(), int(SessionListModel::ColumnCount));
    QCOMPARE(model.sessionIdAt(0), sample_.sessionId);
    QCOMPARE(model.rowOf(sample_.sessionId), 0);
    QCOMPARE(model.index(0, SessionListModel::Name).data().toString(), QStringLiteral("sample.py"));
    QCOMPARE(model.index(0, SessionListModel::Status).data().toString(), QStringLiteral("ok"));
    QCOMPARE(model.index(0, SessionListModel::Graphs).data().toInt(), 1);
    model.refresh();  // a second reset must keep the tester happy too
  }

  void stageListModel() {
    StageListModel model(*sample_.store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.load(sample_.sessionId);
    const QStringList expected{"[0/0] captured", "[0/0] aten", "[0/0] pass:cse", "[0/0] fused"};
    QCOMPARE(model.rowCount(), int(expected.size()));
    for (int row = 0; row < model.rowCount(); ++row) QCOMPARE(model.index(row).data().toString(), expected[row]);
    // The pass that changed nothing is dimmed; the others use the view's colour.
    QVERIFY(model.index(2).data(Qt::ForegroundRole).isValid());
    QVERIFY(!model.index(3).data(Qt::ForegroundRole).isValid());
    QCOMPARE(model.defaultRow(), 3);
    QCOMPARE(model.rowOfStage(model.stageAt(3).id), 3);
    model.load(0);
    QCOMPARE(model.rowCount(), 0);
  }

  // Each stage is diffed against the one it was stepped from: the same piece and direction, not
  // the row above (a DDP split's submodules, the joint graph after the forward's fused stage).
  void stageSteppedFromKeepsPieceAndDirection() {
    std::vector<storage::StageRow> rows;
    for (const char* name : {"captured", "aten", "fused", "backward:joint", "backward:partition", "backward:aten", "backward:pass:cse",
                             "backward:fused", "ddp_split", "submod_0: captured", "submod_0: aten", "submod_1: captured", "submod_1: aten",
                             "submod_1: backward:aten", "submod_1: backward:fused"}) {
      storage::StageRow r;
      r.compileId = "0/0";
      r.stage = name;
      rows.push_back(r);
    }
    storage::StageRow other;
    other.compileId = "1/0";
    other.stage = "aten";
    rows.push_back(other);
    auto from = [&](int row) { return StageListModel::steppedFrom(rows, row); };
    const std::vector<int> expected{-1, 0, 1, -1, 3, -1, 5, 6, 2, -1, 9, -1, 11, -1, 13, -1};
    QCOMPARE(int(expected.size()), int(rows.size()));
    for (int row = 0; row < int(rows.size()); ++row) {
      if (from(row) != expected[size_t(row)])
        QFAIL(qPrintable(QStringLiteral("%1 steps from row %2, expected %3")
                             .arg(QString::fromStdString(rows[size_t(row)].stage))
                             .arg(from(row))
                             .arg(expected[size_t(row)])));
    }
  }

  void layoutWorkerDeliversOnlyTheNewest() {
    const storage::StageRow fused = sample_.store->stages(sample_.sessionId, "0/0").back();
    const ir::Graph graph = sample_.store->stageGraph(fused.id);
    GraphLayoutWorker worker;
    QSignalSpy spy(&worker, &GraphLayoutWorker::layoutReady);
    worker.request(graph, {});
    worker.request(ir::Graph{}, {});
    const quint64 newest = worker.request(graph, {});
    QVERIFY(worker.busy());
    QTRY_VERIFY_WITH_TIMEOUT(!worker.busy(), 20000);
    QTest::qWait(100);  // anything stale would have arrived by now
    QCOMPARE(spy.size(), 1);
    const auto layout = spy.at(0).at(0).value<GraphLayout>();
    QCOMPARE(layout.requestId, newest);
    QCOMPARE(layout.error, QString());
    QCOMPARE(layout.nodes.size(), qsizetype(graph.nodes.size()));
    QCOMPARE(layout.edges.size(), 4);  // x->sin->mul->relu->output
    QCOMPARE(layout.clusters.size(), 1);
    for (const auto& n : layout.nodes) QVERIFY(layout.bounds.contains(n.box));
  }

  // A kernel's name wider than its group (one column of nodes) is drawn whole on a tab past the
  // group's right edge (issue 17: "clipped kernel names on cluster boxes"); a short one inside.
  void clusterNamesAreNeverCut() {
    QFont font;
    font.setPointSize(9);
    const QString name = QStringLiteral("cpp_fused_add_mean_mul_rsqrt_sub_var_0");
    const double textWidth = QFontMetricsF(font).horizontalAdvance(name);
    GraphClusterItem narrow(name, QRectF(0, 0, 80, 120), font);
    QVERIFY(narrow.labelRect().width() >= textWidth + 16);
    QVERIFY(narrow.boundingRect().contains(narrow.labelRect()));
    QImage image(int(textWidth) + 60, 140, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    QStyleOptionGraphicsItem option;
    narrow.paint(&p, &option, nullptr);
    p.end();
    int inked = 0;  // the name's letters past the group's edge
    for (int x = 100; x < int(textWidth); ++x)
      for (int y = 0; y < int(narrow.labelRect().height()); ++y) inked += qGray(image.pixel(x, y)) < 120;
    QVERIFY2(inked > 20, qPrintable(QString::number(inked)));
    GraphClusterItem wide(QStringLiteral("kernel_0"), QRectF(0, 0, 300, 120), font);
    QCOMPARE(wide.labelRect().width(), 300.0);
    QCOMPARE(wide.boundingRect(), QRectF(0, 0, 300, 120).adjusted(-1, -1, 1, 1));
  }

  // scrollToLine keeps its line in view while the view is resized (the window's docks settle
  // after a session opens: a line centred in a tall view fell below a shorter one), until the
  // user scrolls; the caret is not moved.
  void sourceKeepsItsLineInViewAcrossResizes() {
    SourceView view;
    QString text;
    for (int i = 1; i <= 300; ++i) text += QStringLiteral("line_%1 = %1\n").arg(i);
    view.setSource(text);
    view.resize(600, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.scrollToLine(240);
    auto shown = [&] {
      return std::pair{view.cursorForPosition(QPoint(40, 2)).blockNumber() + 1,
                       view.cursorForPosition(QPoint(40, view.viewport()->height() - 2)).blockNumber() + 1};
    };
    QVERIFY(shown().first <= 240 && 240 <= shown().second);
    QCOMPARE(view.textCursor().blockNumber(), 0);
    view.resize(600, 180);
    QTRY_VERIFY(view.viewport()->height() < 200);
    QVERIFY2(shown().first <= 240 && 240 <= shown().second, qPrintable(QStringLiteral("%1..%2").arg(shown().first).arg(shown().second)));
    // Once the user scrolls, a resize leaves the view where they put it.
    view.verticalScrollBar()->triggerAction(QAbstractSlider::SliderToMinimum);
    view.resize(600, 400);
    QTRY_VERIFY(view.viewport()->height() > 300);
    QCOMPARE(shown().first, 1);
  }

  // With a node selected, Up goes to its producers and Down to its consumers; Left / Right step
  // through the others of that last move (a diamond: a -> b, c -> d).
  void arrowKeysFollowEdges() {
    ir::Graph g;
    auto add = [&](ir::NodeKind kind, const std::string& name, std::vector<int> args) {
      ir::Node n;
      n.kind = kind;
      n.name = name;
      n.target = kind == ir::NodeKind::Placeholder ? name : "aten." + name + ".default";
      for (int a : args) n.args.push_back(ir::Arg::ref(a));
      n.types.push_back(ir::TensorType{ir::DType::Float32, {4}});
      return g.add(std::move(n)).id;
    };
    const int x = add(ir::NodeKind::Placeholder, "x", {});
    const int a = add(ir::NodeKind::CallFunction, "sin", {x});
    const int b = add(ir::NodeKind::CallFunction, "cos", {a});
    const int c = add(ir::NodeKind::CallFunction, "exp", {a});
    const int d = add(ir::NodeKind::CallFunction, "add", {b, c});
    QCOMPARE(producersOf(g, d), (std::vector<int>{b, c}));
    QCOMPARE(consumersOf(g, a), (std::vector<int>{b, c}));
    GraphView view;
    view.resize(500, 600);
    view.show();
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(30000));
    auto selected = [&] {
      const auto items = view.scene()->selectedItems();
      return items.size() == 1 ? static_cast<GraphNodeItem*>(items.first())->nodeId() : -1;
    };
    view.selectNode(a);
    QCOMPARE(selected(), a);
    const std::vector<std::pair<Qt::Key, int>> path = {{Qt::Key_Down, b}, {Qt::Key_Right, c}, {Qt::Key_Right, b},
                                                       {Qt::Key_Left, c}, {Qt::Key_Down, d},  {Qt::Key_Up, b},
                                                       {Qt::Key_Up, a},   {Qt::Key_Up, x},    {Qt::Key_Up, x}};
    for (const auto& [key, expected] : path) {
      QTest::keyClick(&view, key);
      QCOMPARE(selected(), expected);
    }
    // Nothing selected: the arrows scroll the view as before, selecting nothing.
    view.selectNode(-1);
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(selected(), -1);
  }

  // The selected node's module path is shown as links; a click folds that module into its box
  // and selects the box, whose crumbs then end on it.
  void breadcrumbsClimbOutOfAModule() {
    QCOMPARE(
        breadcrumbsHtml("blocks.3.attn", QStringLiteral("sin")),
        QStringLiteral("<a href=\"blocks\">blocks</a> › <a href=\"blocks.3\">3</a> › <a href=\"blocks.3.attn\">attn</a> › <b>sin</b>"));
    QCOMPARE(breadcrumbsHtml("blocks.3", {}), QStringLiteral("<a href=\"blocks\">blocks</a> › <b>3</b>"));
    QCOMPARE(breadcrumbsHtml("", {}), QString());
    GraphView view;
    view.resize(700, 700);
    view.show();
    const ir::Graph g = layered(2, 3);  // 17 nodes: opens with every module expanded
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(30000));
    int inMlp = -1;
    for (const auto& n : g.nodes)
      if (n.prov.modulePath == "blocks.1.mlp" && inMlp < 0) inMlp = n.id;
    view.selectNode(inMlp);
    QLabel* crumbs = view.breadcrumbs();
    QVERIFY(crumbs->isVisible());
    QVERIFY2(crumbs->text().contains(QStringLiteral("<a href=\"blocks.1\">1</a> › <a href=\"blocks.1.mlp\">mlp</a> › <b>")),
             qPrintable(crumbs->text()));
    const int before = int(view.nodeItems().size());
    emit crumbs->linkActivated(QStringLiteral("blocks.1"));
    QVERIFY(laid.wait(30000));
    QCOMPARE(int(view.nodeItems().size()), before - 6 + 1);  // blocks.1's six nodes are one box
    const auto selected = view.scene()->selectedItems();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(view.moduleOfBox(static_cast<GraphNodeItem*>(selected.first())->nodeId()), std::string("blocks.1"));
    QCOMPARE(crumbs->text(), QStringLiteral("<a href=\"blocks\">blocks</a> › <b>1</b>"));
  }

  // Graphs over a thousand nodes take the layered layout (Graphviz would run for minutes):
  // every node placed, boxes of a layer apart, every edge drawn downwards, inputs pulled down
  // to just above their first user.
  void hugeGraphsTakeTheLayeredLayout() {
    ir::Graph g;
    std::vector<int> params;
    for (int i = 0; i < 200; ++i) {
      ir::Node p;
      p.kind = ir::NodeKind::Placeholder;
      p.name = p.target = "p" + std::to_string(i);
      params.push_back(g.add(std::move(p)).id);
    }
    int prev = params[0];
    for (int i = 0; i < 1000; ++i) {
      ir::Node n;
      n.name = "add_" + std::to_string(i);
      n.target = "_operator.add";
      n.args = {ir::Arg::ref(prev), ir::Arg::ref(params[size_t(i / 5)])};
      prev = g.add(std::move(n)).id;
    }
    ir::Node out;
    out.kind = ir::NodeKind::Output;
    out.name = out.target = "output";
    out.args = {ir::Arg::listOf({ir::Arg::ref(prev)})};
    g.add(std::move(out));
    QElapsedTimer timer;
    timer.start();
    const GraphLayout layout = computeGraphLayout(g, {});
    qInfo("layered layout of %zu nodes: %lld ms", g.nodes.size(), static_cast<long long>(timer.elapsed()));
    QCOMPARE(layout.error, QString());
    QCOMPARE(layout.nodes.size(), qsizetype(g.nodes.size()));
    QCOMPARE(layout.edges.size(), qsizetype(2000));
    std::map<int, QRectF> box;
    for (const auto& n : layout.nodes) {
      QVERIFY(layout.bounds.contains(n.box));
      box[n.id] = n.box;
    }
    for (const auto& a : layout.nodes)
      for (const auto& b : layout.nodes)
        if (a.id < b.id && a.box.intersects(b.box)) QFAIL(qPrintable(a.name + QStringLiteral(" overlaps ") + b.name));
    for (const auto& e : layout.edges) QVERIFY(box[e.from].bottom() < box[e.to].top());
    // p150 feeds add_750: it sits just above it, not in the first layer.
    const int p150 = params[150];
    int add750 = -1;
    for (const auto& n : layout.nodes)
      if (n.name == QStringLiteral("add_750")) add750 = n.id;
    QVERIFY(box[p150].top() > box[params[0]].bottom());
    QVERIFY(box[add750].top() - box[p150].bottom() < 100);
  }

  // Long chains wrap into columns (layout_wrap.h): a model's 200 blocks folded (200 boxes in one
  // column from dot) and expanded (1,204 nodes, the layered layout). Nothing is lost or
  // overlaps, the height : width stays bounded, edges inside a column still run downwards, and
  // every edge between columns is a wrap edge whose corners stay clear of the boxes.
  void longChainsWrapIntoColumns() {
    const ir::Graph g = layered(200, 3);
    for (bool expanded : {false, true}) {
      const CollapsedGraph shown = collapseByModule(g, expanded ? modulePaths(g) : std::set<std::string>{"blocks"});
      QVERIFY(shown.graph.nodes.size() == (expanded ? size_t(1204) : size_t(203)) || (!expanded && shown.graph.nodes.size() == 202));
      GraphLayout layout = computeGraphLayout(shown.graph, {});
      QCOMPARE(layout.error, QString());
      const GraphLayout before = layout;
      QVERIFY2(before.bounds.height() > 20 * before.bounds.width(), "the chain is one tall column unwrapped");
      QElapsedTimer timer;
      timer.start();
      const int columns = wrapLongLayout(layout);
      qInfo("%s: %lld nodes wrapped into %d columns in %lld ms; %.0f x %.0f points (was %.0f x %.0f)", expanded ? "expanded" : "folded",
            static_cast<long long>(layout.nodes.size()), columns, static_cast<long long>(timer.elapsed()), layout.bounds.width(),
            layout.bounds.height(), before.bounds.width(), before.bounds.height());
      QVERIFY2(columns >= 4, qPrintable(QString::number(columns)));
      const double aspect = layout.bounds.height() / layout.bounds.width();
      QVERIFY2(aspect <= kWrapAbove && aspect >= 0.25, qPrintable(QString::number(aspect)));
      QCOMPARE(layout.nodes.size(), before.nodes.size());
      QCOMPARE(layout.edges.size(), before.edges.size());
      std::map<int, QRectF> box;
      for (qsizetype i = 0; i < layout.nodes.size(); ++i) {
        QCOMPARE(layout.nodes[i].box.size(), before.nodes[i].box.size());
        QVERIFY(layout.bounds.contains(layout.nodes[i].box));
        box[layout.nodes[i].id] = layout.nodes[i].box;
      }
      std::vector<QRectF> sorted;
      for (const auto& [id, b] : box) sorted.push_back(b);
      std::sort(sorted.begin(), sorted.end(), [](const QRectF& a, const QRectF& b) { return a.left() < b.left(); });
      for (size_t i = 0; i < sorted.size(); ++i)
        for (size_t j = i + 1; j < sorted.size() && sorted[j].left() < sorted[i].right(); ++j)
          if (sorted[i].intersects(sorted[j])) QFAIL("two boxes overlap");
      int wraps = 0;
      for (const auto& e : layout.edges) {
        if (!e.wrap) {
          QVERIFY(box[e.from].bottom() < box[e.to].top());
          continue;
        }
        ++wraps;
        QVERIFY(box[e.from].right() < box[e.to].left());  // into a later column, to the right
        for (qsizetype k = 3; k + 3 < e.spline.size(); k += 3)
          for (const auto& [id, b] : box)
            if (b.contains(e.spline[k])) QFAIL(qPrintable(QStringLiteral("a wrap edge's corner is inside node %1").arg(id)));
      }
      QCOMPARE(wraps, columns - 1);  // a chain: one edge crosses each cut
    }
    // A short chain is left as it is.
    const ir::Graph small = layered(1, 2);
    GraphLayout layout = computeGraphLayout(small, {});
    const QRectF bounds = layout.bounds;
    QCOMPARE(wrapLongLayout(layout), 1);
    QCOMPARE(layout.bounds, bounds);
  }

  // The hover link's cost: hovering a source line lights its nodes through an index by line
  // built once per drawing, not a walk of the scene; folded boxes light for their members' lines.
  void hoverLightsALinesNodesThroughAnIndex() {
    ir::Graph g = layered(100, 10);                            // 2,004 nodes
    for (auto& n : g.nodes) n.prov.loc.line = 10 + n.id % 20;  // each block has every line
    GraphView view;
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(60000));
    laid.clear();
    view.expandModule("blocks");
    QTRY_VERIFY_WITH_TIMEOUT(!laid.isEmpty() && !view.isLayingOut(), 60000);
    // Folded: 100 block boxes; each holds nodes of every line.
    view.hoverLine(12);
    int boxes = 0;
    for (GraphNodeItem* n : view.nodeItems()) boxes += n->hoverLine() == 12 && view.moduleOfBox(n->nodeId()).rfind("blocks.", 0) == 0;
    QCOMPARE(boxes, 100);
    view.hoverLine(0);
    laid.clear();
    view.expandModule("head");
    for (int b = 0; b < 100; ++b)
      for (const char* m : {".attn", ".mlp"}) view.expandModule("blocks." + std::to_string(b) + m);
    QTRY_VERIFY_WITH_TIMEOUT(!laid.isEmpty() && view.nodeItems().size() == qsizetype(g.nodes.size()), 60000);
    std::map<int, int> expected;
    for (const auto& n : g.nodes) ++expected[n.prov.loc.line];
    QElapsedTimer timer;
    timer.start();
    const int hovers = 2000;
    for (int i = 0; i < hovers; ++i) view.hoverLine(10 + i % 20);
    const double hoverMs = double(timer.nsecsElapsed()) / 1e6 / hovers;
    timer.restart();
    for (int i = 0; i < 20; ++i) view.highlightLine(10 + i % 20);  // a click: walks the scene
    const double clickMs = double(timer.nsecsElapsed()) / 1e6 / 20;
    view.highlightLine(0);
    qInfo("%zu nodes: a hover takes %.3f ms, a click's highlight %.2f ms", g.nodes.size(), hoverMs, clickMs);
    const int line = 10 + (hovers - 1) % 20;
    QCOMPARE(view.hoveredLine(), line);
    int lit = 0;
    for (GraphNodeItem* n : view.nodeItems()) {
      QCOMPARE(n->hoverLine() != 0, n->sourceLine() == line);
      lit += n->hoverLine() == line;
    }
    QCOMPARE(lit, expected[line]);
    QCOMPARE(qsizetype(view.itemsOfLine(line).size()), qsizetype(expected[line]));
    QVERIFY2(hoverMs < clickMs, "a hover costs less than a walk of the scene");
    // The mouse: onto a node reports its line, off it 0.
    QSignalSpy hovered(&view, &GraphView::lineHovered);
    GraphNodeItem* target = view.itemsOfLine(23).front();
    QVERIFY(view.centreOnLine(23));
    const QPoint at = view.mapFromScene(target->sceneBoundingRect().center());
    QVERIFY(view.viewport()->rect().contains(at));
    QMouseEvent move(QEvent::MouseMove, QPointF(at), view.viewport()->mapToGlobal(QPointF(at)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &move);
    QCOMPARE(hovered.size(), 1);
    QCOMPARE(hovered.last().first().toInt(), 23);
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(view.viewport(), &leave);
    QCOMPARE(hovered.last().first().toInt(), 0);
  }

  void parsesTheLastSessionLine() {
    QCOMPARE(ScriptRunner::parseSessionId(QStringLiteral("hello\nsession 3\nsession 12\nbye\n")), qint64(12));
    QCOMPARE(ScriptRunner::parseSessionId(QStringLiteral("the session 4 is\n")), qint64(0));
    QCOMPARE(ScriptRunner::parseSessionId(QString()), qint64(0));
    // kiln import's summary lines
    QCOMPARE(ScriptRunner::parseSessionId(QStringLiteral("session 7: /x/a.py (pid 3): 1 frames\n")), qint64(7));
  }

  // File ▸ Import PyTorch Trace runs `kiln import PATH --db P --progress` and reports its session.
  void runnerImportsATrace() {
    const QString fake =
        fakeKiln(QStringLiteral("kiln-import"),
                 "[ \"$1\" = import ] && [ \"$3\" = --db ] && [ \"$5\" = --progress ] || exit 3\n"
                 "echo \"kiln-progress: 30 trace.log\" >&2\necho \"session 9: /x/prog.py (pid 1): 1 frames, 1 compiles\"\n");
    QVERIFY(!fake.isEmpty());
    ScriptRunner runner(fake);
    QSignalSpy spy(&runner, &ScriptRunner::finished);
    QVERIFY(runner.importTrace(dir_.path(), dir_.filePath(QStringLiteral("x.db"))));
    QVERIFY(spy.wait(10000));
    QCOMPARE(spy.at(0).at(0).toLongLong(), qint64(9));
  }

  void parsesProgressLines() {
    int pct = -1;
    QString what;
    QVERIFY(ScriptRunner::parseProgress(QStringLiteral("kiln-progress: 42 compiling [0/1]"), &pct, &what));
    QCOMPARE(pct, 42);
    QCOMPARE(what, QStringLiteral("compiling [0/1]"));
    QVERIFY(!ScriptRunner::parseProgress(QStringLiteral("kiln-progress: 420 x"), &pct, &what));
    QVERIFY(!ScriptRunner::parseProgress(QStringLiteral("Traceback: kiln-progress: 1 x"), &pct, &what));
  }

  void runnerReportsTheSession() {
    // A stand-in for `kiln`: prints what a run prints and checks it was called as `run S --db P`.
    const QString fake = fakeKiln(QStringLiteral("kiln"),
                                  "[ \"$1\" = run ] && [ \"$3\" = --db ] || exit 3\necho \"script output\"\n"
                                  "echo \"kiln-progress: 50 line 7\" >&2\necho \"a warning\" >&2\necho \"session 42\"\n");
    QVERIFY(!fake.isEmpty());
    ScriptRunner runner(fake);
    QSignalSpy spy(&runner, &ScriptRunner::finished);
    QSignalSpy percents(&runner, &ScriptRunner::percent);
    QVERIFY(runner.run(dir_.filePath(QStringLiteral("s.py")), dir_.filePath(QStringLiteral("x.db"))));
    QVERIFY(spy.wait(10000));
    QCOMPARE(spy.at(0).at(0).toLongLong(), qint64(42));
    QCOMPARE(spy.at(0).at(1).toString(), QString());
    QCOMPARE(percents.size(), 1);
    QCOMPARE(percents.at(0).at(0).toInt(), 50);
  }

  // A recompile reason marks the line of the guard that failed (the engine records it with the
  // reason); reasons without a line mark nothing.
  void recompileReasonsMarkTheirGuardLines() {
    std::vector<session::RecompileEvent> recompiles = {{0, "0/1", {"0/0: tensor 'x' dtype mismatch. expected Float, actual Double"}, {19}},
                                                       {0, "0/2", {"0/0: L['n'] == 1", "9/9: unknown == 3"}, {23, 0}}};
    QList<LineMark> marks = recompileMarks(recompiles);
    QCOMPARE(marks.size(), 2);
    QCOMPARE(marks[0].line, 19);
    QVERIFY(marks[0].tooltip.contains(QStringLiteral("recompile [0/1]: 0/0: tensor 'x' dtype mismatch")));
    QCOMPARE(marks[1].line, 23);
    QCOMPARE(marks[1].tooltip, QStringLiteral("recompile [0/2]: 0/0: L['n'] == 1"));
  }

  // Collapse by module: a node shows as itself when all its module prefixes are expanded, else
  // it folds into the box of its shortest unexpanded prefix; boxes keep their members' edges.
  void collapseFoldsUnexpandedModules() {
    ir::Graph g = layered(2, 3);  // x -> blocks.0.{attn, mlp} -> blocks.1.{attn, mlp} -> output
    CollapsedGraph top = collapseByModule(g, {});
    // The blocks box (with the input x, which goes with its first user), the head box, output.
    QCOMPARE(top.graph.nodes.size(), size_t(3));
    QCOMPARE(top.moduleOf.size(), size_t(2));
    QCOMPARE(top.memberCount.at(top.graph.nodes[0].id), 13);
    CollapsedGraph one = collapseByModule(g, {"blocks", "blocks.0"});
    std::set<std::string> boxes;
    for (const auto& [id, path] : one.moduleOf) boxes.insert(path);
    QCOMPARE(boxes, (std::set<std::string>{"blocks.0.attn", "blocks.0.mlp", "blocks.1", "head"}));
    QCOMPARE(one.graph.nodes.size(), size_t(5));  // the four boxes and output; x is in blocks.0.attn
    // Edges follow the members: blocks.0.mlp reads blocks.0.attn, blocks.1 reads blocks.0.mlp.
    auto idOf = [&](const std::string& p) {
      for (const auto& [id, path] : one.moduleOf)
        if (path == p) return id;
      return -1;
    };
    QCOMPARE(one.graph.find(idOf("blocks.0.mlp"))->args.size(), size_t(1));
    QCOMPARE(one.graph.find(idOf("blocks.0.mlp"))->args[0].node, idOf("blocks.0.attn"));
    QCOMPARE(one.graph.find(idOf("blocks.1"))->args[0].node, idOf("blocks.0.mlp"));
    QCOMPARE(collapseByModule(g, modulePaths(g)).graph.nodes.size(), g.nodes.size());
  }

  // The graph view opens a large graph folded and expands / folds on request.
  void graphViewOpensLargeGraphsFolded() {
    GraphView view;
    view.resize(800, 600);
    ir::Graph g = layered(40, 6);  // 40 blocks x 2 modules x 6 nodes + 4 = 484 nodes
    QVERIFY(g.nodes.size() > GraphView::kCollapseAbove);
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(30000));
    QCOMPARE(view.nodeItems().size(), 3);  // blocks (with x), head, output
    view.expandModule("blocks.3");
    QVERIFY(laid.wait(30000));
    QCOMPARE(view.nodeItems().size(), 3 - 1 + 39 + 2);  // blocks -> 39 other blocks + blocks.3's two modules
    view.collapseModule("blocks");
    QVERIFY(laid.wait(30000));
    QCOMPARE(view.nodeItems().size(), 3);
  }

  // The union of two stages keeps each stage's order, puts a node the later stage added after
  // its predecessor there, and keeps a route for an edge only the earlier stage had.
  void unionOfStagesKeepsEveryNodeAndEdge() {
    ir::Graph a = layered(1, 2);  // x, 2 attn relus, 2 mlp relus, 2 head muls, output
    ir::Graph b = a;
    const int dropped = b.nodes[2].id, kept = b.nodes[3].id;  // drop the second attn relu
    b.replaceAllUses(dropped, b.nodes[1].id);
    b.remove(dropped);
    ir::Node fresh;
    fresh.kind = ir::NodeKind::CallFunction;
    fresh.name = fresh.target = "aten.exp.default";
    fresh.args.push_back(ir::Arg::ref(kept));
    fresh.types.push_back(ir::TensorType{ir::DType::Float32, {4, 8}});
    fresh.id = b.nextId();
    b.reserveIds(fresh.id + 1);
    b.nodes.insert(b.nodes.begin() + 3, fresh);  // after `kept`
    ir::Graph u = unionOfStages({a, b});
    QCOMPARE(u.nodes.size(), a.nodes.size() + 1);
    QCOMPARE(u.indexOf(fresh.id), u.indexOf(kept) + 1);
    QVERIFY(u.find(dropped));
    // `kept` read `dropped` in a; in b it reads node 1: both edges are in the union.
    std::set<int> producers;
    ir::forEachNodeArg(*u.find(kept), [&](int p) { producers.insert(p); });
    QCOMPARE(producers, (std::set<int>{dropped, b.nodes[1].id}));
    QVERIFY(fitsFrame(a, u) && fitsFrame(b, u));
    QVERIFY(!fitsFrame(layered(2, 2), u));
  }

  // Find in graph: a node folded into a module box is found and revealed (its module expanded,
  // then selected).
  void findRevealsFoldedNodes() {
    GraphView view;
    view.resize(800, 600);
    view.show();  // scroll ranges follow a shown viewport
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ir::Graph g = layered(40, 6);
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(30000));
    const std::vector<int> hits = view.findNodes(QStringLiteral("BLOCKS.7.MLP"));
    QCOMPARE(hits.size(), size_t(6));
    QVERIFY(view.findNodes(QStringLiteral("no such node")).empty());
    QVERIFY(!view.shownGraph().find(hits[2]));  // folded
    view.revealNode(hits[2]);
    QVERIFY(laid.wait(30000));
    QVERIFY(view.shownGraph().find(hits[2]));
    bool selected = false;
    for (GraphNodeItem* n : view.nodeItems()) selected = selected || (n->nodeId() == hits[2] && n->isSelected());
    QVERIFY(selected);
    // The hit is centred at a readable zoom (100%), not left a speck somewhere in the view.
    QVERIFY2(view.transform().m11() >= 1.0, qPrintable(QString::number(view.transform().m11())));
    for (GraphNodeItem* n : view.nodeItems())
      if (n->nodeId() == hits[2]) {
        const QPoint at = view.mapFromScene(n->sceneBoundingRect().center());
        QVERIFY2((at - view.viewport()->rect().center()).manhattanLength() < 8,
                 qPrintable(QStringLiteral("%1,%2").arg(at.x()).arg(at.y())));
      }
    // Zoomed out, Zoom to Selection brings it back.
    view.resetTransform();
    view.scale(0.1, 0.1);
    QVERIFY(view.zoomToSelection());
    QCOMPARE(view.transform().m11(), 1.0);
  }

  // A long graph: fitting never goes below the readable zoom (it shows the start); the minimap
  // shows where the view is and a click on it moves the view; zoomed far out, nodes are boxes
  // coloured by op kind instead of smeared text.
  void bigGraphsStayReadable() {
    GraphView view;
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ir::Graph g;
    int last = -1;
    for (int i = 0; i < 600; ++i) {  // no modules: nothing folds
      ir::Node n;
      n.kind = i == 0 ? ir::NodeKind::Placeholder : ir::NodeKind::CallFunction;
      n.name = "n" + std::to_string(i);
      n.target = i == 0 ? "x" : "aten.relu.default";
      if (last >= 0) n.args.push_back(ir::Arg::ref(last));
      n.types.push_back(ir::TensorType{ir::DType::Float32, {4, 8}});
      last = g.add(std::move(n)).id;
    }
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(60000));
    view.zoomToFit();
    QVERIFY2(view.transform().m11() >= GraphView::kReadableZoom, qPrintable(QString::number(view.transform().m11())));
    // The start is on screen: the input node.
    const QRectF seen = view.mapToScene(view.viewport()->rect()).boundingRect();
    bool inputShown = false;
    for (GraphNodeItem* n : view.nodeItems())
      inputShown = inputShown || (n->name() == QStringLiteral("n0") && seen.intersects(n->sceneBoundingRect()));
    QVERIFY(inputShown);
    GraphMinimap* map = view.minimap();
    QTRY_VERIFY(map->isVisible());
    QVERIFY(map->width() <= GraphMinimap::kMaxWidth + 2 && map->height() <= GraphMinimap::kMaxHeight + 2);
    // A click on the far part of the minimap moves the view there (the chain is wrapped into
    // columns, layout_wrap.h: the far part is down and to the right).
    const QPointF target = map->area().topLeft() + QPointF(map->area().width() * 0.7, map->area().height() * 0.7);
    QTest::mouseClick(map, Qt::LeftButton, {}, map->fromScene(target).toPoint());
    const QPointF centre = view.mapToScene(view.viewport()->rect().center());
    QVERIFY2(
        std::abs(centre.y() - target.y()) < map->area().height() * 0.1 && std::abs(centre.x() - target.x()) < map->area().width() * 0.1,
        qPrintable(QStringLiteral("(%1, %2) vs (%3, %4)").arg(centre.x()).arg(centre.y()).arg(target.x()).arg(target.y())));
    // Level of detail: at 5% a label line is under a pixel: boxes in the op kind's colour.
    GraphNodeItem* any = view.nodeItems().first();
    QVERIFY(!any->drawsLabels(0.05));
    QVERIFY(any->drawsLabels(1.0));
    view.resetTransform();
    view.scale(0.05, 0.05);
    view.centerOn(view.nodeItems().at(300));
    const QImage shot = view.viewport()->grab().toImage();
    shot.save(QStringLiteral(KILN_BINARY_DIR "/tests/gui/graph_level_of_detail.png"), "PNG");  // to look at
    const QRgb relu = opKindColour(QStringLiteral("aten.relu.default")).rgb();
    int coloured = 0;
    for (int y = 0; y < shot.height(); ++y)
      for (int x = 0; x < shot.width(); ++x) coloured += (shot.pixel(x, y) & 0xffffff) == (relu & 0xffffff);
    QVERIFY2(coloured > 50, qPrintable(QString::number(coloured)));
    // Scrolled anywhere at a readable zoom, the minimap sits in a corner that hides no node when
    // such a corner exists (the rightmost column was under it when it stayed bottom-right).
    view.resetTransform();
    const QRectF all = map->area();
    int checked = 0;
    for (double fx : {0.0, 0.5, 1.0})
      for (double fy : {0.0, 0.5, 1.0}) {
        view.centerOn(all.left() + all.width() * fx, all.top() + all.height() * fy);
        QTRY_VERIFY(map->isVisible());
        const QRect vp = view.viewport()->geometry();
        auto nodesUnder = [&](QRect r) {
          const QRectF covered = view.mapToScene(r.translated(-vp.topLeft())).boundingRect();
          int n = 0;
          for (GraphNodeItem* item : view.nodeItems()) n += item->sceneBoundingRect().intersects(covered);
          return n;
        };
        const int left = vp.left() + 8, right = vp.right() - map->width() - 8;
        const int top = vp.top() + 8, bottom = vp.bottom() - map->height() - 8;
        bool someCornerFree = false;
        for (QPoint c : {QPoint(right, bottom), QPoint(left, bottom), QPoint(right, top), QPoint(left, top)})
          someCornerFree = someCornerFree || nodesUnder(QRect(c, map->size())) == 0;
        if (!someCornerFree) continue;
        ++checked;
        QVERIFY2(nodesUnder(map->geometry()) == 0, qPrintable(QStringLiteral("at (%1, %2)").arg(fx).arg(fy)));
      }
    QVERIFY(checked >= 3);
  }

  // A view destroyed with a node selected does not report the deselection (its window, half
  // destroyed, crashed on it when the studio closed after a find).
  void destroyingAViewWithASelectionIsQuiet() {
    auto view = std::make_unique<GraphView>();
    QSignalSpy laid(view.get(), &GraphView::layoutFinished);
    view->showGraph(layered(1, 2));
    QVERIFY(laid.wait(30000));
    view->selectNode(view->nodeItems().first()->nodeId());
    int reports = 0;
    QObject::connect(view.get(), &GraphView::nodeSelected, [&reports](int) { ++reports; });
    view.reset();
    QCOMPARE(reports, 0);
  }

  // Folded boxes roll up the step's marks: counts in a badge, the strongest colour, the source
  // line's tint; removed nodes are ghosts where the layout frame placed them.
  void foldedBoxesRollUpAndRemovedNodesAreGhosts() {
    GraphView view;
    view.resize(800, 600);
    ir::Graph g = layered(40, 6);
    for (auto& n : g.nodes)
      if (n.prov.modulePath == "blocks.4.attn") n.prov.loc.line = 17;
    QSignalSpy laid(&view, &GraphView::layoutFinished);
    view.showGraph(g);
    QVERIFY(laid.wait(30000));
    ir::GraphChanges changes;
    for (const auto& n : g.nodes) {
      if (n.prov.modulePath == "blocks.7.mlp" && changes.added.size() < 3) changes.added.push_back(n.id);
      if (n.prov.modulePath == "blocks.2.attn" && changes.changed.size() < 5) changes.changed.push_back(n.id);
    }
    view.setChanges(changes);
    GraphNodeItem* blocks = nullptr;
    for (GraphNodeItem* n : view.nodeItems())
      if (view.moduleOfBox(n->nodeId()) == "blocks") blocks = n;
    QVERIFY(blocks);
    QCOMPARE(blocks->rollup().added, 3);
    QCOMPARE(blocks->rollup().changed, 5);
    QCOMPARE(blocks->rollupText(), QStringLiteral("3 added, 5 changed"));
    view.highlightLine(17);
    QCOMPARE(blocks->rollup().tinted, 6);
    QCOMPARE(blocks->rollup().tintLine, 17);
    view.highlightLine(0);
    QCOMPARE(blocks->rollup().tinted, 0);

    // Ghosts: a stage without one node of the frame, stepped into from the stage with it.
    ir::Graph before = layered(1, 3);
    ir::Graph after = before;
    const ir::Node gone = after.nodes[2];
    after.replaceAllUses(gone.id, after.nodes[1].id);
    after.remove(gone.id);
    view.setLayoutFrame(QStringLiteral("frame"), unionOfStages({before, after}));
    view.showGraph(after);
    QVERIFY(laid.wait(30000));
    QTRY_VERIFY(!view.nodeItems().isEmpty());
    const ir::GraphChanges c = ir::diffGraphs(before, after);
    QCOMPARE(c.removed, std::vector<std::string>{gone.name});
    view.setChanges(c, false, {gone});
    QCOMPARE(view.ghostItems().size(), 1);
    QCOMPARE(view.ghostItems()[0]->nodeId(), gone.id);
    QCOMPARE(view.ghostItems()[0]->change(), GraphNodeItem::Change::Removed);
    QVERIFY(!(view.ghostItems()[0]->flags() & QGraphicsItem::ItemIsSelectable));
    QCOMPARE(view.nodeItems().size(), int(after.nodes.size()));  // ghosts are not nodes of the graph
  }

  // Overlays paint what the store holds: kernel membership (shared by node id with the ATen and
  // pass stages; the backward's bw_* kernels only on backward stages, none on the captured
  // graph), profiled time and bytes per kernel as a heat map (a folded box sums its kernels),
  // dtypes and shape changes; without a profile the legend says so and nothing is painted.
  void overlaysPaintStoredData() {
    ir::Graph g;
    auto add = [&](ir::NodeKind kind, const std::string& name, int arg, ir::TensorType type, const std::string& module) {
      ir::Node n;
      n.kind = kind;
      n.name = name;
      n.target = kind == ir::NodeKind::Placeholder ? name : "aten." + name + ".default";
      if (arg >= 0) n.args.push_back(ir::Arg::ref(arg));
      n.types.push_back(std::move(type));
      n.prov.modulePath = module;
      return g.add(std::move(n)).id;
    };
    using T = ir::TensorType;
    const int x = add(ir::NodeKind::Placeholder, "x", -1, T{ir::DType::Float32, {4, 8}}, "");
    const int a = add(ir::NodeKind::CallFunction, "sum", x, T{ir::DType::Float32, {4}}, "blk0");      // fewer elements
    const int b = add(ir::NodeKind::CallFunction, "view", a, T{ir::DType::Float32, {2, 2}}, "blk0");  // reshaped
    const int c = add(ir::NodeKind::CallFunction, "expand", b, T{ir::DType::Int64, {4, 4}}, "blk1");  // more elements
    const int d = add(ir::NodeKind::CallFunction, "relu", c, T{ir::DType::Float32, {4, 4}}, "blk1");  // same shape
    ir::Node out;
    out.kind = ir::NodeKind::Output;
    out.name = "output";
    out.target = "output";
    out.args.push_back(ir::Arg::ref(d));
    g.add(std::move(out));
    std::vector<storage::KernelRow> kernels(3);
    kernels[0].name = "k_sum", kernels[0].nodeIds = {a};
    kernels[1].name = "k_view", kernels[1].nodeIds = {b, c};
    kernels[2].name = "bw_k", kernels[2].nodeIds = {a, d};  // a backward kernel: its ids are the backward's nodes
    const std::map<std::string, double> ms{{"k_sum", 0.2}, {"k_view", 0.05}};
    const std::map<std::string, int64_t> bytes{{"k_sum", 4096}, {"k_view", 1 << 20}};
    const OverlayData data = overlayDataFor("pass:cse", kernels, true, ms, bytes);
    QCOMPARE(data.kernelOf, (std::map<int, std::string>{{a, "k_sum"}, {b, "k_view"}, {c, "k_view"}}));
    QCOMPARE(overlayDataFor("backward:aten", kernels, true, ms, bytes).kernelOf, (std::map<int, std::string>{{a, "bw_k"}, {d, "bw_k"}}));
    const OverlayData captured = overlayDataFor("captured", kernels, true, ms, bytes);
    QVERIFY(captured.kernelOf.empty());
    const CollapsedGraph all = collapseByModule(g, modulePaths(g));

    OverlayPaint p = paintOverlay(Overlay::KernelTime, all, g, data);
    QCOMPARE(p.fill.size(), size_t(3));
    QCOMPARE(p.fill.at(a), heatColour(1.0));
    QCOMPARE(p.fill.at(b), heatColour(0.25));
    QCOMPARE(p.fill.at(c), heatColour(0.25));
    QCOMPARE(p.note.at(a), QStringLiteral("0.200 ms per launch"));
    QCOMPARE(p.legend.first().text, QStringLiteral("0.200 ms (the most shown)"));
    QVERIFY(p.message.isEmpty());
    p = paintOverlay(Overlay::Bytes, all, g, data);
    QCOMPARE(p.fill.at(b), heatColour(1.0));
    QCOMPARE(p.fill.at(a), heatColour(4096.0 / (1 << 20)));
    QCOMPARE(p.legend.first().text, QStringLiteral("1.0 MiB (the most shown)"));
    p = paintOverlay(Overlay::Kernel, all, g, data);
    QCOMPARE(p.fill.at(a), kernelColour(QStringLiteral("k_sum"), 0));
    QCOMPARE(p.fill.at(b), kernelColour(QStringLiteral("k_view"), 1));
    QVERIFY(kernelColour(QStringLiteral("k_sum"), 0) != kernelColour(QStringLiteral("k_view"), 1));
    QCOMPARE(p.note.at(c), QStringLiteral("kernel k_view"));
    QStringList legend;
    for (const auto& e : p.legend) legend << e.text;
    QCOMPARE(legend, (QStringList{"k_sum (1 node)", "k_view (2 nodes)", "not in a kernel (2 nodes)"}));
    // The captured graph and an unprofiled session: nothing painted, the legend says why.
    p = paintOverlay(Overlay::Kernel, all, g, captured);
    QVERIFY(p.fill.empty());
    QVERIFY2(p.message.contains(QStringLiteral("captured graph")), qPrintable(p.message));
    p = paintOverlay(Overlay::KernelTime, all, g, overlayDataFor("pass:cse", kernels, false, {}, {}));
    QVERIFY(p.fill.empty());
    QVERIFY2(p.message.startsWith(QStringLiteral("Not profiled")), qPrintable(p.message));
    QVERIFY(
        paintOverlay(Overlay::Kernel, all, g, overlayDataFor("aten", {}, false, {}, {})).message.contains(QStringLiteral("no kernels")));
    p = paintOverlay(Overlay::Dtype, all, g, data);
    legend.clear();
    for (const auto& e : p.legend) legend << e.text;
    QCOMPARE(legend, (QStringList{"f32 (4 nodes)", "i64 (1 node)"}));
    QVERIFY(p.fill.at(c) != p.fill.at(d));
    p = paintOverlay(Overlay::Shape, all, g, data);
    QCOMPARE(p.fill.count(x), size_t(0));
    QCOMPARE(p.fill.count(d), size_t(0));  // relu keeps its shape
    QVERIFY(p.fill.at(a) != p.fill.at(b) && p.fill.at(b) != p.fill.at(c) && p.fill.at(a) != p.fill.at(c));
    QCOMPARE(p.legend.size(), 4);
    QVERIFY(p.legend.last().text.startsWith(QStringLiteral("same shape (1)")));

    // Source line: each node in its line's colour; lines listed in the legend.
    ir::Graph lined = g;
    lined.find(a)->prov.loc.line = lined.find(b)->prov.loc.line = 5;
    lined.find(c)->prov.loc.line = 6;
    p = paintOverlay(Overlay::SourceLine, all, lined, data);
    QCOMPARE(p.fill.at(a), lineColour(5));
    QCOMPARE(p.fill.at(c), lineColour(6));
    QCOMPARE(p.fill.count(d), size_t(0));
    legend.clear();
    for (const auto& e : p.legend) legend << e.text;
    QCOMPARE(legend, (QStringList{"line 5 (2 nodes)", "line 6 (1 node)", "no source line (2 nodes)"}));
    QVERIFY(paintOverlay(Overlay::SourceLine, all, g, data).message.contains(QStringLiteral("No node")));

    // Folded: blk0 (x, sum, view) is in k_sum and k_view, blk1 (expand, relu) in k_view only.
    const CollapsedGraph folded = collapseByModule(g, {});
    int blk0 = -1, blk1 = -1;
    for (const auto& [id, path] : folded.moduleOf) (path == "blk0" ? blk0 : blk1) = id;
    p = paintOverlay(Overlay::KernelTime, folded, g, data);
    QCOMPARE(p.fill.at(blk0), heatColour(1.0));
    QCOMPARE(p.fill.at(blk1), heatColour(0.05 / 0.25));
    QCOMPARE(p.note.at(blk0), QStringLiteral("0.250 ms per launch over the 2 kernels its nodes are in"));
    p = paintOverlay(Overlay::Kernel, folded, g, data);
    QCOMPARE(p.note.at(blk0), QStringLiteral("2 kernels: k_sum, k_view"));

    // The legend widget shows the chooser and the paint's entries, or why nothing is painted.
    GraphLegend legendWidget(nullptr);
    QCOMPARE(legendWidget.overlay(), Overlay::None);
    QVERIFY2(legendWidget.text().contains(QStringLiteral("added by this step")), qPrintable(legendWidget.text()));
    QSignalSpy chosen(&legendWidget, &GraphLegend::overlayChosen);
    legendWidget.chooser()->setCurrentIndex(int(Overlay::Kernel));
    QCOMPARE(chosen.size(), 1);
    legendWidget.showPaint(paintOverlay(Overlay::Kernel, all, g, data));
    QVERIFY2(legendWidget.text().contains(QStringLiteral("k_view (2 nodes)")), qPrintable(legendWidget.text()));
    legendWidget.showPaint(paintOverlay(Overlay::Kernel, all, g, captured));
    QVERIFY2(legendWidget.text().contains(QStringLiteral("captured graph")), qPrintable(legendWidget.text()));
  }

  // Side by side: kernel IR left, assembly (or LLVM IR) right; the right follows the kernel at
  // the top of the left; a source line tints its lines on both sides.
  void sideBySideFollowsTheKernel() {
    TextPane pane;
    pane.resize(900, 300);
    std::vector<storage::KernelRow> ks(2);
    for (int i = 0; i < 2; ++i) {
      ks[i].name = "k" + std::to_string(i);
      ks[i].kind = "pointwise";
      ks[i].nodeIds = {10 + i};
      ks[i].sourceLines = {3 + i};
      ks[i].kernelIr =
          "kernel k" + std::to_string(i) + " pointwise\n" + std::string(40, '\n') + "  %0 = exp %9 @" + std::to_string(10 + i) + "\nend\n";
      std::string nops;
      for (int n = 0; n < 40; ++n) nops += "\tnop\n";
      ks[i].assembly =
          "k" + std::to_string(i) + ":\n\t# @" + std::to_string(10 + i) + "\n\tvexp\n.LBB" + std::to_string(i) + ":\n" + nops + "\tret\n";
      ks[i].llvmIr = "define void @k" + std::to_string(i) + "() {\n  ret void ; @" + std::to_string(10 + i) + "\n}\n";
    }
    pane.setKernels(ks, {{10, 3}, {11, 4}});
    QVERIFY(pane.sideBySideIndex() >= 0);
    QCOMPARE(pane.sideEditor(false)->toPlainText(), pane.text(TextPane::KernelIr));
    QCOMPARE(pane.sideEditor(true)->toPlainText(), pane.text(TextPane::Assembly));
    pane.setCurrentIndex(pane.sideBySideIndex());
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    // Scroll the left side to the second kernel: the right side goes to the second kernel too.
    const int second =
        pane.text(TextPane::KernelIr).left(pane.text(TextPane::KernelIr).indexOf(QStringLiteral("──── k1"))).count(QLatin1Char('\n'));
    pane.sideEditor(false)->verticalScrollBar()->setValue(second);
    const int rightTop = pane.sideEditor(true)->verticalScrollBar()->value();
    QVERIFY2(pane.sideEditor(true)->document()->findBlockByNumber(rightTop).text().startsWith(QStringLiteral("──── k1")) ||
                 pane.sideEditor(true)->verticalScrollBar()->value() == pane.sideEditor(true)->verticalScrollBar()->maximum(),
             qPrintable(pane.sideEditor(true)->document()->findBlockByNumber(rightTop).text()));
    // Line 4 (node 11, kernel k1): its header and its @11 lines on both sides.
    QCOMPARE(pane.highlightSourceLine(4), 1);
    QCOMPARE(pane.sideEditor(false)->extraSelections().size(), 2);     // header, the exp
    QCOMPARE(pane.sideEditor(true)->extraSelections().size(), 1 + 2);  // header, # @11, vexp (not past the label)
    pane.setSideBySide(TextPane::LlvmIr);
    QCOMPARE(pane.sideEditor(true)->toPlainText(), pane.text(TextPane::LlvmIr));
    QCOMPARE(pane.sideEditor(true)->extraSelections().size(), 2);  // header, the ret ; @11
  }

  // The window reads a session's compiles with their guards counted, not parsed (a 200-layer
  // model's are 5 MB of JSON): the counts are the parsed guards', and the Capture tab, made from
  // those rows, reads its compile's guards and lists each of them.
  void guardsAreCountedAndReadWhereShown() {
    const auto parsed = sample_.store->compiles(sample_.sessionId);
    const auto counted = sample_.store->compiles(sample_.sessionId, storage::GuardRead::Counted);
    QCOMPARE(counted.size(), parsed.size());
    QVERIFY(!parsed.empty());
    for (size_t i = 0; i < parsed.size(); ++i) {
      QVERIFY(!parsed[i].guards.empty());
      QCOMPARE(parsed[i].guardCount, int(parsed[i].guards.size()));
      QVERIFY(counted[i].guards.empty());
      QCOMPARE(counted[i].guardCount, int(parsed[i].guards.size()));
      QCOMPARE(sample_.store->compileGuards(sample_.sessionId, parsed[i].compileId).size(), parsed[i].guards.size());
      const std::string lazy = captureReport(*sample_.store, sample_.sessionId, parsed[i].compileId, &counted);
      QCOMPARE(lazy, captureReport(*sample_.store, sample_.sessionId, parsed[i].compileId, &parsed));
      for (const auto& g : parsed[i].guards) QVERIFY(lazy.find("  " + g.kind + ": " + g.text + "\n") != std::string::npos);
    }
    QVERIFY(sample_.store->compileGuards(sample_.sessionId, "no such compile").empty());
  }

  // The Capture tab's text from a source is made when the tab is shown (or its text asked for),
  // once, and is what the source makes; setCapture replaces a source not yet used.
  void captureTabIsMadeWhenShown() {
    TextPane pane;
    pane.setCurrentIndex(TextPane::StageIr);
    int made = 0;
    pane.setCaptureSource([&made] {
      ++made;
      return QStringLiteral("Guards [0/0]:\n  TENSOR_MATCH: x");
    });
    QCOMPARE(made, 0);
    QVERIFY(!pane.isFilled(TextPane::Capture));
    QCOMPARE(pane.text(TextPane::Capture), QStringLiteral("Guards [0/0]:\n  TENSOR_MATCH: x"));
    pane.setCurrentIndex(TextPane::Capture);
    QVERIFY(pane.isFilled(TextPane::Capture));
    QCOMPARE(pane.editor(TextPane::Capture)->toPlainText(), QStringLiteral("Guards [0/0]:\n  TENSOR_MATCH: x"));
    const int shown = made;
    pane.setCurrentIndex(TextPane::StageIr);
    pane.setCurrentIndex(TextPane::Capture);
    QCOMPARE(made, shown);  // filled once
    pane.setCurrentIndex(TextPane::StageIr);
    pane.setCaptureSource([&made] {
      ++made;
      return QStringLiteral("other");
    });
    pane.setCapture(QStringLiteral("given"));
    pane.setCurrentIndex(TextPane::Capture);
    QCOMPARE(pane.editor(TextPane::Capture)->toPlainText(), QStringLiteral("given"));
    QCOMPARE(made, shown);
  }

  // The step report's diff is made with the stage's read (off the UI thread): the same as made
  // from the graphs the read returns.
  void stepDiffIsMadeWithTheRead() {
    const auto stages = sample_.store->stages(sample_.sessionId, "0/0");
    QVERIFY(stages.size() >= 3);
    StageRequest request;
    request.sessionId = sample_.sessionId;
    request.stage = stages[2];
    request.previous = stages[1];
    QVERIFY(!readStageContent(*sample_.store, request).step);  // not asked for
    request.withStepDiff = true;
    request.kernelMembership = false;
    const StageContent c = readStageContent(*sample_.store, request);
    QVERIFY(c.step && c.previous);
    const StepDiff direct = stepDiff(*c.previous, c.graph, false);
    QCOMPARE(c.step->changes.added, direct.changes.added);
    QCOMPARE(c.step->changes.changed, direct.changes.changed);
    QCOMPARE(c.step->changes.removed, direct.changes.removed);
    QCOMPARE(c.step->removed.size(), direct.changes.removed.size());
  }

  // The stage's read and its layout frame's read (two pool threads) share the stage graphs: each
  // is read once, by whichever asks first, the other waiting for it; what the stage's read makes
  // of them (and of the session's compiles, read already) is what it makes reading alone.
  void stageGraphsAreReadOnceForTwoReaders() {
    const auto stages = sample_.store->stages(sample_.sessionId, "0/0");
    QVERIFY(stages.size() >= 3);
    const std::string path = sample_.store->path();
    StageGraphs graphs;
    const size_t n = stages.size();
    std::vector<StageGraphs::Graph> got(2 * n);
    std::thread other([&] {
      auto store = storage::Store::open(path);
      for (size_t i = n; i-- > 0;) got[n + i] = graphs.get(*store, stages[i].id);  // last first, as the frame's read
    });
    for (size_t i = 0; i < n; ++i) got[i] = graphs.get(*sample_.store, stages[i].id);
    other.join();
    for (size_t i = 0; i < n; ++i) {
      QVERIFY(got[i]);
      QCOMPARE(got[i].get(), got[n + i].get());  // one graph, not two reads of it
      const ir::Graph alone = sample_.store->stageGraph(stages[i].id);
      QCOMPARE(got[i]->nodes.size(), alone.nodes.size());
      for (size_t k = 0; k < alone.nodes.size(); ++k) QCOMPARE(got[i]->nodes[k].name, alone.nodes[k].name);
    }
    StageRequest request;
    request.sessionId = sample_.sessionId;
    request.stage = stages[n - 2];  // a stage before the fused one: its kernels' node lines come from the fused graph
    request.previous = stages[n - 3];
    request.withCompile = true;
    const StageContent alone = readStageContent(*sample_.store, request);
    request.compiles = std::make_shared<const std::vector<storage::CompileRow>>(sample_.store->compiles(sample_.sessionId));
    const StageContent shared = readStageContent(*sample_.store, request, &graphs);
    QCOMPARE(shared.graph.nodes.size(), alone.graph.nodes.size());
    QVERIFY(shared.previous && alone.previous);
    QCOMPARE(shared.previous->nodes.size(), alone.previous->nodes.size());
    QVERIFY(!alone.nodeLines.empty());
    QCOMPARE(shared.nodeLines, alone.nodeLines);
    QVERIFY(alone.capture.find("Guards [0/0]") != std::string::npos);
    QCOMPARE(shared.capture, alone.capture);
    QCOMPARE(shared.kernels->size(), alone.kernels->size());
    // A stage that is not there: every reader asking for it gets the error.
    for (int i = 0; i < 2; ++i) {
      bool threw = false;
      try {
        graphs.get(*sample_.store, 999999);
      } catch (const storage::StoreError&) { threw = true; }
      QVERIFY(threw);
    }
  }

  // A kernel tab is filled when it is shown, not when the kernels arrive (the 200-layer model's
  // 1,601 kernels were seconds of UI thread before the first paint): a tab not shown holds no
  // text, and when shown it holds its kernels' text, tinted for the selected line and scrolled
  // to the kernel last asked for. New kernels empty every tab again but the one showing.
  void kernelTabsAreFilledWhenShown() {
    TextPane pane;
    pane.resize(900, 300);
    auto kernels = [](const std::string& prefix, int count) {
      std::vector<storage::KernelRow> ks(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) {
        const std::string name = prefix + std::to_string(i), node = std::to_string(10 + i);
        auto& k = ks[static_cast<size_t>(i)];
        k.name = name;
        k.kind = "pointwise";
        k.nodeIds = {10 + i};
        k.sourceLines = {3 + i};
        k.kernelIr = "kernel " + name + " pointwise\n" + std::string(40, '\n') + "  %0 = exp %9 @" + node + "\nend\n";
        k.llvmIr = "define void @" + name + "() {\n" + std::string(40, '\n') + "  ret void ; @" + node + "\n}\n";
        k.assembly = name + ":\n\t# @" + node + "\n\tvexp\n\tret\n";
      }
      return ks;
    };
    // What a tab's editor holds, read past editor() (which fills the tab it is asked for).
    auto held = [&pane](TextPane::Tab t) {
      QWidget* page = pane.widget(t);
      auto* e = qobject_cast<QPlainTextEdit*>(page);
      return e ? e->toPlainText() : QString();
    };
    auto sideHeld = [&pane] {
      QString all;
      for (QPlainTextEdit* e : pane.widget(pane.sideBySideIndex())->findChildren<QPlainTextEdit*>()) all += e->toPlainText();
      return all;
    };
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    pane.setCurrentIndex(TextPane::StageIr);
    pane.setKernels(kernels("k", 3), {{10, 3}, {11, 4}, {12, 5}});
    for (TextPane::Tab t : {TextPane::KernelIr, TextPane::LlvmIr, TextPane::Assembly}) {
      QVERIFY(!pane.isFilled(t));
      QVERIFY(held(t).isEmpty());
    }
    QVERIFY(!pane.isFilled(TextPane::TabCount));
    QVERIFY(sideHeld().isEmpty());
    // Tinting a line and asking for a kernel fill nothing but the kernel IR tab showKernel shows.
    QCOMPARE(pane.highlightSourceLine(4), 1);
    QVERIFY(held(TextPane::LlvmIr).isEmpty());
    pane.showKernel(QStringLiteral("k2"));
    QCOMPARE(pane.currentIndex(), int(TextPane::KernelIr));
    QVERIFY(pane.isFilled(TextPane::KernelIr));
    QVERIFY(held(TextPane::KernelIr).contains(QStringLiteral("kernel k2 pointwise")));
    QVERIFY(!pane.isFilled(TextPane::LlvmIr));
    QVERIFY(held(TextPane::LlvmIr).isEmpty());
    // The text of a tab not shown is there to read without filling it.
    QVERIFY(pane.text(TextPane::Assembly).contains(QStringLiteral("k1:\n\t# @11")));
    QVERIFY(!pane.isFilled(TextPane::Assembly));
    // Shown: LLVM IR holds every kernel's, k1's lines tinted in line 4's colour, scrolled to k2.
    pane.setCurrentIndex(TextPane::LlvmIr);
    QVERIFY(pane.isFilled(TextPane::LlvmIr));
    const QString llvm = held(TextPane::LlvmIr);
    for (const char* name : {"define void @k0()", "define void @k1()", "define void @k2()"})
      QVERIFY2(llvm.contains(QLatin1String(name)), name);
    auto* llvmEditor = qobject_cast<QPlainTextEdit*>(pane.widget(TextPane::LlvmIr));
    const auto sels = llvmEditor->extraSelections();
    QCOMPARE(sels.size(), 2);  // k1's header, its ret ; @11
    QCOMPARE(sels.first().format.background().color(), lineColour(4));
    QVERIFY(sels.first().cursor.block().text().startsWith(QStringLiteral("──── k1")));
    QVERIFY(sels.last().cursor.block().text().endsWith(QStringLiteral("; @11")));
    const int top = llvmEditor->verticalScrollBar()->value();
    QVERIFY2(llvmEditor->document()->findBlockByNumber(top).text().startsWith(QStringLiteral("──── k2")) ||
                 top == llvmEditor->verticalScrollBar()->maximum(),
             qPrintable(llvmEditor->document()->findBlockByNumber(top).text()));
    QVERIFY(!pane.isFilled(TextPane::Assembly));
    QVERIFY(sideHeld().isEmpty());
    // The side by side: both sides filled when shown, the right one the assembly.
    pane.setCurrentIndex(pane.sideBySideIndex());
    QVERIFY(pane.isFilled(TextPane::TabCount));
    QCOMPARE(pane.sideEditor(false)->toPlainText(), pane.text(TextPane::KernelIr));
    QCOMPARE(pane.sideEditor(true)->toPlainText(), pane.text(TextPane::Assembly));
    QVERIFY(!pane.isFilled(TextPane::Assembly));
    // Another compile's kernels: the side by side (showing) at once, the tabs filled before emptied.
    pane.setKernels(kernels("m", 2), {{10, 3}, {11, 4}});
    QVERIFY(pane.isFilled(TextPane::TabCount));
    QVERIFY(pane.sideEditor(false)->toPlainText().contains(QStringLiteral("kernel m1 pointwise")));
    QVERIFY(!pane.sideEditor(false)->toPlainText().contains(QStringLiteral("kernel k")));
    for (TextPane::Tab t : {TextPane::KernelIr, TextPane::LlvmIr}) {
      QVERIFY(!pane.isFilled(t));
      QVERIFY(held(t).isEmpty());
    }
    pane.setCurrentIndex(TextPane::KernelIr);
    QVERIFY(held(TextPane::KernelIr).contains(QStringLiteral("kernel m1 pointwise")));
    QVERIFY(!held(TextPane::KernelIr).contains(QStringLiteral("kernel k")));
    // A plain text tab is kept until shown too.
    pane.setWrapper(QStringLiteral("def call(args):\n    m0(args[0])"));
    QVERIFY(!pane.isFilled(TextPane::Wrapper));
    QVERIFY(held(TextPane::Wrapper).isEmpty());
    QCOMPARE(pane.text(TextPane::Wrapper), QStringLiteral("def call(args):\n    m0(args[0])"));
    pane.setCurrentIndex(TextPane::Wrapper);
    QCOMPARE(held(TextPane::Wrapper), QStringLiteral("def call(args):\n    m0(args[0])"));
  }

  // The breaks panel lists breaks (with hints and stack) and recompiles (with the failing
  // guard's line); activating an entry reports its line.
  void breaksPanelListsAndLinks() {
    BreaksPanel panel;
    session::GraphBreakEvent b;
    b.compileId = "0/0";
    b.code = "KB002";
    b.title = "Data-dependent branching";
    b.explanation = "Detected data-dependent branching.";
    b.hints = {"Use torch.cond."};
    b.line = 12;
    panel.setSession({b}, {{0, "0/1", {"0/0: L['n'] == 1"}, {23}}});
    QCOMPARE(panel.breakCount(), 1);
    QCOMPARE(panel.recompileCount(), 1);
    QTreeWidgetItem* item = panel.topLevelItem(0)->child(0);
    QCOMPARE(item->text(0), QStringLiteral("[0/0] KB002 Data-dependent branching"));
    QCOMPARE(item->child(0)->text(2), QStringLiteral("Use torch.cond."));
    QSignalSpy lines(&panel, &BreaksPanel::lineActivated);
    emit panel.itemActivated(item, 0);
    emit panel.itemActivated(panel.topLevelItem(1)->child(0)->child(0), 0);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines.at(0).at(0).toInt(), 12);
    QCOMPARE(lines.at(1).at(0).toInt(), 23);
  }

  // A run that raised marks the innermost frame of its traceback that is in the script (by path
  // or file name), with the exception as tooltip; a traceback with no frame of it marks nothing.
  void errorMarkFindsTheRaisingLine() {
    const QString tb = QStringLiteral(
        "Traceback (most recent call last):\n  File \"/tmp/raise.py\", line 12, in <module>\n    g(x)\n"
        "  File \"/tmp/raise.py\", line 9, in g\n    return y.view(7, 3)\n  File \"torch.nn.py\", line 40, in view\n"
        "RuntimeError: shape '[7, 3]' is invalid for input of size 4\n");
    LineMark m = errorMark(tb, QStringLiteral("/tmp/raise.py"));
    QCOMPARE(m.line, 9);
    QCOMPARE(m.tooltip, QStringLiteral("raised here: RuntimeError: shape '[7, 3]' is invalid for input of size 4"));
    QCOMPARE(errorMark(tb, QStringLiteral("raise.py")).line, 9);  // a session that stored a relative path
    QCOMPARE(errorMark(tb, QStringLiteral("/other/script.py")).line, 0);
    QCOMPARE(errorMark(QStringLiteral("SyntaxError: invalid syntax"), QStringLiteral("a.py")).line, 0);
  }

  // The Diff tab colours kiln diff's text: lines only in A red, only in B green, a compile whose
  // graph or kernels differ amber; equal compiles and context stay plain.
  void diffTabColoursChanges() {
    using K = DiffHighlighter::Kind;
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("session 1 (a.py) vs session 2 (a.py), same script")), K::Summary);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("[0/0] f: captured graph equal, ops 2 -> 2, kernels 1 -> 1")), K::EqualHeading);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("[0/0] f: captured graph differs, ops 2 -> 3, kernels 1 -> 1")), K::ChangedHeading);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("[1/0] g: only in 2")), K::ChangedHeading);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("    - guard ID_MATCH: ___check_obj_id(G['torch'], 1)")), K::Removed);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("    + guard TENSOR_MATCH: x")), K::Added);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("  - break only in 1: a.py:21 Call to graph_break")), K::Removed);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("    kernels +   %1 = sin %0 @1")), K::Added);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("    -    sin = torch.ops.aten.sin.default(x)")), K::Removed);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("    @@ -1,3 +1,4 @@")), K::Plain);
    QCOMPARE(DiffHighlighter::classify(QStringLiteral("    compile ms: capture 1.0 -> 2.0 (+100%);")), K::Plain);
    TextPane pane;
    pane.setDiff(QStringLiteral("session 1 (a.py) vs session 2 (a.py), same script\n    - guard X\n    compile ms: x"));
    auto* doc = pane.editor(TextPane::Diff)->document();
    const auto formatsOf = [&](int block) { return doc->findBlockByNumber(block).layout()->formats(); };
    QCOMPARE(formatsOf(1).size(), 1);
    QCOMPARE(formatsOf(1).at(0).format.background().color(), QColor(0xfd, 0xe2, 0xe1));
    QVERIFY(formatsOf(2).isEmpty());
  }

  // The artifacts panel groups an imported session's kept records by compile id, filters them
  // by name, reads a body only when it is shown (through the loader) and indents JSON bodies.
  void artifactsPanelGroupsFiltersAndLoads() {
    ArtifactsPanel panel;
    QCOMPARE(panel.artifactCount(), 0);
    QCOMPARE(panel.list()->topLevelItemCount(), 1);  // the "no kept records" line
    std::vector<storage::ArtifactRow> rows = {{1, "", "import problem", 11, 40},
                                              {2, "0/0", "dynamo_cpp_guards_str", 120, 900},
                                              {3, "0/0", "compilation_metrics", 130, 2000},
                                              {4, "1/0", "dynamo_cpp_guards_str", 400, 700}};
    std::vector<int64_t> loaded;
    panel.setArtifacts(rows, [&](int64_t id) {
      loaded.push_back(id);
      return id == 3 ? std::string(R"({"frame_key": "1", "cache_size": 0})") : "text of " + std::to_string(id);
    });
    QVERIFY(loaded.empty());  // nothing read before a record is shown
    QCOMPARE(panel.artifactCount(), 4);
    QCOMPARE(panel.list()->topLevelItemCount(), 3);  // (no compile), [0/0], [1/0]
    QCOMPARE(panel.list()->topLevelItem(1)->text(0), QStringLiteral("[0/0]"));
    QCOMPARE(panel.list()->topLevelItem(1)->childCount(), 2);
    panel.filterField()->setText(QStringLiteral("guards"));
    QCOMPARE(panel.visibleCount(), 2);
    QVERIFY(panel.list()->topLevelItem(0)->isHidden());  // no guards outside a compile
    panel.filterField()->clear();
    QCOMPARE(panel.visibleCount(), 4);
    QVERIFY(panel.selectArtifact(QStringLiteral("compilation_metrics")));
    QCOMPARE(loaded, std::vector<int64_t>{3});
    QVERIFY(panel.shownText().contains(QStringLiteral("\n    \"cache_size\": 0")));  // indented
    QVERIFY(panel.selectArtifact(QStringLiteral("import problem")));
    QCOMPARE(panel.shownText(), QStringLiteral("text of 1"));
    QVERIFY(!panel.selectArtifact(QStringLiteral("nothing like this")));
  }

  // The autotune panel says how to get one for a session compiled without max-autotune; else a
  // row per product with the implementation the graph runs, every candidate under it with its
  // ratio to the fastest, and the ones that did not run greyed with the reason.
  void autotunePanelListsEveryCandidate() {
    AutotunePanel panel;
    QCOMPARE(panel.topLevelItemCount(), 1);
    QCOMPARE(panel.topLevelItem(0)->text(0), QStringLiteral("Not autotuned"));
    session::AutotuneEvent e;
    e.compileId = "0/0";
    e.node = "addmm";
    e.op = "aten.addmm.default";
    e.problem = "[16, 1024] @ [1024, 1024] (column-major) + bias, float32";
    e.candidates = {{"openblas", 0.8, "", false}, {"few_rows", 0.5, "", true}, {"onednn", -1.0, "does not apply", false}};
    session::AutotuneEvent cached = e;
    cached.node = "mm";
    cached.cached = true;
    cached.candidates = {{"openblas", 0.25, "", true}};
    panel.setChoices({e, cached});
    QCOMPARE(panel.productCount(), 2);
    QCOMPARE(panel.topLevelItemCount(), 2);
    QTreeWidgetItem* item = panel.topLevelItem(0);
    QCOMPARE(item->text(0), QStringLiteral("[0/0] addmm"));
    QCOMPARE(item->text(1), QStringLiteral("few_rows"));
    QCOMPARE(item->text(2), QStringLiteral("0.500 ms"));
    QCOMPARE(item->childCount(), 3);
    QCOMPARE(item->child(0)->text(3), QStringLiteral("1.60x"));
    QCOMPARE(item->child(1)->text(3), QStringLiteral("fastest"));
    QVERIFY(item->child(1)->font(1).bold());
    QCOMPARE(item->child(2)->text(2), QStringLiteral("n/a"));
    QCOMPARE(item->child(2)->text(3), QStringLiteral("does not apply"));
    QVERIFY(panel.topLevelItem(1)->text(3).endsWith(QStringLiteral("cached from an earlier run")));
    panel.setChoices({});
    QCOMPARE(panel.productCount(), 0);
    QCOMPARE(panel.topLevelItem(0)->text(0), QStringLiteral("Not autotuned"));
  }

  // The verify panel says how to turn verification on when a session has none, lists each
  // checked graph, and for one that differed the first difference, the culprit and the trials.
  void verifyPanelShowsTheCulprit() {
    VerifyPanel panel;
    QCOMPARE(panel.topLevelItemCount(), 1);
    QCOMPARE(panel.topLevelItem(0)->text(0), QStringLiteral("Not verified"));
    session::VerifyEvent ok;
    ok.compileId = "0/0";
    ok.call = 1;
    session::VerifyEvent bad;
    bad.compileId = "1/0";
    bad.call = 2;
    bad.matched = false;
    bad.output = 0;
    bad.detail = "output 0 [4] at [1]: 2 compiled vs 1 eager";
    bad.culprit = "pass simplify";
    bad.bisection = {"without simplify: matches eager", "without cse: still differs"};
    panel.setResults({ok, bad});
    QCOMPARE(panel.checkedCount(), 2);
    QCOMPARE(panel.mismatchCount(), 1);
    QCOMPARE(panel.topLevelItemCount(), 2);
    QTreeWidgetItem* item = panel.topLevelItem(1);
    QCOMPARE(item->text(1), QStringLiteral("DIFFERS at call 2"));
    QCOMPARE(item->text(2), QStringLiteral("introduced by pass simplify"));
    QCOMPARE(item->child(0)->text(2), QString::fromStdString(bad.detail));
    QCOMPARE(item->child(1)->childCount(), 2);
  }

  // Side by side: what B lost is red on A's side, what it gained green on its own.
  void graphDiffViewMarksBothSides() {
    GraphDiffView pair;
    pair.resize(900, 500);
    ir::Graph a = layered(1, 2), b = layered(1, 2);
    b.nodes[2].target = "aten.sigmoid.default";  // changed
    b.nodes[3].name = "fresh";                   // blocks.0.mlp's first op renamed: removed + added
    pair.showPair(a, QStringLiteral("A"), b, QStringLiteral("B"));
    QTRY_VERIFY_WITH_TIMEOUT(!pair.before()->nodeItems().isEmpty() && !pair.after()->nodeItems().isEmpty(), 20000);
    auto marks = [](GraphView* v) {
      std::map<std::string, GraphNodeItem::Change> m;
      for (GraphNodeItem* n : v->nodeItems())
        if (n->change() != GraphNodeItem::Change::None) m[n->name().toStdString()] = n->change();
      return m;
    };
    // The renamed node's consumer reads another name now: changed too.
    const std::string gone = a.nodes[3].name, changed = a.nodes[2].name, reader = a.nodes[4].name;
    QCOMPARE(marks(pair.before()), (std::map<std::string, GraphNodeItem::Change>{{gone, GraphNodeItem::Change::Removed},
                                                                                 {changed, GraphNodeItem::Change::Changed},
                                                                                 {reader, GraphNodeItem::Change::Changed}}));
    QCOMPARE(marks(pair.after()), (std::map<std::string, GraphNodeItem::Change>{{"fresh", GraphNodeItem::Change::Added},
                                                                                {changed, GraphNodeItem::Change::Changed},
                                                                                {reader, GraphNodeItem::Change::Changed}}));
  }

  void runnerReportsAMissingKiln() {
    ScriptRunner runner(dir_.filePath(QStringLiteral("no-such-kiln")));
    QSignalSpy spy(&runner, &ScriptRunner::finished);
    runner.run(QStringLiteral("s.py"), QStringLiteral("x.db"));
    QVERIFY(spy.wait(5000));
    QCOMPARE(spy.at(0).at(0).toLongLong(), qint64(0));
    QVERIFY(spy.at(0).at(1).toString().contains(QStringLiteral("not found")));
  }

 private:
  // A stand-in for `kiln` in dir_: a shell script with `body` (checks its arguments, prints what
  // the real command prints); "" when it cannot be written.
  QString fakeKiln(const QString& name, const char* body) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QByteArray("#!/bin/sh\n") + body);
    f.close();
    f.setPermissions(f.permissions() | QFile::ExeOwner);
    return path;
  }

  QTemporaryDir dir_;
  testing::SampleSession sample_;
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  ViewersTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "viewers_test.moc"
