#include "viewers/script_runner.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace kiln::viewers {
namespace {

constexpr int kErrorTailChars = 4000;  // enough for a traceback, not a whole log

QString lastLine(const QString& text) {
  const QString t = text.trimmed();
  return t.mid(t.lastIndexOf(QLatin1Char('\n')) + 1);
}

}  // namespace

ScriptRunner::ScriptRunner(QString kilnPath, QObject* parent) : QObject(parent), kilnPath_(std::move(kilnPath)) {}

ScriptRunner::~ScriptRunner() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

bool ScriptRunner::run(const QString& script, const QString& dbPath) {
  if (process_) return false;
  // Profiled (a few runs of each compiled graph after the script) so the Timings dock can show
  // run and kernel times for it.
  QStringList args{QStringLiteral("run"),       QFileInfo(script).absoluteFilePath(), QStringLiteral("--db"),      dbPath,
                   QStringLiteral("--profile"), QString::number(kProfileRuns),        QStringLiteral("--progress")};
  if (verify_) args << QStringLiteral("--verify");
  start(script, args, tr("Running %1…"));
  return true;
}

bool ScriptRunner::importTrace(const QString& path, const QString& dbPath) {
  if (process_) return false;
  start(path, {QStringLiteral("import"), QFileInfo(path).absoluteFilePath(), QStringLiteral("--db"), dbPath, QStringLiteral("--progress")},
        tr("Importing %1…"));
  return true;
}

void ScriptRunner::start(const QString& subject, const QStringList& args, const QString& message) {
  script_ = QFileInfo(subject).absoluteFilePath();
  stdout_.clear();
  stderr_.clear();
  cancelled_ = false;
  const QFileInfo kiln(kilnPath_);
  if (kilnPath_.isEmpty() || !kiln.isFile() || !kiln.isExecutable()) {
    // Reported asynchronously like every other outcome, so callers handle one path.
    const QString error = tr("The kiln command line was not found (looked for \"%1\"); build the `kiln` target "
                             "or pass --kiln PATH.")
                              .arg(kilnPath_);
    QMetaObject::invokeMethod(
        this, [this, error] { emit finished(0, error); }, Qt::QueuedConnection);
    return;
  }
  process_ = new QProcess(this);
  connect(process_, &QProcess::readyReadStandardOutput, this, &ScriptRunner::onReadyRead);
  connect(process_, &QProcess::readyReadStandardError, this, &ScriptRunner::onReadyRead);
  connect(process_, &QProcess::finished, this, &ScriptRunner::onFinished);
  connect(process_, &QProcess::errorOccurred, this, &ScriptRunner::onError);
  emit progress(message.arg(QFileInfo(script_).fileName()));
  stderrLine_.clear();
  process_->start(kilnPath_, args);
}

void ScriptRunner::cancel() {
  if (!process_) return;
  cancelled_ = true;
  process_->kill();  // onFinished reports it
}

qint64 ScriptRunner::parseSessionId(const QString& out) {
  static const QRegularExpression re(QStringLiteral("^session (\\d+)(:.*)?\\s*$"), QRegularExpression::MultilineOption);
  qint64 id = 0;
  for (auto it = re.globalMatch(out); it.hasNext();) id = it.next().captured(1).toLongLong();
  return id;
}

bool ScriptRunner::parseProgress(const QString& line, int* percent, QString* what) {
  static const QRegularExpression re(QStringLiteral("^kiln-progress: (\\d{1,3}) (.*)$"));
  const auto m = re.match(line);
  if (!m.hasMatch() || m.captured(1).toInt() > 100) return false;
  *percent = m.captured(1).toInt();
  *what = m.captured(2);
  return true;
}

void ScriptRunner::onReadyRead() {
  const QString out = QString::fromUtf8(process_->readAllStandardOutput());
  // Progress lines are taken out of stderr; the rest is kept for the error report.
  QString err;
  const QStringList lines = (stderrLine_ + QString::fromUtf8(process_->readAllStandardError())).split(QLatin1Char('\n'));
  stderrLine_ = lines.last();
  QString status;
  for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
    int pct = 0;
    QString what;
    if (parseProgress(lines[i], &pct, &what)) {
      emit percent(pct);
      status = what;
    } else {
      err += lines[i] + QLatin1Char('\n');
    }
  }
  stdout_ += out;
  stderr_ += err;
  const QString line = !status.isEmpty() ? status : lastLine(out.isEmpty() ? err : out);
  if (!line.isEmpty()) emit progress(QFileInfo(script_).fileName() + QStringLiteral(": ") + line);
}

void ScriptRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
  onReadyRead();
  stderr_ += stderrLine_;  // a last line without a newline
  const qint64 id = parseSessionId(stdout_);
  QString error;
  if (cancelled_) error = tr("Run of %1 stopped.").arg(script_);
  else if (status == QProcess::CrashExit) error = tr("kiln crashed while running %1.").arg(script_);
  // kiln run --verify exits with 3 when a compiled graph differed from eager: the session is
  // stored and its Verify tab says where; that is a finding, not a failed run.
  else if (exitCode == 3 && verify_ && id > 0) error.clear();
  else if (exitCode != 0) error = tr("kiln run exited with code %1:\n%2").arg(exitCode).arg(stderr_.right(kErrorTailChars).trimmed());
  else if (id == 0) error = tr("kiln run finished but printed no session id.");
  finish(id, error);
}

void ScriptRunner::onError(QProcess::ProcessError error) {
  // Only a failed start skips finished(); every other error is followed by onFinished.
  if (error == QProcess::FailedToStart) finish(0, tr("Could not start %1: %2").arg(kilnPath_, process_->errorString()));
}

void ScriptRunner::finish(qint64 sessionId, const QString& error) {
  process_->deleteLater();
  process_ = nullptr;
  emit finished(sessionId, error);
}

}  // namespace kiln::viewers
