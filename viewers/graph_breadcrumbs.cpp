#include "viewers/graph_breadcrumbs.h"

#include <QStringList>

namespace kiln::viewers {

QString breadcrumbsHtml(const std::string& modulePath, const QString& leaf) {
  const QString path = QString::fromStdString(modulePath);
  if (path.isEmpty() && leaf.isEmpty()) return {};
  QStringList crumbs;
  const QStringList parts = path.split(QLatin1Char('.'), Qt::SkipEmptyParts);
  for (qsizetype i = 0; i < parts.size(); ++i) {
    const QString prefix = parts.mid(0, i + 1).join(QLatin1Char('.'));
    const bool last = i + 1 == parts.size() && leaf.isEmpty();  // a box's own module: where we are
    crumbs << (last ? QStringLiteral("<b>%1</b>").arg(parts[i].toHtmlEscaped())
                    : QStringLiteral("<a href=\"%1\">%2</a>").arg(prefix.toHtmlEscaped(), parts[i].toHtmlEscaped()));
  }
  if (!leaf.isEmpty()) crumbs << QStringLiteral("<b>%1</b>").arg(leaf.toHtmlEscaped());
  return crumbs.join(QStringLiteral(" › "));
}

}  // namespace kiln::viewers
