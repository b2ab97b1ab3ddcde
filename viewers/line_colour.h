// One colour per source line, the same in every pane (source, graph nodes, kernel texts), as
// Compiler Explorer colours a line and everything generated from it: light hues spread by the
// golden angle so neighbouring lines differ.
#pragma once

#include <QColor>
#include <QString>

#include <map>

namespace kiln::viewers {

inline QColor lineColour(int line) {
  const int hue = static_cast<int>((static_cast<long long>(line) * 137) % 360);
  return QColor::fromHsl(hue, 200, 215);
}

// The source line of a kernel text line through the `@N` node reference at its end (kernel IR,
// an annotated CUDA / PTX / SASS line): `nodeLines` maps node ids (a backward kernel's as -1 - id)
// to script lines; 0 when the line names no node.
inline int sourceLineOfNodeRef(const QString& text, bool backward, const std::map<int, int>& nodeLines) {
  const qsizetype at = text.lastIndexOf(QStringLiteral(" @"));
  if (at < 0) return 0;
  bool ok = false;
  const int node = text.mid(at + 2).trimmed().toInt(&ok);
  auto it = ok ? nodeLines.find(backward ? -1 - node : node) : nodeLines.end();
  return it == nodeLines.end() ? 0 : it->second;
}

}  // namespace kiln::viewers
