// DiffHighlighter: colours the text of `kiln diff` (storage/session_diff.cpp) in the Diff tab as
// a reviewer reads a diff: what only the first session has (`- `) red, what only the second
// has (`+ `) green, a compile's heading bold and amber when its graph, kernels or presence
// differ, the summary line bold. The text form is SessionDiff::text(): a line's marker is its
// first non-blank character, after an optional "kernels " prefix.
#pragma once

#include <QSyntaxHighlighter>

namespace kiln::viewers {

class DiffHighlighter : public QSyntaxHighlighter {
 public:
  explicit DiffHighlighter(QTextDocument* document);

  // What a line is, for the colours (and tests): Removed, Added, ChangedHeading,
  // EqualHeading, Summary or Plain.
  enum class Kind { Plain, Removed, Added, ChangedHeading, EqualHeading, Summary };
  static Kind classify(const QString& line);

 protected:
  void highlightBlock(const QString& text) override;
};

}  // namespace kiln::viewers
