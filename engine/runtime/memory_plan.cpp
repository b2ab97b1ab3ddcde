#include "engine/runtime/memory_plan.h"

#include "engine/schedule/lifetimes.h"
#include "engine/tensor/tensor.h"

#include <algorithm>
#include <set>

namespace kiln::runtime {

namespace {
int64_t elements(const ir::TensorType& t) {
  int64_t n = 1;
  for (const auto& d : t.sizes) n = tensor::sizeMul(n, d.value);  // 0 for an empty buffer, whatever its other dims
  return n;
}
}  // namespace

std::string MemoryPlan::summary() const {
  return std::to_string(planned) + " intermediate buffers in " + std::to_string(slotElements.size()) + " slots, peak " +
         std::to_string((peakBytes + 1023) / 1024) + " KiB (" + std::to_string((unplannedBytes + 1023) / 1024) + " KiB without reuse)" +
         (inPlace ? ", " + std::to_string(inPlace) + " written in place" : "");
}

MemoryPlan planMemory(const ir::Graph& g, const schedule::ScheduledGraph& s) {
  MemoryPlan plan;
  std::set<int> graphOutputs;
  if (const ir::Node* out = g.output()) ir::forEachNodeArg(*out, [&](int id) { graphOutputs.insert(id); });
  std::map<int, size_t> lastUse = schedule::lastUses(g, s);
  // An output written in place lives in its input's buffer: the buffer lives as long as the
  // last of them (latest steps first, so chains of in-place outputs add up).
  for (size_t i = s.steps.size(); i-- > 0;)
    for (const auto& [out, in] : s.steps[i].inPlace)
      if (lastUse.count(out)) lastUse[in] = std::max(lastUse[in], lastUse[out]);
  std::vector<std::pair<size_t, int>> busy;  // (last use, slot)
  std::vector<int> freeSlots;
  int64_t liveBytes = 0;
  std::vector<int64_t> slotBytesLive;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    // Free what died before this step.
    for (auto it = busy.begin(); it != busy.end();) {
      if (it->first < i) {
        freeSlots.push_back(it->second);
        liveBytes -= slotBytesLive[static_cast<size_t>(it->second)];
        it = busy.erase(it);
      } else {
        ++it;
      }
    }
    const auto& st = s.steps[i];
    if (st.kind != schedule::Step::Kind::Kernel) continue;
    for (const auto& [out, in] : st.inPlace) {
      ++plan.inPlace;
      if (auto it = plan.slotOf.find(in); it != plan.slotOf.end()) plan.slotOf[out] = it->second;
    }
    for (int id : st.outputNodes) {
      if (graphOutputs.count(id) || !lastUse.count(id) || lastUse[id] >= s.steps.size()) continue;
      const ir::TensorType& t = g.find(id)->types.at(0);
      int64_t n = elements(t);
      int64_t bytes = n * static_cast<int64_t>(ir::itemSize(t.dtype));
      plan.unplannedBytes += bytes;
      ++plan.planned;
      // Best fit among free slots of the same dtype.
      int best = -1;
      for (int slot : freeSlots)
        if (plan.slotDtype[static_cast<size_t>(slot)] == t.dtype && plan.slotElements[static_cast<size_t>(slot)] >= n &&
            (best < 0 || plan.slotElements[static_cast<size_t>(slot)] < plan.slotElements[static_cast<size_t>(best)]))
          best = slot;
      if (best < 0) {
        best = static_cast<int>(plan.slotElements.size());
        plan.slotElements.push_back(n);
        plan.slotDtype.push_back(t.dtype);
        slotBytesLive.push_back(0);
      } else {
        freeSlots.erase(std::find(freeSlots.begin(), freeSlots.end(), best));
      }
      plan.slotOf[id] = best;
      slotBytesLive[static_cast<size_t>(best)] = bytes;
      liveBytes += bytes;
      plan.peakBytes = std::max(plan.peakBytes, liveBytes);
      busy.emplace_back(lastUse[id], best);
    }
  }
  return plan;
}

}  // namespace kiln::runtime
