#include "importers/torch_trace/inductor_code.h"

#include <cctype>
#include <sstream>

namespace kiln::importers::torch_trace {

namespace {

std::vector<std::string> splitNames(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : list) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool isIdent(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string kindOf(const std::string& name, const std::string& compiler) {
  if (name.rfind("triton_poi", 0) == 0) return "pointwise";
  if (name.rfind("triton_red", 0) == 0 || name.rfind("triton_per", 0) == 0) return "reduction";
  if (name.rfind("triton_tem", 0) == 0) return "template";
  if (compiler.rfind("cpp", 0) == 0) return "cpp";
  return compiler;
}

// The provenance comments in the block of lines above a definition.
void readProvenance(const std::vector<std::string>& comments, InductorKernel& k) {
  bool mapping = false;
  for (const std::string& c : comments) {
    const std::string topo = "# Topologically Sorted Source Nodes: [";
    if (c.rfind(topo, 0) == 0) {
      size_t end = c.find(']', topo.size());
      if (end != std::string::npos) k.sourceNodes = splitNames(c.substr(topo.size(), end - topo.size()));
      mapping = false;
    } else if (c.rfind("# Source node to ATen node mapping:", 0) == 0) {
      mapping = true;
    } else if (mapping && c.rfind("#   ", 0) == 0 && c.find(" => ") != std::string::npos) {
      for (const auto& n : splitNames(c.substr(c.find(" => ") + 4)))
        if (isIdent(n)) k.atenNodes.push_back(n);
    } else {
      mapping = false;
    }
  }
}

}  // namespace

std::vector<InductorKernel> inductorKernels(const std::string& code) {
  std::vector<InductorKernel> out;
  std::istringstream in(code);
  std::string line;
  std::vector<std::string> comments;  // the comment block just above the current line
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) {
      comments.push_back(line);
      continue;
    }
    // NAME = async_compile.KIND(  at the start of a line
    size_t eq = line.find(" = async_compile.");
    if (eq == std::string::npos || !isIdent(line.substr(0, eq))) {
      if (!line.empty()) comments.clear();
      continue;
    }
    InductorKernel k;
    k.name = line.substr(0, eq);
    size_t open = line.find('(', eq);
    if (open == std::string::npos) {
      comments.clear();
      continue;
    }
    k.compiler = line.substr(eq + 17, open - eq - 17);
    k.kind = kindOf(k.name, k.compiler);
    readProvenance(comments, k);
    comments.clear();
    // The source: from the first ''' to the matching closing ''' (it may start on this line).
    std::string text = line.substr(open + 1);
    size_t q = text.find("'''");
    while (q == std::string::npos && std::getline(in, line)) {
      text = line;
      q = text.find("'''");
    }
    if (q == std::string::npos) break;
    std::string body = text.substr(q + 3);
    size_t endq = body.find("'''");
    if (endq == std::string::npos) {
      body += '\n';
      while (std::getline(in, line)) {
        size_t e = line.find("'''");
        if (e != std::string::npos) {
          body += line.substr(0, e);
          break;
        }
        body += line + '\n';
      }
    } else {
      body = body.substr(0, endq);
    }
    if (!body.empty() && body[0] == '\n') body.erase(0, 1);
    k.source = std::move(body);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace kiln::importers::torch_trace
