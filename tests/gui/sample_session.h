// A store with one hand-built session for the GUI tests: a captured graph, an ATen graph, an
// unchanged pass and a fused graph whose nodes sit in kernel_0, plus that kernel's texts.
#pragma once

#include "storage/store.h"

#include <memory>
#include <string>

namespace kiln::testing {

struct SampleSession {
  std::unique_ptr<storage::Store> store;
  int64_t sessionId = 0;
};

// Creates the store at `dbPath` and writes the session through Store::beginSession().
SampleSession writeSampleSession(const std::string& dbPath);

// Appends a second run of the sample to `store` in which the captured graph's text gained a
// line and the compile gained a guard, as a changed script would; returns its session id.
int64_t appendChangedSampleSession(storage::Store& store);
// A training run: forward stages, then backward:aten and backward:fused, whose node ids overlap
// the forward's.
int64_t appendTrainingSampleSession(storage::Store& store);

// A run whose first compile failed (fullgraph=True met a data-dependent branch at kFailedLine:
// no stages) and whose second compiled a captured graph.
int64_t appendFailedCompileSampleSession(storage::Store& store);

// Lines of the sample script the nodes point at.
constexpr int kSinLine = 5;
constexpr int kReluLine = 6;
constexpr int kFailedLine = 5;

}  // namespace kiln::testing
