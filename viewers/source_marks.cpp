#include "viewers/source_marks.h"

#include <map>

namespace kiln::viewers {

int guardLine(const std::string& reason, const std::vector<storage::CompileRow>& compiles) {
  const size_t colon = reason.find(": ");
  if (colon == std::string::npos) return 0;
  const std::string cid = reason.substr(0, colon), what = reason.substr(colon + 2);
  for (const auto& c : compiles) {
    if (c.compileId != cid) continue;
    for (const auto& g : c.guards) {
      const std::string name = g.source.size() > 5 && g.source.rfind("L['", 0) == 0 ? g.source.substr(3, g.source.size() - 5) : "";
      const bool hit = g.line > 0 && (what.find(g.text) != std::string::npos || g.text.find(what) != std::string::npos ||
                                      (!name.empty() && what.rfind("tensor '" + name + "'", 0) == 0));
      if (hit) return g.line;
    }
  }
  return 0;
}

QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles, const std::vector<storage::CompileRow>& compiles) {
  std::map<int, QStringList> byLine;
  for (const auto& r : recompiles)
    for (const auto& reason : r.reasons)
      if (int line = guardLine(reason, compiles); line > 0)
        byLine[line] << QStringLiteral("recompile [%1]: %2").arg(QString::fromStdString(r.compileId), QString::fromStdString(reason));
  QList<LineMark> marks;
  for (const auto& [line, tips] : byLine) marks << LineMark{line, QColor(0xe0, 0x8e, 0x0b), tips.join(QLatin1Char('\n'))};
  return marks;
}

}  // namespace kiln::viewers
