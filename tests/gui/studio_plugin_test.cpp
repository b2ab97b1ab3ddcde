// Studio plugins (plugin_host/kiln_studio_plugin.h) on Qt's offscreen platform: kiln runs a
// script with the silu_fusion pass plugin (from KILN_PLUGIN_PATH, which also holds
// silu_fusion.studio.so: kiln must leave that one alone), then the studio window, with
// silu_fusion.studio.so loaded, shows the plugin's view for the plugin's stage and Kiln's own
// `rules` view through the same registry; and a studio plugin built for another API version is
// refused with one line, by the loader, by `kiln-studio --plugin` (exit 1) and, from
// KILN_PLUGIN_PATH, reported while the studio starts anyway.
#include "plugin_host/kiln_studio_plugin.h"
#include "plugin_host/studio_loader.h"
#include "viewers/stage_list_model.h"
#include "viewers/stage_views.h"
#include "viewers/studio_window.h"
#include "viewers/text_pane.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace kiln;
using namespace kiln::viewers;

namespace {

const QString kPluginDir = QStringLiteral(KILN_PLUGIN_DIR);
const QString kStale = QStringLiteral(KILN_TEST_PLUGIN_DIR "/stale_view.studio.so");

// Runs `program` with `args`, KILN_PLUGIN_PATH set to `pluginPath`; exit code, stdout and stderr.
struct Ran {
  int exitCode = -1;
  QString out, err;
};
Ran run(const QString& program, const QStringList& args, const QString& pluginPath) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  // Qt warns on stderr without one; stderr is compared whole below.
  static QTemporaryDir runtimeDir;
  env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtimeDir.path());
  if (pluginPath.isEmpty()) env.remove(QStringLiteral("KILN_PLUGIN_PATH"));
  else env.insert(QStringLiteral("KILN_PLUGIN_PATH"), pluginPath);
  p.setProcessEnvironment(env);
  p.start(program, args);
  if (!p.waitForFinished(180'000)) return {};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

int tabOfView(const TextPane* pane, const QString& id) {
  for (int i = 0; i < pane->count(); ++i)
    if (stageViewIdAt(pane, i) == id) return i;
  return -1;
}

}  // namespace

class StudioPluginTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }

  void showsThePluginsViewForItsStage() {
    // Two products x * sigmoid(x); the second sigmoid is also returned, so it stays.
    const QString prog = dir_.filePath(QStringLiteral("silu.py")), db = dir_.filePath(QStringLiteral("silu.db"));
    QFile f(prog);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "import torch\n"
        "@torch.compile\n"
        "def f(x, y):\n"
        "    s = torch.sigmoid(y)\n"
        "    return x * torch.sigmoid(x) + y * s, s\n"
        "print(f(torch.linspace(-3.0, 3.0, 7), torch.linspace(0.0, 1.0, 7)))\n");
    f.close();
    const Ran kiln = run(QStringLiteral(KILN_CLI), {QStringLiteral("run"), prog, QStringLiteral("--db"), db}, kPluginDir);
    QVERIFY2(kiln.exitCode == 0, qPrintable(kiln.err));
    QVERIFY2(kiln.err.isEmpty(), qPrintable(kiln.err));  // silu_fusion.studio.so on the path is not kiln's

    const plugin::LoadedStudioPlugin loaded =
        plugin::loadStudioPlugin((kPluginDir + QStringLiteral("/silu_fusion.studio.so")).toStdString());
    QCOMPARE(QString::fromStdString(loaded.name), QStringLiteral("silu_fusion_view"));
    QCOMPARE(loaded.registered, std::vector<std::string>{"stage view silu_fusion (pass:silu_fusion)"});
    QVERIFY(StageViewRegistry::global().contains("rules"));  // Kiln's own, in the same registry

    auto store = storage::Store::open(db.toStdString());
    StudioWindow window(*store, QStringLiteral(KILN_CLI));
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.selectNewestSession();
    auto rowOf = [&](const std::string& stage) {
      for (int r = 0; r < window.stageModel()->rowCount(); ++r)
        if (!window.stageModel()->failureAt(r) && window.stageModel()->stageAt(r).stage == stage) return r;
      return -1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(window.isSettled() && rowOf("pass:silu_fusion") >= 0, 20000);

    QVERIFY(window.selectStage(rowOf("pass:silu_fusion")));
    QTRY_VERIFY_WITH_TIMEOUT(window.isSettled() && tabOfView(window.textPane(), QStringLiteral("silu_fusion")) >= 0, 20000);
    TextPane* pane = window.textPane();
    const int tab = tabOfView(pane, QStringLiteral("silu_fusion"));
    QCOMPARE(pane->tabText(tab), QStringLiteral("SiLU fusion"));
    QVERIFY(tabOfView(pane, QStringLiteral("rules")) >= 0);
    auto* table = pane->widget(tab)->findChild<QTableWidget*>(QStringLiteral("siluFusionRewrites"));
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 2);
    QStringList became, sigmoids;
    for (int r = 0; r < 2; ++r) {
      QVERIFY(table->item(r, 0)->text().endsWith(QStringLiteral("-> silu(x)")));
      became << table->item(r, 4)->text();
      sigmoids << table->item(r, 3)->text();
      QCOMPARE(table->item(r, 5)->text(), QStringLiteral("f32[7]"));
    }
    QVERIFY2(became.filter(QStringLiteral(" = silu(")).size() == 2, qPrintable(became.join(QStringLiteral(" | "))));
    QVERIFY2(sigmoids.filter(QStringLiteral("(removed)")).size() == 1 && sigmoids.filter(QStringLiteral("(kept")).size() == 1,
             qPrintable(sigmoids.join(QStringLiteral(" | "))));

    // Shown, it stays shown while stepping to stages that have it; other stages do not get it.
    pane->setCurrentIndex(tab);
    QVERIFY(window.selectStage(rowOf("aten")));
    QTRY_VERIFY_WITH_TIMEOUT(window.isSettled() && window.currentStageId() == window.stageModel()->stageAt(rowOf("aten")).id, 20000);
    QTRY_COMPARE(tabOfView(pane, QStringLiteral("silu_fusion")), -1);
    QVERIFY(window.selectStage(rowOf("pass:silu_fusion")));
    QTRY_VERIFY_WITH_TIMEOUT(window.isSettled() && tabOfView(pane, QStringLiteral("silu_fusion")) >= 0, 20000);
  }

  void refusesAStaleStudioPlugin() {
    const QString canonical = QString::fromStdString(std::filesystem::canonical(kStale.toStdString()).string());
    const QString line = QStringLiteral(
                             "plugin %1: built for Kiln studio plugin API version %2, this kiln-studio has version %3 (rebuild it "
                             "against this Kiln's headers)")
                             .arg(canonical)
                             .arg(KILN_STUDIO_PLUGIN_API_VERSION + 998)
                             .arg(KILN_STUDIO_PLUGIN_API_VERSION);
    try {
      plugin::loadStudioPlugin(kStale.toStdString());
      QFAIL("a stale studio plugin was loaded");
    } catch (const plugin::PluginError& e) { QCOMPARE(QString::fromUtf8(e.what()), line); }
    QVERIFY(!StageViewRegistry::global().contains("stale"));

    const QString db = dir_.filePath(QStringLiteral("empty.db")), png = dir_.filePath(QStringLiteral("shot.png"));
    // Named on the command line: one line and exit 1, before any window.
    Ran studio = run(QStringLiteral(KILN_STUDIO), {QStringLiteral("--db"), db, QStringLiteral("--plugin"), kStale}, {});
    QCOMPARE(studio.exitCode, 1);
    QCOMPARE(studio.err, QStringLiteral("kiln-studio: ") + line + QLatin1Char('\n'));
    // On KILN_PLUGIN_PATH: reported, and the studio opens anyway (the screenshot is written).
    studio = run(QStringLiteral(KILN_STUDIO), {QStringLiteral("--db"), db, QStringLiteral("--screenshot"), png}, kStale);
    QCOMPARE(studio.exitCode, 0);
    QVERIFY2(studio.err.contains(QStringLiteral("kiln-studio: ") + line + QLatin1Char('\n')), qPrintable(studio.err));
    QVERIFY(QFile::exists(png));
    // kiln refuses a studio plugin named by --plugin, and skips one on KILN_PLUGIN_PATH.
    const Ran kiln = run(QStringLiteral(KILN_CLI), {QStringLiteral("--plugin"), kStale, QStringLiteral("plugins")}, {});
    QCOMPARE(kiln.exitCode, 1);
    QCOMPARE(kiln.err, QStringLiteral("kiln: plugin %1: is a studio plugin: kiln-studio --plugin loads it\n").arg(canonical));
    const Ran listed = run(QStringLiteral(KILN_CLI), {QStringLiteral("plugins")}, kStale);
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(listed.out.contains(QStringLiteral("studio plugin %1 (stage views; kiln-studio loads it)\n").arg(canonical)),
             qPrintable(listed.out));
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(StudioPluginTest)
#include "studio_plugin_test.moc"
