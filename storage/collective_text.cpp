#include "storage/collective_text.h"

#include <cstdio>

namespace kiln::storage {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

const char* kDot = " \xc2\xb7 ";  // " · "

}  // namespace

std::string byteText(int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes < int64_t{1} << 20) return fixed(double(bytes) / 1024, 1) + " KiB";
  if (bytes < int64_t{1} << 30) return fixed(double(bytes) / double(int64_t{1} << 20), 1) + " MiB";
  return fixed(double(bytes) / double(int64_t{1} << 30), 2) + " GiB";
}

std::string durationText(double ms) { return ms < 0 ? "running" : fixed(ms, 3) + " ms"; }

std::string collectiveTitle(const session::CollectiveEvent& c) { return c.label.empty() ? c.op : c.op + " " + c.label; }

std::string collectiveSummary(const session::CollectiveEvent& c) {
  std::string s = collectiveTitle(c);
  if (c.op != "barrier") s += kDot + byteText(c.bytes);
  return s + kDot + durationText(c.durationMs);
}

std::string collectiveDetails(const session::CollectiveEvent& c) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : kDot) + part; };
  if (!c.reduceOp.empty()) add(c.reduceOp);
  if (c.root >= 0) add("from rank " + std::to_string(c.root));
  if (!c.dtype.empty()) {
    std::string shape = "[";
    for (size_t i = 0; i < c.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(c.shape[i]);
    add(c.dtype + " " + shape + "]");
  }
  add(c.backend);
  add("rank " + std::to_string(c.rank) + " of " + std::to_string(c.worldSize));
  add("issued at " + fixed(c.issuedAtMs, 3) + " ms");
  add(c.waitedAtMs < 0 ? std::string("never waited for") : "waited until " + fixed(c.waitedAtMs, 3) + " ms");
  return s;
}

}  // namespace kiln::storage
