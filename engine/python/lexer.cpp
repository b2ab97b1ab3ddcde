#include "engine/python/lexer.h"

#include <cctype>

namespace kiln::py {

namespace {

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& file) : s_(src), file_(file) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    bool atLineStart = true;
    while (pos_ < s_.size()) {
      if (atLineStart && depth_ == 0) {
        // A blank or comment-only line is consumed whole; indentation is read on the next.
        if (handleIndent()) continue;
        atLineStart = false;
        continue;
      }
      char c = s_[pos_];
      if (c == '\n') {
        if (depth_ == 0 && !out_.empty() && out_.back().kind != Tok::Newline && out_.back().kind != Tok::Indent &&
            out_.back().kind != Tok::Dedent)
          push(Tok::Newline, "\n", line_, col(), line_, col() + 1);
        advanceLine();
        // Inside brackets lines join implicitly: indentation means nothing there.
        atLineStart = depth_ == 0;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++pos_;
        continue;
      }
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 1;
        advanceLine();
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
        if (stringPrefixAt()) {
          lexString();
          continue;
        }
        lexName();
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        lexNumber();
        continue;
      }
      if (c == '"' || c == '\'') {
        lexString();
        continue;
      }
      lexOp();
    }
    // An unclosed bracket is reported by the parser when it reaches the end (CPython reports
    // a syntax error inside the brackets first, if there is one).
    if (depth_ > 0) {
      const Open& o = openStack_.back();
      push(Tok::End, std::string(1, o.ch), o.line, o.col, o.line, o.col + 1);
      return std::move(out_);
    }
    if (!out_.empty() && out_.back().kind != Tok::Newline && out_.back().kind != Tok::Dedent)
      push(Tok::Newline, "\n", line_, col(), line_, col());
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::Dedent, "", line_, 1, line_, 1);
    }
    push(Tok::End, "", line_, col(), line_, col());
    return std::move(out_);
  }

 private:
  struct Open {
    char ch;
    int line, col;
  };
  std::string_view s_;
  std::string file_;
  size_t pos_ = 0, lineStart_ = 0;
  int line_ = 1;
  int depth_ = 0;
  std::vector<Open> openStack_;
  std::vector<int> indents_;
  std::vector<Token> out_;

  int col() const { return static_cast<int>(pos_ - lineStart_) + 1; }
  void advanceLine() {
    ++pos_;
    ++line_;
    lineStart_ = pos_;
  }

  [[noreturn]] void error(const std::string& msg, int line, int c) { throw ParseError("SyntaxError: " + msg, Location{file_, line, c}); }

  void push(Tok k, std::string text, int l, int c, int el, int ec) { out_.push_back(Token{k, std::move(text), l, c, el, ec}); }

  // Returns true when the line was blank/comment-only (consumed), false when indentation was
  // processed and tokens follow.
  bool handleIndent() {
    size_t p = pos_;
    int width = 0;
    while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t')) {
      width += s_[p] == '\t' ? 8 - (width % 8) : 1;
      ++p;
    }
    if (p >= s_.size()) {
      pos_ = p;
      return true;
    }
    if (s_[p] == '\n' || s_[p] == '#' || s_[p] == '\r') {
      pos_ = p;
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      if (pos_ < s_.size()) advanceLine();
      return true;
    }
    pos_ = p;
    if (width > indents_.back()) {
      if (out_.empty() || out_.back().kind != Tok::Newline)
        throw ParseError("IndentationError: unexpected indent", Location{file_, line_, col()});
      indents_.push_back(width);
      push(Tok::Indent, "", line_, col(), line_, col());
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(Tok::Dedent, "", line_, col(), line_, col());
      }
      if (width != indents_.back())
        throw ParseError("IndentationError: unindent does not match any outer indentation level", Location{file_, line_, col()});
    }
    return false;
  }

  bool stringPrefixAt() const {
    size_t p = pos_;
    int n = 0;
    while (p < s_.size() && n < 2 && std::string_view("rRbBfFuU").find(s_[p]) != std::string_view::npos) {
      ++p;
      ++n;
    }
    return n > 0 && p < s_.size() && (s_[p] == '"' || s_[p] == '\'');
  }

  void lexName() {
    int l = line_, c = col();
    size_t st = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || static_cast<unsigned char>(s_[pos_]) >= 0x80))
      ++pos_;
    push(Tok::Name, std::string(s_.substr(st, pos_ - st)), l, c, line_, col());
  }

  void lexNumber() {
    int l = line_, c = col();
    size_t st = pos_;
    bool isFloat = false;
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::string_view("xXoObB").find(s_[pos_ + 1]) != std::string_view::npos) {
      pos_ += 2;
      while (pos_ < s_.size() && (std::isxdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    } else {
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '.') {
        isFloat = true;
        ++pos_;
        while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      }
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        size_t save = pos_;
        ++pos_;
        if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
        if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
          isFloat = true;
          while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        } else {
          pos_ = save;
        }
      }
    }
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) error("invalid decimal literal", l, c);
    std::string text;
    for (size_t i = st; i < pos_; ++i)
      if (s_[i] != '_') text += s_[i];
    push(isFloat ? Tok::Float : Tok::Int, text, l, c, line_, col());
  }

  void lexString() {
    int l = line_, c = col();
    bool raw = false, fstr = false;
    while (s_[pos_] != '"' && s_[pos_] != '\'') {
      char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos_])));
      raw = raw || p == 'r';
      fstr = fstr || p == 'f';
      ++pos_;
    }
    char q = s_[pos_];
    bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    pos_ += triple ? 3 : 1;
    std::string val;
    while (true) {
      if (pos_ >= s_.size())
        error(triple ? "unterminated triple-quoted string literal (detected at line " + std::to_string(line_) + ")"
                     : "unterminated string literal (detected at line " + std::to_string(l) + ")",
              l, c);
      char ch = s_[pos_];
      if (!triple && ch == '\n') error("unterminated string literal (detected at line " + std::to_string(l) + ")", l, c);
      if (ch == q && (!triple || (pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (ch == '\n') {
        val += '\n';
        advanceLine();
        continue;
      }
      if (ch == '\\' && pos_ + 1 < s_.size()) {
        char e = s_[pos_ + 1];
        if (raw) {
          // Raw strings keep escapes as written.
          val += ch;
          val += e;
          pos_ += 2;
          if (e == '\n') {
            ++line_;
            lineStart_ = pos_;
          }
          continue;
        }
        if (fstr && (e == '{' || e == '}')) {  // left for the f-string parser
          val += ch;
          val += e;
          pos_ += 2;
          continue;
        }
        pos_ += 2;
        if (e == '\n') {
          ++line_;
          lineStart_ = pos_;
          continue;
        }
        if (!escape(e, val, l, c)) {
          val += '\\';
          val += e;
        }
        continue;
      }
      val += ch;
      ++pos_;
    }
    push(fstr ? Tok::FString : Tok::String, val, l, c, line_, col());
  }

  // One escape after a backslash (its letter `e` already consumed; \x, \u, \U and octal read
  // their digits): appends the character as UTF-8. False for an unknown escape (kept as is).
  bool escape(char e, std::string& val, int l, int c) {
    auto hex = [&](int n) {
      uint32_t v = 0;
      for (int i = 0; i < n; ++i) {
        if (pos_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_])))
          error("(unicode error) truncated \\" + std::string(1, e) +
                    std::string(n == 2   ? "XX"
                                : n == 4 ? "XXXX"
                                         : "XXXXXXXX") +
                    " escape",
                l, c);
        char d = s_[pos_++];
        v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : std::tolower(d) - 'a' + 10);
      }
      return v;
    };
    auto utf8 = [&](uint32_t cp) {
      if (cp > 0x10FFFF) error("(unicode error) illegal Unicode character", l, c);
      if (cp < 0x80) val += static_cast<char>(cp);
      else if (cp < 0x800) {
        val += static_cast<char>(0xC0 | (cp >> 6));
        val += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        val += static_cast<char>(0xE0 | (cp >> 12));
        val += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        val += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        val += static_cast<char>(0xF0 | (cp >> 18));
        val += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        val += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        val += static_cast<char>(0x80 | (cp & 0x3F));
      }
    };
    switch (e) {
      case 'n': val += '\n'; return true;
      case 't': val += '\t'; return true;
      case 'r': val += '\r'; return true;
      case 'v': val += '\v'; return true;
      case 'f': val += '\f'; return true;
      case 'a': val += '\a'; return true;
      case 'b': val += '\b'; return true;
      case '\\': val += '\\'; return true;
      case '\'': val += '\''; return true;
      case '"': val += '"'; return true;
      case 'x': utf8(hex(2)); return true;
      case 'u': utf8(hex(4)); return true;
      case 'U': utf8(hex(8)); return true;
      default: break;
    }
    if (e >= '0' && e <= '7') {
      uint32_t v = static_cast<uint32_t>(e - '0');
      for (int i = 0; i < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++i)
        v = v * 8 + static_cast<uint32_t>(s_[pos_++] - '0');
      utf8(v);
      return true;
    }
    return false;
  }

  void lexOp() {
    static const char* kOps[] = {"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "+=",
                                 "-=",  "*=",  "/=",  "%=",  "&=",  "|=", "^=", "@=", "+",  "-",  "*",  "/",  "%",  "@",  "<",  ">",
                                 "=",   "(",   ")",   "[",   "]",   "{",  "}",  ",",  ":",  ".",  ";",  "~",  "&",  "|",  "^"};
    int l = line_, c = col();
    for (const char* op : kOps) {
      std::string_view o(op);
      if (s_.substr(pos_, o.size()) == o) {
        pos_ += o.size();
        if (o == "(" || o == "[" || o == "{") {
          ++depth_;
          openStack_.push_back({o[0], l, c});
        }
        if (o == ")" || o == "]" || o == "}") {
          if (depth_ == 0) error("unmatched '" + std::string(o) + "'", l, c);
          char open = openStack_.back().ch;
          char want = o == ")" ? '(' : o == "]" ? '[' : '{';
          if (open != want)
            error("closing parenthesis '" + std::string(o) + "' does not match opening parenthesis '" + std::string(1, open) + "'", l, c);
          --depth_;
          openStack_.pop_back();
        }
        push(Tok::Op, std::string(o), l, c, line_, col());
        return;
      }
    }
    error(std::string("invalid character '") + s_[pos_] + "'", l, c);
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& file) { return Lexer(source, file).run(); }

}  // namespace kiln::py
