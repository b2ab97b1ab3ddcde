// Breadcrumbs (issue 17): the module path of the node selected in the graph view, shown in its
// header strip as links, "blocks › 3 › attn › sin". A click on a module folds it into its box and
// selects that box, so a reader climbs out of a deep module without hunting for its border.
#pragma once

#include <QString>

#include <string>

namespace kiln::viewers {

// Rich text for `modulePath` ("blocks.3.attn") and the selected node's name `leaf` ("" for a
// folded box, whose own module is then the last crumb, not a link): each module a link whose
// href is its path ("blocks.3"). "" when there is nothing to show.
QString breadcrumbsHtml(const std::string& modulePath, const QString& leaf);

}  // namespace kiln::viewers
