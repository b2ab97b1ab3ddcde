#include "viewers/source_marks.h"

#include <map>

namespace kiln::viewers {

// The line of the guard each recompile reason ("0/0: n == 1", "0/0: tensor 'x' dtype mismatch")
// says failed, marked amber with the reasons, as the source pane marks graph breaks in red.
QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles, const std::vector<storage::CompileRow>& compiles) {
  std::map<int, QStringList> byLine;
  for (const auto& r : recompiles)
    for (const auto& reason : r.reasons) {
      const size_t colon = reason.find(": ");
      if (colon == std::string::npos) continue;
      const std::string cid = reason.substr(0, colon), what = reason.substr(colon + 2);
      for (const auto& c : compiles) {
        if (c.compileId != cid) continue;
        for (const auto& g : c.guards) {
          const std::string name = g.source.size() > 5 && g.source.rfind("L['", 0) == 0 ? g.source.substr(3, g.source.size() - 5) : "";
          const bool hit = g.line > 0 && (what.find(g.text) != std::string::npos || g.text.find(what) != std::string::npos ||
                                          (!name.empty() && what.rfind("tensor '" + name + "'", 0) == 0));
          if (hit) {
            byLine[g.line] << QStringLiteral("recompile [%1]: %2").arg(QString::fromStdString(r.compileId), QString::fromStdString(reason));
            break;
          }
        }
      }
    }
  QList<LineMark> marks;
  for (const auto& [line, tips] : byLine) marks << LineMark{line, QColor(0xe0, 0x8e, 0x0b), tips.join(QLatin1Char('\n'))};
  return marks;
}

}  // namespace kiln::viewers
