#include "engine/codegen/kernel_bodies.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace kiln::codegen {

kir::Kernel withCanonicalProvenance(const kir::Kernel& k) {
  kir::Kernel c = k;
  c.sourceNodes.clear();
  std::unordered_map<int, int> number;
  for (auto& in : c.body)
    if (in.node >= 0) in.node = number.emplace(in.node, static_cast<int>(number.size()) + 1).first->second;
  return c;
}

std::vector<int> provenanceNodes(const kir::Kernel& k) {
  std::vector<int> nodes;
  std::unordered_map<int, bool> seen;
  for (const auto& in : k.body)
    if (in.node >= 0 && seen.emplace(in.node, true).second) nodes.push_back(in.node);
  return nodes;
}

std::string bodyText(const kir::Kernel& k) {
  kir::Kernel c = withCanonicalProvenance(k);
  c.name = "body";
  for (size_t i = 0; i < c.buffers.size(); ++i) c.buffers[i].name = "b" + std::to_string(i);
  std::string text = kir::print(c);
  // The text prints every NaN as `nan`; the code keeps the constant's bits.
  for (const auto& in : c.body)
    if (in.op == kir::Op::Const && std::isnan(in.constant))
      text += "nan %" + std::to_string(in.id) + " bits " + std::to_string(std::bit_cast<uint64_t>(in.constant)) + "\n";
  return text;
}

KernelBodies groupByBody(const std::vector<kir::Kernel>& kernels) {
  KernelBodies out;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::string text = bodyText(kernels[i]);
    auto [it, fresh] = index.emplace(text, out.first.size());
    if (fresh) {
      out.first.push_back(i);
      out.text.push_back(std::move(text));
    }
    out.bodyOf.push_back(it->second);
  }
  return out;
}

std::string withProvenance(const std::string& text, const std::vector<int>& nodes) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t at = text.find(" @", pos);
    // A mark is `; @c` (LLVM IR comments) or `# @c` (assembly); `@name` globals are not digits.
    if (at == std::string::npos || at == 0 || (text[at - 1] != ';' && text[at - 1] != '#')) {
      size_t upTo = at == std::string::npos ? text.size() : at + 2;
      out.append(text, pos, upTo - pos);
      pos = upTo;
      continue;
    }
    size_t digits = at + 2, end = digits;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    out.append(text, pos, digits - pos);
    size_t c = 0;
    bool mapped = end > digits && end - digits < 10;
    if (mapped) c = std::stoul(text.substr(digits, end - digits));
    if (mapped && c >= 1 && c <= nodes.size()) out += std::to_string(nodes[c - 1]);
    else out.append(text, digits, end - digits);
    pos = end;
  }
  return out;
}

}  // namespace kiln::codegen
