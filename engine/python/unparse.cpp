#include "engine/python/unparse.h"

#include "engine/ir/text.h"

namespace kiln::py {

namespace {

int precedence(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Lambda: return 1;
    case ExprKind::IfExp: return 2;
    case ExprKind::BoolOp: return e.name == "or" ? 3 : 4;
    case ExprKind::UnaryOp: return e.name == "not" ? 5 : 12;
    case ExprKind::Compare: return 6;
    case ExprKind::BinOp:
      if (e.name == "|") return 7;
      if (e.name == "^") return 8;
      if (e.name == "&") return 9;
      if (e.name == "<<" || e.name == ">>") return 10;
      if (e.name == "+" || e.name == "-") return 11;
      if (e.name == "**") return 13;
      return 12;
    default: return 20;
  }
}

std::string sub(const ExprP& e, int minPrec) {
  if (!e) return "";
  std::string s = unparse(*e);
  return precedence(*e) < minPrec ? "(" + s + ")" : s;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\t') {
      out += "\\t";
      continue;
    }
    out += c;
  }
  return out + "'";
}

std::string params(const std::vector<Param>& ps) {
  std::string out;
  bool kwOnlyMarked = false;
  for (size_t i = 0; i < ps.size(); ++i) {
    const Param& p = ps[i];
    if (i) out += ", ";
    if (p.kind == Param::KwOnly && !kwOnlyMarked) {
      bool hasVarArgs = false;
      for (const auto& q : ps) hasVarArgs = hasVarArgs || q.kind == Param::VarArgs;
      if (!hasVarArgs) out += "*, ";
      kwOnlyMarked = true;
    }
    if (p.kind == Param::VarArgs) out += "*";
    if (p.kind == Param::VarKw) out += "**";
    out += p.name;
    if (p.defaultValue) out += "=" + unparse(*p.defaultValue);
  }
  return out;
}

std::string comprehension(const Expr& e) {
  std::string out;
  for (const auto& g : e.generators) {
    out += " for " + unparse(*g.target) + " in " + sub(g.iter, 3);
    for (const auto& i : g.ifs) out += " if " + sub(i, 3);
  }
  return out;
}

}  // namespace

