#include "viewers/source_marks.h"

#include <map>

namespace kiln::viewers {

QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles) {
  std::map<int, QStringList> byLine;
  for (const auto& r : recompiles)
    for (size_t i = 0; i < r.reasons.size() && i < r.lines.size(); ++i)
      if (r.lines[i] > 0)
        byLine[r.lines[i]] << QStringLiteral("recompile [%1]: %2").arg(QString::fromStdString(r.compileId), QString::fromStdString(r.reasons[i]));
  QList<LineMark> marks;
  for (const auto& [line, tips] : byLine) marks << LineMark{line, QColor(0xe0, 0x8e, 0x0b), tips.join(QLatin1Char('\n'))};
  return marks;
}

}  // namespace kiln::viewers
