// ScriptRunner: runs `kiln run SCRIPT --db PATH` in a child process, so a script (and the
// compiler) never runs inside the studio. The CLI prints the new session's id as a line
// `session N`; the last such line on stdout names the session to show.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>

namespace kiln::viewers {

class ScriptRunner : public QObject {
  Q_OBJECT

 public:
  static constexpr int kProfileRuns = 5;  // kiln run --profile N for the scripts it runs

  // `kilnPath` is the `kiln` executable; the app decides where it is.
  explicit ScriptRunner(QString kilnPath, QObject* parent = nullptr);
  ~ScriptRunner() override;

  const QString& kilnPath() const { return kilnPath_; }
  bool isRunning() const { return process_ != nullptr; }
  const QString& script() const { return script_; }
  // kiln run --verify for the runs that follow: every compiled graph checked against eager.
  void setVerify(bool on) { verify_ = on; }
  bool verify() const { return verify_; }
  // Starts a run; false (and nothing emitted) when one is already running.
  bool run(const QString& script, const QString& dbPath);
  // Starts `kiln import PATH` (a TORCH_TRACE log or a folder of them) into the store, reported
  // like a run; false when something is already running.
  bool importTrace(const QString& path, const QString& dbPath);
  void cancel();

  // The id in the last `session N` line of `out` (kiln import: `session N: ...`), 0 when there
  // is none.
  static qint64 parseSessionId(const QString& out);
  // A `kiln-progress: PERCENT WHAT` line of kiln run --progress: true with its parts.
  static bool parseProgress(const QString& line, int* percent, QString* what);

 signals:
  void progress(const QString& message);
  // How far the script has got (0-100: its top-level statements), from kiln run --progress.
  void percent(int value);
  // sessionId > 0 when the run stored a session (even one that ended with a Python error,
  // which `error` then describes); sessionId == 0 with `error` when nothing was stored.
  void finished(qint64 sessionId, const QString& error);

 private:
  // Starts `kiln ARGS` about `subject` (a script or a log), announcing it with `message` (%1: its name).
  void start(const QString& subject, const QStringList& args, const QString& message);
  void onReadyRead();
  QString stderrLine_;  // an incomplete stderr line, until its newline arrives
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onError(QProcess::ProcessError error);
  void finish(qint64 sessionId, const QString& error);

  QString kilnPath_;
  QString script_;
  QProcess* process_ = nullptr;
  QString stdout_;
  QString stderr_;
  bool cancelled_ = false;
  bool verify_ = false;
};

}  // namespace kiln::viewers