std::string unparse(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: return e.name;
    case ExprKind::Int: return e.bigInt ? e.str : std::to_string(e.ival);
    case ExprKind::Float: return ir::pyFloat(e.fval);
    case ExprKind::Str: return quote(e.str);
    case ExprKind::Bool: return e.bval ? "True" : "False";
    case ExprKind::None: return "None";
    case ExprKind::Ellipsis: return "...";
    case ExprKind::FString: {
      std::string out = "f'";
      for (const auto& p : e.items) {
        if (p->kind == ExprKind::Str) {
          for (char c : p->str) {
            if (c == '{' || c == '}') out += c;
            if (c == '\'') out += '\\';
            out += c;
          }
          continue;
        }
        out += "{" + unparse(*p->target);
        if (p->conversion) out += std::string("!") + p->conversion;
        if (!p->formatSpec.empty()) out += ":" + p->formatSpec;
        out += "}";
      }
      return out + "'";
    }
    case ExprKind::Attribute: return sub(e.target, 20) + "." + e.name;
    case ExprKind::Call: {
      std::string out = sub(e.target, 20) + "(";
      bool first = true;
      for (const auto& a : e.items) {
        out += (first ? "" : ", ") + unparse(*a);
        first = false;
      }
      for (const auto& k : e.keywords) {
        out += (first ? "" : ", ") + (k.name.empty() ? "**" + unparse(*k.value) : k.name + "=" + unparse(*k.value));
        first = false;
      }
      return out + ")";
    }
    case ExprKind::BinOp: {
      int p = precedence(e);
      // ** is right-associative, the others left-associative.
      bool right = e.name == "**";
      return sub(e.a, right ? p + 1 : p) + " " + e.name + " " + sub(e.b, right ? p : p + 1);
    }
    case ExprKind::UnaryOp: return e.name == "not" ? "not " + sub(e.a, 5) : e.name + sub(e.a, 12);
    case ExprKind::BoolOp: {
      std::string out;
      for (size_t i = 0; i < e.items.size(); ++i) out += (i ? " " + e.name + " " : "") + sub(e.items[i], precedence(e) + 1);
      return out;
    }
    case ExprKind::Compare: {
      std::string out = sub(e.items[0], 7);
      for (size_t i = 0; i < e.ops.size(); ++i) out += " " + e.ops[i] + " " + sub(e.items[i + 1], 7);
      return out;
    }
    case ExprKind::Subscript:
      return sub(e.target, 20) + "[" + (e.a->kind == ExprKind::Tuple && !e.a->items.empty()
                                                                   ? [&] { std::string s; for (size_t i = 0; i < e.a->items.size(); ++i) s += (i ? ", " : "") + unparse(*e.a->items[i]); return s; }()
                                                                   : unparse(*e.a)) + "]";
    case ExprKind::Slice: return (e.a ? unparse(*e.a) : "") + ":" + (e.b ? unparse(*e.b) : "") + (e.c ? ":" + unparse(*e.c) : "");
    case ExprKind::Tuple: {
      std::string out = "(";
      for (size_t i = 0; i < e.items.size(); ++i) out += (i ? ", " : "") + unparse(*e.items[i]);
      return out + (e.items.size() == 1 ? ",)" : ")");
    }
    case ExprKind::List:
    case ExprKind::Set: {
      std::string out = e.kind == ExprKind::List ? "[" : "{";
      for (size_t i = 0; i < e.items.size(); ++i) out += (i ? ", " : "") + unparse(*e.items[i]);
      return out + (e.kind == ExprKind::List ? "]" : "}");
    }
    case ExprKind::Dict: {
      std::string out = "{";
      for (size_t i = 0; i < e.items.size(); ++i)
        out += (i ? ", " : "") + (e.items[i] ? unparse(*e.items[i]) + ": " + unparse(*e.values[i]) : "**" + unparse(*e.values[i]));
      return out + "}";
    }
    case ExprKind::Lambda: return "lambda " + params(e.params) + ": " + unparse(*e.target);
    case ExprKind::IfExp: return sub(e.a, 3) + " if " + sub(e.target, 3) + " else " + sub(e.b, 2);
    case ExprKind::ListComp: return "[" + unparse(*e.a) + comprehension(e) + "]";
    case ExprKind::SetComp: return "{" + unparse(*e.a) + comprehension(e) + "}";
    case ExprKind::DictComp: return "{" + unparse(*e.a) + ": " + unparse(*e.b) + comprehension(e) + "}";
    case ExprKind::GeneratorExp: return "(" + unparse(*e.a) + comprehension(e) + ")";
    case ExprKind::Starred: return "*" + sub(e.target, 20);
    case ExprKind::DoubleStarred: return "**" + sub(e.target, 20);
    case ExprKind::Yield: return e.target ? "(yield " + unparse(*e.target) + ")" : "(yield)";
    case ExprKind::YieldFrom: return "(yield from " + unparse(*e.target) + ")";
  }
  return "?";
}

std::string unparse(const Body& body, int indent) {
  std::string out;
  for (const auto& s : body) out += unparse(*s, indent);
  if (body.empty()) out += std::string(static_cast<size_t>(indent), ' ') + "pass\n";
  return out;
}

