// The collectives' timeline (viewers/collectives_timeline.h) on Qt's offscreen platform: a
// session holding DDP's collectives, written through the store as `kiln run` writes them, opened
// in the studio window: one lane per kind, one bar per collective at its issue time and as long as
// its duration, labels and tooltips, the Timings dock's tab named with the count; then the
// timeline alone: zoom, fit, a collective still running, crowded labels, a session without
// collectives.
#include "viewers/collectives_timeline.h"
#include "storage/store.h"
#include "viewers/studio_window.h"

#include <QApplication>
#include <QGraphicsRectItem>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace kiln;
using namespace kiln::viewers;

namespace {

// Rank 0 of a two-rank DDP run: the parameters' broadcast, two steps of three buckets (the
// second step's bucket 2 reported first, as waits may come in any order), and a barrier.
std::vector<session::CollectiveEvent> ddpCollectives() {
  std::vector<session::CollectiveEvent> out;
  int64_t seq = 0;
  out.push_back({seq++, "broadcast", "", 0, "gloo", 1048576, "float32", {1024, 256}, 100.0, 0.5, 100.75, 0, 2, "DDP parameters"});
  for (int step = 0; step < 2; ++step)
    for (int b = 0; b < 3; ++b) {
      const double at = 200.0 + step * 100 + b * 10;
      out.push_back({seq++,
                     "all_reduce",
                     "sum",
                     -1,
                     "gloo",
                     int64_t(4) << 20,
                     "float32",
                     {int64_t(1) << 20},
                     at,
                     0.35 + b,
                     240.0 + step * 100,
                     0,
                     2,
                     "bucket " + std::to_string(b)});
    }
  std::swap(out[4], out[6]);
  out.push_back({seq++, "barrier", "", -1, "gloo", 0, "", {}, 400.0, 0.25, 400.5, 0, 2, ""});
  return out;
}

const CollectivesTimeline::Bar* barOf(const CollectivesTimeline& t, int64_t seq) {
  for (const auto& b : t.bars())
    if (b.seq == seq) return &b;
  return nullptr;
}

}  // namespace

class CollectivesTimelineTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")).clear();
    QVERIFY(dir_.isValid());
  }

  void theStudioShowsARecordedSessionsCollectives() {
    auto store = storage::Store::open(dir_.filePath(QStringLiteral("ddp.db")).toStdString());
    {
      auto sink = store->beginSession();
      session::SessionStart start;
      start.scriptPath = "/tmp/ddp.py";
      start.scriptText = "import torch.distributed as dist\n";
      sink->sessionStart(start);
      for (const auto& c : ddpCollectives()) sink->collective(c);
      session::SessionEnd end;
      end.status = "ok";
      end.totalMs = 500.0;
      sink->sessionEnd(end);
    }
    const int64_t id = store->lastSessionId();
    StudioWindow window(*store, dir_.filePath(QStringLiteral("no-kiln")));
    window.resize(1600, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.refreshSessions();
    QVERIFY(window.selectSession(id));
    window.showTimingsTab(3);

    CollectivesTimeline* t = window.collectivesTimeline();
    QVERIFY(t);
    QVERIFY(t->isVisible());
    auto* tabs = qobject_cast<QTabWidget*>(t->parentWidget()->parentWidget());
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(tabs->indexOf(t)), QStringLiteral("Collectives (8)"));
    QCOMPARE(t->lanes(), (QStringList{"all_reduce", "broadcast", "barrier"}));
    QCOMPARE(t->bars().size(), size_t(8));

    // Each bar starts at its issue time and is as long as its duration, in its kind's lane.
    for (const auto& c : ddpCollectives()) {
      const auto* bar = barOf(*t, c.seq);
      QVERIFY2(bar, qPrintable(QStringLiteral("no bar for #%1").arg(c.seq)));
      QCOMPARE(bar->lane, c.op == "all_reduce" ? 0 : c.op == "broadcast" ? 1 : 2);
      QVERIFY(std::abs(bar->rect.left() - t->xOf(c.issuedAtMs)) < 1e-6);
      QVERIFY(std::abs(bar->rect.width() - std::max(2.0, c.durationMs * t->pixelsPerMs())) < 1e-6);
      QVERIFY(!bar->running);
      QVERIFY(bar->toolTip.contains(QStringLiteral("rank 0 of 2")));
      QVERIFY(bar->toolTip.contains(QStringLiteral("#%1 ").arg(c.seq)));
    }
    // Later issues are further right; labels name the bucket, its size and its time.
    QVERIFY(barOf(*t, 2)->rect.left() < barOf(*t, 3)->rect.left());
    QCOMPARE(barOf(*t, 1)->label, QStringLiteral("all_reduce bucket 0 · 4.0 MiB · 0.350 ms"));
    QCOMPARE(barOf(*t, 7)->label, QStringLiteral("barrier · 0.250 ms"));
    QCOMPARE(barOf(*t, 0)->label, QStringLiteral("broadcast DDP parameters · 1.0 MiB · 0.500 ms"));
    QVERIFY(barOf(*t, 0)->labelShown);
    QVERIFY(barOf(*t, 0)->toolTip.contains(QStringLiteral("from rank 0")));
    // The bars are in the scene, outlined, under their tooltips; each waited-for one has its faint
    // band from issue to the wait's return, without an outline.
    int outlined = 0, bands = 0;
    for (QGraphicsItem* item : t->scene()->items())
      if (auto* r = dynamic_cast<QGraphicsRectItem*>(item); r && r->toolTip().startsWith(QLatin1Char('#')))
        ++(r->pen().style() == Qt::NoPen ? bands : outlined);
    QCOMPARE(outlined, 8);
    QCOMPARE(bands, 8);

    // The window's picture of it is not blank where the longest bar (step 0's bucket 2) is.
    QImage shot = t->viewport()->grab().toImage();
    const QPoint at = t->mapFromScene(barOf(*t, 3)->rect.center());
    QVERIFY(QRect(QPoint(0, 0), shot.size()).contains(at));
    QVERIFY(qGray(shot.pixel(at)) < 200);
    shot.save(QStringLiteral(KILN_BINARY_DIR "/tests/gui/collectives_timeline.png"));
  }

  void zoomFitRunningAndEmpty() {
    CollectivesTimeline t;
    t.resize(1000, 300);
    auto cs = ddpCollectives();
    cs.push_back({8, "all_reduce", "max", -1, "gloo", 64, "float64", {8}, 450.0, -1.0, -1.0, 0, 2, ""});
    t.setCollectives(cs);
    const double fitted = t.pixelsPerMs();
    QVERIFY(fitted > 0);
    // The whole span fits the width.
    QVERIFY(t.xOf(450.0) < 1000);
    t.zoomBy(4, 500);
    QVERIFY(std::abs(t.pixelsPerMs() - 4 * fitted) < 1e-9);
    QVERIFY(std::abs(barOf(t, 3)->rect.width() - std::max(2.0, 2.35 * 4 * fitted)) < 1e-6);
    QVERIFY(std::abs(barOf(t, 3)->rect.left() - t.xOf(220.0)) < 1e-6);
    t.fit();
    QVERIFY(std::abs(t.pixelsPerMs() - fitted) < 1e-9);
    // Never completed: dashed to the end of the span, "running" in its label.
    const auto* running = barOf(t, 8);
    QVERIFY(running && running->running);
    QVERIFY(running->label.endsWith(QStringLiteral("running")));

    // Crowded: twelve all-reduces a millisecond apart leave room for some labels only; the bars
    // without one go in the row below the labels, never over one.
    std::vector<session::CollectiveEvent> crowded;
    for (int i = 0; i < 12; ++i)
      crowded.push_back(
          {i, "all_reduce", "sum", -1, "gloo", 64, "float32", {16}, 10.0 + i, 0.5, 12.0 + i, 0, 2, "bucket " + std::to_string(i)});
    t.setCollectives(crowded);
    int labelled = 0;
    double lowestLabelled = 0;
    for (const auto& b : t.bars())
      if (b.labelShown) ++labelled, lowestLabelled = std::max(lowestLabelled, b.rect.bottom());
    QVERIFY(labelled >= 4 && labelled < 12);
    for (const auto& b : t.bars())
      if (!b.labelShown) QVERIFY(b.rect.top() > lowestLabelled);

    t.setCollectives({});
    QVERIFY(t.bars().empty());
    QVERIFY(t.lanes().isEmpty());
    QVERIFY(!t.scene()->items().isEmpty());  // the explanation that there is nothing to show
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(CollectivesTimelineTest)
#include "collectives_timeline_test.moc"
