// One colour per source line, the same in every pane (source, graph nodes, kernel texts), as
// Compiler Explorer colours a line and everything generated from it: light hues spread by the
// golden angle so neighbouring lines differ.
#pragma once

#include <QColor>

namespace kiln::viewers {

inline QColor lineColour(int line) {
  const int hue = static_cast<int>((static_cast<long long>(line) * 137) % 360);
  return QColor::fromHsl(hue, 200, 215);
}

}  // namespace kiln::viewers
