// The kernel pane's CUDA, PTX and SASS tabs (viewers/gpu_kernel_views.h) in the studio window on
// Qt's offscreen platform: for a CPU session they are made when first looked at, by `kiln cuda`
// in a worker, and tinted per source line through the PTX `.loc` lines; a session that recorded
// them (it ran on a GPU) shows them at once. Needs NVRTC for the made ones (skips without it).
#include "sample_session.h"
#include "viewers/gpu_kernel_views.h"
#include "viewers/line_colour.h"
#include "viewers/source_view.h"
#include "viewers/studio_window.h"
#include "viewers/text_pane.h"

#include <QDir>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>

using namespace kiln;
using namespace kiln::viewers;

class GpuViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings(QStringLiteral("Kiln"), QStringLiteral("kiln-studio")).clear();
    QVERIFY(dir_.isValid());
    GpuKernelViews::setKilnPath(QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("app/kiln")));
    sample_ = testing::writeSampleSession(dir_.filePath(QStringLiteral("studio.db")).toStdString());
    window_ = std::make_unique<StudioWindow>(*sample_.store, QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("app/kiln")));
    window_->resize(1920, 1080);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    window_->refreshSessions();
    QVERIFY(window_->selectSession(sample_.sessionId));
    QVERIFY(window_->selectStage(3));  // [0/0] fused, with kernel_0 (sin, mul, relu)
    QTRY_VERIFY_WITH_TIMEOUT(window_->isSettled(), 20000);
    views_ = window_->textPane()->findChild<GpuKernelViews*>();
    QVERIFY(views_);
  }

  void ptxIsMadeWhenLookedAtAndTintedPerLine() {
    TextPane* pane = window_->textPane();
    QVERIFY(pane->isTabVisible(views_->tabIndex(GpuKernelViews::Ptx)));
    QVERIFY(views_->editor(GpuKernelViews::Ptx)->toPlainText().isEmpty());  // nothing compiled until looked at
    pane->setCurrentIndex(views_->tabIndex(GpuKernelViews::Ptx));
    QTRY_VERIFY_WITH_TIMEOUT(!views_->status().startsWith(QStringLiteral("Compiling")), 60000);
    if (views_->status().contains(QStringLiteral("NVRTC"))) QSKIP(qPrintable(views_->status()));
    QVERIFY2(views_->status().startsWith(QStringLiteral("Made here")), qPrintable(views_->status()));
    const QString ptx = views_->editor(GpuKernelViews::Ptx)->toPlainText();
    QVERIFY2(ptx.contains(QStringLiteral(".entry kiln_kernel_0(")), qPrintable(ptx.left(400)));
    QVERIFY2(ptx.startsWith(QStringLiteral("──── kernel_0 (pointwise) · grid 1x1, block 256, thread")), qPrintable(ptx.left(200)));
    // (A stack frame may come between: the four sinf calls of a four-points-per-thread kernel.)
    const QString header = ptx.section(QLatin1Char('\n'), 0, 0);
    QVERIFY2(header.contains(QStringLiteral(" registers · 0 B shared · ")) &&
                 header.contains(QStringLiteral(" · spills 0 B stored, 0 B loaded")),
             qPrintable(header));
    QVERIFY(views_->editor(GpuKernelViews::Cuda)->toPlainText().contains(QStringLiteral("extern \"C\" __global__ void kiln_kernel_0(")));

    // The sin line (nodes 1, 2): the header, and the .loc lines of those nodes with the code after them.
    emit window_->sourceView()->lineSelected(testing::kSinLine);
    const auto sels = views_->editor(GpuKernelViews::Ptx)->extraSelections();
    QVERIFY(sels.size() > 3);
    QCOMPARE(sels.first().format.background().color(), lineColour(testing::kSinLine));
    QVERIFY(sels.first().cursor.block().text().startsWith(QStringLiteral("──── kernel_0")));
    int locs = 0, code = 0;
    for (qsizetype i = 1; i < sels.size(); ++i) {
      const QString text = sels[i].cursor.block().text();
      if (text.trimmed().startsWith(QStringLiteral(".loc"))) {
        ++locs;
        QVERIFY2(text.endsWith(QStringLiteral(" @1")) || text.endsWith(QStringLiteral(" @2")), qPrintable(text));
      } else {
        ++code;
      }
    }
    QVERIFY(locs > 0);
    QVERIFY(code > 0);
    // The relu line (node 3) tints other PTX lines; CUDA lines end with its node.
    emit window_->sourceView()->lineSelected(testing::kReluLine);
    const auto relu = views_->editor(GpuKernelViews::Ptx)->extraSelections();
    QVERIFY(relu.size() > 1);
    for (qsizetype i = 1; i < relu.size(); ++i) {
      const QString text = relu[i].cursor.block().text();
      if (text.trimmed().startsWith(QStringLiteral(".loc"))) QVERIFY2(text.endsWith(QStringLiteral(" @3")), qPrintable(text));
    }
    const auto cuda = views_->editor(GpuKernelViews::Cuda)->extraSelections();
    QVERIFY(cuda.size() > 1);
    for (qsizetype i = 1; i < cuda.size(); ++i) QVERIFY(cuda[i].cursor.block().text().endsWith(QStringLiteral("// @3")));
    // SASS: nvdisasm's, or "(none)" with the reason in the status.
    const QString sass = views_->editor(GpuKernelViews::Sass)->toPlainText();
    if (sass.contains(QStringLiteral("(none)")))
      QVERIFY2(views_->status().contains(QStringLiteral("nvdisasm not found")), qPrintable(views_->status()));
    else QVERIFY(sass.contains(QStringLiteral("//## File")));

    emit window_->sourceView()->lineSelected(testing::kSinLine);
    const QString path = QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/studio_ptx.png"));
    QVERIFY(window_->grab().save(path, "PNG"));
  }

  // The hover link reaches the GPU tabs both ways: the mouse on a PTX line of the relu lights
  // that source line in the script and the graph; hovering the relu line elsewhere draws its
  // PTX lines darker over the selected sin line's tint, without scrolling.
  void hoverLinksThePtxTab() {
    TextPane* pane = window_->textPane();
    pane->setCurrentIndex(views_->tabIndex(GpuKernelViews::Ptx));
    QTRY_VERIFY_WITH_TIMEOUT(!views_->status().startsWith(QStringLiteral("Compiling")), 60000);
    if (views_->status().contains(QStringLiteral("NVRTC"))) QSKIP(qPrintable(views_->status()));
    emit window_->sourceView()->lineSelected(testing::kSinLine);
    QPlainTextEdit* ptx = views_->editor(GpuKernelViews::Ptx);
    // A code line under a `.loc ... @3` line (relu): its source line is relu's.
    int reluCode = -1;
    for (QTextBlock b = ptx->document()->begin(); b.isValid() && reluCode < 0; b = b.next())
      if (b.text().trimmed().startsWith(QStringLiteral(".loc")) && b.text().endsWith(QStringLiteral(" @3")) && b.next().isValid() &&
          !b.next().text().trimmed().startsWith(QStringLiteral(".loc")))
        reluCode = b.next().blockNumber();
    QVERIFY(reluCode > 0);
    QCOMPARE(views_->sourceLineAt(GpuKernelViews::Ptx, reluCode), testing::kReluLine);
    ptx->verticalScrollBar()->setValue(std::max(0, reluCode - 5));
    const QRect r = ptx->cursorRect(QTextCursor(ptx->document()->findBlockByNumber(reluCode)));
    QTest::mouseMove(ptx->viewport(), r.center());
    QTRY_COMPARE(window_->sourceView()->hoveredLine(), testing::kReluLine);
    QCOMPARE(views_->hoveredLine(), testing::kReluLine);
    // Drawn darker over the sin tint, on relu's lines.
    const auto sels = ptx->extraSelections();
    int darker = 0;
    for (const auto& sel : sels)
      if (sel.format.background().color() == lineColour(testing::kReluLine).darker(118)) {
        ++darker;
        QVERIFY2(views_->sourceLineAt(GpuKernelViews::Ptx, sel.cursor.blockNumber()) == testing::kReluLine ||
                     sel.cursor.block().text().startsWith(QStringLiteral("────")) ||
                     sel.cursor.block().text().trimmed().startsWith(QStringLiteral(".loc")),
                 qPrintable(sel.cursor.block().text()));
      }
    QVERIFY(darker > 1);
    bool sinStill = false;
    for (const auto& sel : sels) sinStill = sinStill || sel.format.background().color() == lineColour(testing::kSinLine);
    QVERIFY(sinStill);
    // The mouse leaves: nothing hovered, the sin tint alone.
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(ptx->viewport(), &leave);
    QTRY_COMPARE(views_->hoveredLine(), 0);
    for (const auto& sel : ptx->extraSelections()) QVERIFY(sel.format.background().color() != lineColour(testing::kReluLine).darker(118));
  }

  // Shown again (stepping through the compile's stages), the same kernels are not compiled again.
  void madeOncePerKernelIr() {
    TextPane pane;
    auto* views = pane.findChild<GpuKernelViews*>();
    const auto rows = sample_.store->kernels(sample_.sessionId, "0/0");
    QCOMPARE(rows.size(), size_t(1));
    pane.setKernels(rows, {{1, testing::kSinLine}});
    pane.setCurrentIndex(views->tabIndex(GpuKernelViews::Sass));
    QTRY_VERIFY_WITH_TIMEOUT(!views->status().startsWith(QStringLiteral("Compiling")), 60000);
    if (!views->status().startsWith(QStringLiteral("Made here"))) QSKIP(qPrintable(views->status()));
    pane.setKernels(rows, {{1, testing::kSinLine}});
    QVERIFY2(views->status().startsWith(QStringLiteral("Made here")), qPrintable(views->status()));  // not "Compiling…"
    QVERIFY(views->editor(GpuKernelViews::Ptx)->toPlainText().contains(QStringLiteral(".entry kiln_kernel_0(")));
  }

  // A kernel that ran on a GPU carries its texts: shown at once, without kiln, and tinted.
  void recordedTextsAreShownAtOnce() {
    TextPane pane;
    auto* views = pane.findChild<GpuKernelViews*>();
    QVERIFY(views);
    storage::KernelRow k;
    k.name = "k0";
    k.kind = "pointwise";
    k.kernelIr = "kernel k0 pointwise\nend\n";
    k.source = "// kernel k0 (pointwise)\n  const float v0 = b0_x[i0];  // @7\n";
    k.sourceLines = {12};
    k.gpu.arch = "sm_90";
    k.gpu.ptx = ".visible .entry kiln_k0(\n\t.loc\t1 30 3  // cuda line 2 @7\n\tld.global.f32 \t%f1, [%rd4];\n}\n";
    // An inlined group: the frame outside the kernel (a CUDA header) keeps the group's line.
    k.gpu.sass =
        "\t//## File \"kiln_kernels.cu\", line 30  // cuda line 2 @7\n\t//## File \"/usr/include/crt/math.hpp\", line 4\n"
        "        /*0000*/                   LDG.E R0, desc[UR4][R2.64] ;\n\t//## File \"kiln_kernels.cu\", line 31\n"
        "        /*0010*/                   EXIT ;\n";
    k.gpu.launch = "grid 1x1, block 32, thread";
    k.gpu.registers = 8;
    k.gpu.sharedBytes = 0;
    k.gpu.stackBytes = 0;
    k.gpu.spillStores = 0;
    k.gpu.spillLoads = 0;
    pane.setKernels({k}, {{7, 12}});
    QVERIFY(views->status().startsWith(QStringLiteral("Recorded when these kernels ran on the GPU (sm_90)")));
    // Filled when shown or asked for: SASS stays empty while the PTX tab is shown.
    QVERIFY(!views->isFilled(GpuKernelViews::Ptx));
    pane.setCurrentIndex(views->tabIndex(GpuKernelViews::Ptx));
    QVERIFY(views->isFilled(GpuKernelViews::Ptx));
    QVERIFY(!views->isFilled(GpuKernelViews::Sass));
    QVERIFY(pane.widget(views->tabIndex(GpuKernelViews::Sass))->findChild<QPlainTextEdit*>()->toPlainText().isEmpty());
    const QString ptx = views->editor(GpuKernelViews::Ptx)->toPlainText();
    QVERIFY2(ptx.startsWith(QStringLiteral("──── k0 (pointwise) · grid 1x1, block 32, thread · 8 registers · 0 B shared")),
             qPrintable(ptx));
    pane.highlightSourceLine(12);
    const auto sels = views->editor(GpuKernelViews::Ptx)->extraSelections();
    QCOMPARE(sels.size(), 1 + 3);  // header, the .loc, the load, the closing brace after it
    QCOMPARE(sels[2].cursor.block().text(), QStringLiteral("\tld.global.f32 \t%f1, [%rd4];"));
    const auto sass = views->editor(GpuKernelViews::Sass)->extraSelections();
    QCOMPARE(sass.size(), 1 + 3);  // header, both frames, the load; not the EXIT after line 31 (no node)
    QVERIFY(sass[3].cursor.block().text().contains(QStringLiteral("LDG.E")));
    pane.setKernels({}, {});
    QVERIFY(!pane.isTabVisible(views->tabIndex(GpuKernelViews::Ptx)));
  }

  void cleanupTestCase() { window_.reset(); }

 private:
  QTemporaryDir dir_;
  testing::SampleSession sample_;
  std::unique_ptr<StudioWindow> window_;
  GpuKernelViews* views_ = nullptr;
};

QTEST_MAIN(GpuViewsTest)
#include "gpu_views_test.moc"