std::string unparse(const Stmt& s, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  auto block = [&](const Body& b) { return unparse(b, indent + 4); };
  switch (s.kind) {
    case StmtKind::Expr: return pad + unparse(*s.value) + "\n";
    case StmtKind::Assign: {
      std::string out = pad;
      for (const auto& t : s.targets) out += unparse(*t) + " = ";
      return out + unparse(*s.value) + "\n";
    }
    case StmtKind::AugAssign: return pad + unparse(*s.target) + " " + s.op + "= " + unparse(*s.value) + "\n";
    case StmtKind::AnnAssign:
      return pad + unparse(*s.target) + ": " + unparse(*s.value2) + (s.value ? " = " + unparse(*s.value) : "") + "\n";
    case StmtKind::Return: return pad + "return" + (s.value ? " " + unparse(*s.value) : "") + "\n";
    case StmtKind::If: {
      std::string out = pad + "if " + unparse(*s.test) + ":\n" + block(s.body);
      if (!s.orelse.empty()) out += pad + "else:\n" + block(s.orelse);
      return out;
    }
    case StmtKind::For: {
      std::string out = pad + "for " + unparse(*s.target) + " in " + unparse(*s.value) + ":\n" + block(s.body);
      if (!s.orelse.empty()) out += pad + "else:\n" + block(s.orelse);
      return out;
    }
    case StmtKind::While: {
      std::string out = pad + "while " + unparse(*s.test) + ":\n" + block(s.body);
      if (!s.orelse.empty()) out += pad + "else:\n" + block(s.orelse);
      return out;
    }
    case StmtKind::Break: return pad + "break\n";
    case StmtKind::Continue: return pad + "continue\n";
    case StmtKind::Pass: return pad + "pass\n";
    case StmtKind::FunctionDef: {
      std::string out;
      for (const auto& d : s.decorators) out += pad + "@" + unparse(*d) + "\n";
      return out + pad + "def " + s.name + "(" + params(s.params) + "):\n" + block(s.body);
    }
    case StmtKind::ClassDef: {
      std::string out;
      for (const auto& d : s.decorators) out += pad + "@" + unparse(*d) + "\n";
      out += pad + "class " + s.name;
      if (!s.bases.empty()) {
        out += "(";
        for (size_t i = 0; i < s.bases.size(); ++i) out += (i ? ", " : "") + unparse(*s.bases[i]);
        out += ")";
      }
      return out + ":\n" + block(s.body);
    }
    case StmtKind::Import: {
      std::string out = pad + "import ";
      for (size_t i = 0; i < s.names.size(); ++i)
        out += (i ? ", " : "") + s.names[i].name + (s.names[i].asname.empty() ? "" : " as " + s.names[i].asname);
      return out + "\n";
    }
    case StmtKind::ImportFrom: {
      std::string out = pad + "from " + std::string(static_cast<size_t>(s.level), '.') + s.module + " import ";
      for (size_t i = 0; i < s.names.size(); ++i)
        out += (i ? ", " : "") + s.names[i].name + (s.names[i].asname.empty() ? "" : " as " + s.names[i].asname);
      return out + "\n";
    }
    case StmtKind::Raise:
      return pad + "raise" + (s.value ? " " + unparse(*s.value) : "") + (s.value2 ? " from " + unparse(*s.value2) : "") + "\n";
    case StmtKind::Try: {
      std::string out = pad + "try:\n" + block(s.body);
      for (const auto& h : s.handlers)
        out += pad + "except" + (h.type ? " " + unparse(*h.type) : "") + (h.name.empty() ? "" : " as " + h.name) + ":\n" + block(h.body);
      if (!s.orelse.empty()) out += pad + "else:\n" + block(s.orelse);
      if (!s.finalbody.empty()) out += pad + "finally:\n" + block(s.finalbody);
      return out;
    }
    case StmtKind::With: {
      std::string out = pad + "with ";
      for (size_t i = 0; i < s.items.size(); ++i)
        out += (i ? ", " : "") + unparse(*s.items[i].context) + (s.items[i].target ? " as " + unparse(*s.items[i].target) : "");
      return out + ":\n" + block(s.body);
    }
    case StmtKind::Assert: return pad + "assert " + unparse(*s.test) + (s.value2 ? ", " + unparse(*s.value2) : "") + "\n";
    case StmtKind::Global:
    case StmtKind::Nonlocal: {
      std::string out = pad + (s.kind == StmtKind::Global ? "global " : "nonlocal ");
      for (size_t i = 0; i < s.targets.size(); ++i) out += (i ? ", " : "") + s.targets[i]->name;
      return out + "\n";
    }
    case StmtKind::Delete: {
      std::string out = pad + "del ";
      for (size_t i = 0; i < s.targets.size(); ++i) out += (i ? ", " : "") + unparse(*s.targets[i]);
      return out + "\n";
    }
  }
  return pad + "?\n";
}

}  // namespace kiln::py
