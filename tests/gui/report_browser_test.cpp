// `kiln report` as a colleague sees it (issue 17): a real `kiln run` of a script with a graph break, a
// recompile and markup in its source, its report written, then opened in a real headless browser
// (Debian's chromium-headless-shell; tools/bootstrap.sh installs it). The DOM the browser built
// must hold every compile id, the break with its source line, the guards and the final graph's SVG,
// and the `<script>` in the source must have stayed text (no script element came out of it). The
// page's screenshot at 1920x1080 (build/tests/gui/report_browser.png, to look at) must be the
// page drawn: its size, ink over a real share of it, the title's dark pixels at the top left.
// Skips, saying why, where no headless Chromium is installed.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

const char* const kScript =
    "import torch\n"
    "\n"
    "# a <script>document.title = 'owned'</script> & 'quotes' in the source\n"
    "@torch.compile\n"
    "def f(x, n):\n"
    "    y = x * n\n"
    "    print('<b>not bold</b>')\n"
    "    return y.sin() + 1\n"
    "\n"
    "\n"
    "f(torch.ones(4), 1)\n"
    "f(torch.ones(4), 2)\n";

QString browser() {
  for (const char* name : {"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"}) {
    const QString p = QStandardPaths::findExecutable(QString::fromLatin1(name));
    if (!p.isEmpty()) return p;
  }
  return {};
}

// Runs `program args`, waiting at most `ms`; the exit code, or -1 when it did not finish.
int run(const QString& program, const QStringList& args, QByteArray* out = nullptr, int ms = 120000) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(ms)) {
    p.kill();
    p.waitForFinished();
    return -1;
  }
  if (out) *out = p.readAllStandardOutput();
  if (p.exitCode() != 0) qWarning("%s: %s", qPrintable(program), p.readAllStandardError().constData());
  return p.exitCode();
}

}  // namespace

class ReportBrowserTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    chromium_ = browser();
    if (chromium_.isEmpty())
      QSKIP("no headless Chromium on PATH (apt-get install chromium-headless-shell): the report is not opened in a browser");
    QVERIFY(dir_.isValid());
    const QString script = dir_.filePath(QStringLiteral("markup.py")), db = dir_.filePath(QStringLiteral("s.db"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kScript);
    f.close();
    QCOMPARE(run(QStringLiteral(KILN_CLI), {QStringLiteral("run"), script, QStringLiteral("--db"), db}), 0);
    page_ = dir_.filePath(QStringLiteral("report.html"));
    QCOMPARE(run(QStringLiteral(KILN_CLI),
                 {QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("-o"), page_, QStringLiteral("--db"), db}),
             0);
  }

  // What the browser parsed: the serialized DOM after the page loaded.
  void theBrowsersDomHoldsTheSessionAndNoInjectedScript() {
    QByteArray dom;
    QCOMPARE(run(chromium_, browserArgs() << QStringLiteral("--dump-dom") << pageUrl(), &dom), 0);
    QVERIFY2(dom.contains("<title>"), dom.left(400).constData());
    for (const char* id : {"[0/0]", "[1/0]"}) QVERIFY2(dom.contains(id), id);
    QVERIFY(dom.contains("Recompile"));
    QVERIFY(dom.contains("Graph break"));
    QVERIFY(dom.contains("markup.py:7"));  // the break's source line
    QVERIFY(dom.contains("<svg"));         // the final graph, drawn inline
    QVERIFY(dom.contains("Guards"));
    // The markup in the source and in the printed output stayed text in the parsed page.
    QVERIFY(dom.contains("&lt;script&gt;document.title"));
    QVERIFY(!dom.contains("<script>document.title"));
    QVERIFY(!dom.contains("<b>not bold</b>"));
    QVERIFY(!dom.contains("<title>owned</title>"));
  }

  // What the browser drew, at a real screen size.
  void theScreenshotIsThePageDrawn() {
    const QString png = QDir(QStringLiteral(KILN_BINARY_DIR)).filePath(QStringLiteral("tests/gui/report_browser.png"));
    QFile::remove(png);
    QCOMPARE(run(chromium_, browserArgs() << QStringLiteral("--window-size=1920,1080") << QStringLiteral("--hide-scrollbars")
                                          << (QStringLiteral("--screenshot=") + png) << pageUrl()),
             0);
    QImage shot(png);
    QVERIFY2(!shot.isNull(), qPrintable(png));
    QCOMPARE(shot.size(), QSize(1920, 1080));
    qint64 inked = 0, titleInk = 0;
    for (int y = 0; y < shot.height(); y += 2)
      for (int x = 0; x < shot.width(); x += 2) {
        const QRgb c = shot.pixel(x, y);
        if (qGray(c) < 200) ++inked;
        if (y < 80 && x < 1000 && qGray(c) < 80) ++titleInk;
      }
    const double share = double(inked) / (double(shot.width() / 2) * double(shot.height() / 2));
    QVERIFY2(share > 0.01, qPrintable(QStringLiteral("only %1 of the page is drawn").arg(share)));
    QVERIFY2(titleInk > 100, "no dark title text at the top of the page");
  }

 private:
  QStringList browserArgs() const {
    // As root (CI) Chromium refuses to start with its sandbox; its profile goes to the test's folder.
    return {QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
            QStringLiteral("--user-data-dir=") + dir_.filePath(QStringLiteral("profile"))};
  }
  QString pageUrl() const { return QStringLiteral("file://") + page_; }

  QTemporaryDir dir_;
  QString chromium_, page_;
};

QTEST_MAIN(ReportBrowserTest)
#include "report_browser_test.moc"
