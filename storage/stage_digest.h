// A 128-bit digest of what a stage stores, so that the session writer can tell a stage that
// repeats the last stored one (a pass that changed nothing) without keeping that stage's graph:
// a copy of a 17,000-node graph (some 30 MB) was held through every pass, at the run's peak.
// Two lanes of 64 bits, each word mixed in with a different multiply-xorshift: equal digests
// are taken as equal streams (two different streams collide with odds of about 2^-128).
#pragma once

#include "engine/ir/graph.h"

#include <cstdint>
#include <string>

namespace kiln::storage {

class Digest {
 public:
  void add(uint64_t v);
  void add(int64_t v) { add(static_cast<uint64_t>(v)); }
  void add(int v) { add(static_cast<uint64_t>(static_cast<int64_t>(v))); }
  void add(bool v) { add(static_cast<uint64_t>(v ? 1 : 0)); }
  void add(double v);  // by value: 0.0 and -0.0 are one value, as they compare equal
  void add(const std::string& s);
  bool operator==(const Digest&) const = default;

 private:
  uint64_t a_ = 0x243F6A8885A308D3ull, b_ = 0x13198A2E03707344ull;
};

// Every field of every node that a stored row is made from (what SessionWriter compared node by
// node before): equal digests, equal rows.
Digest nodeFieldsDigest(const ir::Graph& g);

}  // namespace kiln::storage
