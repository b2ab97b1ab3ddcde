#include "storage/stage_digest.h"

#include <cstring>

namespace kiln::storage {

namespace {
uint64_t mix(uint64_t x, uint64_t k) {
  x *= k;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

void addLoc(Digest& d, const ir::SourceLoc& l) {
  d.add(l.file);
  d.add(l.line);
  d.add(l.col);
  d.add(l.endLine);
  d.add(l.endCol);
  d.add(l.function);
  d.add(l.code);
}

void addDims(Digest& d, const std::vector<ir::Dim>& dims) {
  d.add(static_cast<uint64_t>(dims.size()));
  for (const auto& x : dims) {
    d.add(x.value);
    d.add(x.symbol);
  }
}

void addArg(Digest& d, const ir::Arg& a) {
  d.add(static_cast<int>(a.kind));
  d.add(a.node);
  d.add(a.i);
  d.add(a.f);
  d.add(a.b);
  d.add(a.s);
  d.add(static_cast<int>(a.dtype));
  d.add(static_cast<uint64_t>(a.list.size()));
  for (const auto& x : a.list) addArg(d, x);
}
}  // namespace

void Digest::add(uint64_t v) {
  a_ = mix(a_ ^ v, 0x9E3779B97F4A7C15ull);
  b_ = mix(b_ + v + 0x632BE59BD9B4E019ull, 0xC2B2AE3D27D4EB4Full);
}

void Digest::add(double v) {
  if (v == 0.0) v = 0.0;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  add(bits);
}

void Digest::add(const std::string& s) {
  add(static_cast<uint64_t>(s.size()));
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    add(w);
  }
  if (i < s.size()) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    add(w);
  }
}

Digest nodeFieldsDigest(const ir::Graph& g) {
  Digest d;
  d.add(static_cast<uint64_t>(g.nodes.size()));
  for (const auto& n : g.nodes) {
    d.add(n.id);
    d.add(n.name);
    d.add(static_cast<int>(n.kind));
    d.add(n.target);
    d.add(static_cast<uint64_t>(n.types.size()));
    for (const auto& t : n.types) {
      d.add(static_cast<int>(t.dtype));
      addDims(d, t.sizes);
      addDims(d, t.strides);
      d.add(t.device);
      d.add(t.requiresGrad);
    }
    d.add(static_cast<uint64_t>(n.args.size()));
    for (const auto& a : n.args) addArg(d, a);
    d.add(static_cast<uint64_t>(n.kwargs.size()));
    for (const auto& [k, a] : n.kwargs) {
      d.add(k);
      addArg(d, a);
    }
    addLoc(d, n.prov.loc);
    d.add(n.prov.modulePath);
    d.add(static_cast<uint64_t>(n.prov.from.size()));
    for (int f : n.prov.from) d.add(f);
    d.add(n.kernel);
    d.add(static_cast<uint64_t>(n.prov.userStack.size()));
    for (const auto& l : n.prov.userStack) addLoc(d, l);
  }
  return d;
}

}  // namespace kiln::storage
