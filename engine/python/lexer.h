// Tokenizer for Kiln's Python subset: INDENT/DEDENT, implicit line joining inside brackets,
// string prefixes (r, b, f), numbers with underscores, comments.
#pragma once

#include "engine/support/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace kiln::py {

enum class Tok { Name, Int, Float, String, FString, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind;
  std::string text;                                // identifier, operator, or the decoded string value
  int line = 0, col = 0, endLine = 0, endCol = 0;  // 1-based, end column exclusive
};

// Throws ParseError (SyntaxError / IndentationError wording) with file:line:col.
std::vector<Token> tokenize(std::string_view source, const std::string& file);

}  // namespace kiln::py
