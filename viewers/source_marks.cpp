#include "viewers/source_marks.h"

#include <QFileInfo>
#include <QRegularExpression>

#include <map>

namespace kiln::viewers {

QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles) {
  std::map<int, QStringList> byLine;
  for (const auto& r : recompiles)
    for (size_t i = 0; i < r.reasons.size() && i < r.lines.size(); ++i)
      if (r.lines[i] > 0)
        byLine[r.lines[i]]
            << QStringLiteral("recompile [%1]: %2").arg(QString::fromStdString(r.compileId), QString::fromStdString(r.reasons[i]));
  QList<LineMark> marks;
  for (const auto& [line, tips] : byLine) marks << LineMark{line, QColor(0xe0, 0x8e, 0x0b), tips.join(QLatin1Char('\n'))};
  return marks;
}

LineMark errorMark(const QString& traceback, const QString& scriptPath) {
  static const QRegularExpression frame(QString::fromLatin1(R"re(^\s*File "([^"]*)", line (\d+))re"));
  const QString base = QFileInfo(scriptPath).fileName();
  LineMark mark{0, QColor(0xb0, 0x00, 0x40), QString()};
  const QStringList lines = traceback.split(QLatin1Char('\n'));
  for (const QString& l : lines) {
    const QRegularExpressionMatch m = frame.match(l);
    if (m.hasMatch() && (m.captured(1) == scriptPath || QFileInfo(m.captured(1)).fileName() == base)) mark.line = m.captured(2).toInt();
  }
  // The exception is the traceback's last line that is not blank.
  for (auto it = lines.crbegin(); it != lines.crend(); ++it)
    if (!it->trimmed().isEmpty()) {
      mark.tooltip = QObject::tr("raised here: %1").arg(it->trimmed());
      break;
    }
  return mark;
}

}  // namespace kiln::viewers
