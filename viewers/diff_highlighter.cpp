#include "viewers/diff_highlighter.h"

#include <QTextCharFormat>

namespace kiln::viewers {

DiffHighlighter::DiffHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

DiffHighlighter::Kind DiffHighlighter::classify(const QString& line) {
  if (line.startsWith(QLatin1String("session "))) return Kind::Summary;
  if (line.startsWith(QLatin1Char('['))) {
    // "[0/0] f: captured graph equal, ops 2 -> 2, kernels 1 -> 1" is equal; "differs",
    // "only in", a kernel difference are changes.
    const bool changed = line.contains(QLatin1String("differs")) || line.contains(QLatin1String(": only in "));
    return changed ? Kind::ChangedHeading : Kind::EqualHeading;
  }
  QStringView rest = QStringView(line).trimmed();
  if (rest.startsWith(QLatin1String("kernels "))) rest = rest.mid(8);
  if (rest.startsWith(QLatin1String("- ")) || rest == QLatin1String("-")) return Kind::Removed;
  if (rest.startsWith(QLatin1String("+ ")) || rest == QLatin1String("+")) return Kind::Added;
  // Unified-diff lines of a changed captured graph keep their own marker with no space after.
  if (rest.startsWith(QLatin1Char('-')) && !rest.startsWith(QLatin1String("---"))) return Kind::Removed;
  if (rest.startsWith(QLatin1Char('+')) && !rest.startsWith(QLatin1String("+++"))) return Kind::Added;
  return Kind::Plain;
}

void DiffHighlighter::highlightBlock(const QString& text) {
  QTextCharFormat f;
  switch (classify(text)) {
    case Kind::Removed:
      f.setBackground(QColor(0xfd, 0xe2, 0xe1));
      f.setForeground(QColor(0x86, 0x18, 0x1d));
      break;
    case Kind::Added:
      f.setBackground(QColor(0xe1, 0xf5, 0xe4));
      f.setForeground(QColor(0x11, 0x63, 0x29));
      break;
    case Kind::ChangedHeading:
      f.setFontWeight(QFont::Bold);
      f.setBackground(QColor(0xff, 0xf1, 0xc9));
      break;
    case Kind::EqualHeading:
    case Kind::Summary: f.setFontWeight(QFont::Bold); break;
    case Kind::Plain: return;
  }
  setFormat(0, static_cast<int>(text.size()), f);
}

}  // namespace kiln::viewers
