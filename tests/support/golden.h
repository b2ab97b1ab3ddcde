// Golden-file comparison for stage texts: on mismatch the actual text is written next to the
// expected file as NAME.actual and a unified diff is printed, so updating a golden file is a
// deliberate `mv NAME.actual NAME`.
#pragma once

#include <string>

namespace kiln::test {

std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& text);
// Returns "" when `actual` equals the file's contents, else a diff (and writes PATH.actual).
std::string compareGolden(const std::string& expectedPath, const std::string& actual);

}  // namespace kiln::test
