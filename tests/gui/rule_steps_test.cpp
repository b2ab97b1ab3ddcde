// Per-rule stepping in the Step tab (issue 17; viewers/rule_steps_panel.h): a real `kiln run` of a
// script whose simplify pass fires three rules (x * 1, x + 0, exp(log x)); in the studio the
// pass:simplify stage lists the three applications, and stepping to the second shows that one
// rule's name, where it is defined, the matched subgraph before and the replacement after, and
// marks it in the graph. Saves the tab at 1920x1080 as build/rule_steps.png.
#include "storage/store.h"
#include "viewers/graph_view.h"
#include "viewers/rule_steps_panel.h"
#include "viewers/stage_list_model.h"
#include "viewers/studio_window.h"
#include "viewers/text_pane.h"

#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::viewers;

namespace {

const char* const kScript =
    "import torch\n"
    "\n"
    "\n"
    "@torch.compile\n"
    "def f(x):\n"
    "    a = x * 1\n"
    "    b = a + 0\n"
    "    c = torch.exp(torch.log(b))\n"
    "    return torch.relu(c) * 2\n"
    "\n"
    "\n"
    "print(f(torch.ones(4)))\n";

QString kilnPath() { return QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("app/kiln")); }

}  // namespace

class RuleStepsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")).clear();
    QVERIFY(dir_.isValid());
    const QString script = dir_.filePath(QStringLiteral("rules.py")), db = dir_.filePath(QStringLiteral("rules.db"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kScript);
    f.close();
    QProcess run;
    run.start(kilnPath(), {QStringLiteral("run"), script, QStringLiteral("--db"), db});
    QVERIFY(run.waitForFinished(120000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    store_ = storage::Store::open(db.toStdString());
    window_ = std::make_unique<StudioWindow>(*store_, kilnPath());
    window_->resize(1920, 1080);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    window_->refreshSessions();
    QCOMPARE(store_->sessions().size(), size_t(1));
    QVERIFY(window_->selectSession(store_->sessions().front().id));
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    panel_ = window_->textPane()->ruleSteps();
    QVERIFY(panel_);
  }

  void otherStagesShowNoApplications() {
    QVERIFY(selectStageNamed("aten"));
    QVERIFY(panel_->isHidden());
    QCOMPARE(panel_->count(), 0);
  }

  void stepsToTheSecondApplication() {
    QVERIFY(selectStageNamed("pass:simplify"));
    window_->textPane()->setCurrentIndex(TextPane::Step);
    QVERIFY(!panel_->isHidden());
    QCOMPARE(panel_->count(), 3);
    QCOMPARE(panel_->current(), -1);
    QCOMPARE(panel_->list()->item(0)->text(), QStringLiteral("1  x * 1 -> x  @ mul"));
    QCOMPARE(panel_->list()->item(1)->text(), QStringLiteral("2  x + 0 -> x  @ add"));
    QVERIFY(panel_->list()->item(2)->text().startsWith(QStringLiteral("3  exp(log(x)) -> where(x < 0, nan, x)  @ exp")));

    // Next rule twice (the buttons' and Alt+Right's step): the second application.
    QVERIFY(panel_->step(1));
    QVERIFY(panel_->step(1));
    QCOMPARE(panel_->current(), 1);
    QCOMPARE(panel_->list()->currentRow(), 1);
    QCOMPARE(panel_->header(), QStringLiteral("2 of 3 · x + 0 -> x · defined at engine/passes/simplify.cpp, rule 9 of 12"));
    // Before: the root and its input (the mul the first application already replaced, as the
    // pass's input graph has it); after: the input the root's users read now.
    QCOMPARE(panel_->beforeText(), QStringLiteral("mul: \"f32[4]\" = aten.mul.Tensor(arg0_1, 1)\n"
                                                  "add: \"f32[4]\" = aten.add.Tensor(mul, 0)\n"));
    QCOMPARE(panel_->afterText(), QStringLiteral("arg0_1: \"f32[4]\"  (input)\n"));
    // In the graph: the removed root marked, the replacement selected.
    const ir::GraphChanges& marks = window_->graphView()->changes();
    QCOMPARE(marks.removed, std::vector<std::string>{"add"});
    QCOMPARE(marks.added.size(), size_t(1));
    QCOMPARE(marks.added[0], panel_->selected()->replacement);
    QVERIFY(panel_->grab().width() > 0);
    QVERIFY(window_->grab().save(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("rule_steps.png"))));

    // The third adds nodes: lt and where replace exp, consuming log.
    QVERIFY(panel_->step(1));
    QVERIFY(!panel_->step(1));  // the last one
    QCOMPARE(panel_->current(), 2);
    QVERIFY2(panel_->beforeText().contains(QStringLiteral("= aten.log.default(add)\n")), qPrintable(panel_->beforeText()));
    QVERIFY2(panel_->afterText().contains(QStringLiteral("= aten.lt.Tensor(arg0_1, 0)\n")), qPrintable(panel_->afterText()));
    QVERIFY2(panel_->afterText().contains(QStringLiteral("= aten.where.self(")), qPrintable(panel_->afterText()));
    QCOMPARE(window_->graphView()->changes().added.size(), size_t(2));
    QVERIFY(window_->grab().save(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("rule_steps_3.png"))));
    QVERIFY(panel_->step(-1));
    QCOMPARE(panel_->current(), 1);
  }

  void cleanupTestCase() { window_.reset(); }

 private:
  bool selectStageNamed(const std::string& name) {
    StageListModel* m = window_->stageModel();
    for (int row = 0; row < m->rowCount(); ++row)
      if (m->stageAt(row).stage == name) {
        if (!window_->selectStage(row)) return false;
        return QTest::qWaitFor([this] { return window_->isSettled(); }, 20000);
      }
    return false;
  }

  QTemporaryDir dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<StudioWindow> window_;
  RuleStepsPanel* panel_ = nullptr;
};

QTEST_MAIN(RuleStepsTest)
#include "rule_steps_test.moc"
