// mode="max-autotune" on the CPU, for matrix products: Inductor benchmarks its GEMM templates
// against ATen's for each mm/addmm/bmm and keeps the fastest; Kiln does the same with the
// implementations it has (ops/gemm_algos.h: OpenBLAS, its few-row kernel, oneDNN's sgemm).
//
// Each extern step of a compiled graph that is a float32 (or 16-bit float) product at concrete
// sizes is run with every implementation on inputs of its shapes and strides (filled with a fixed
// pattern: the script's random generator is not touched), a warm-up call then timed calls, and
// the fastest median is pinned to the step (Step::algo; the wrapper line says what was measured).
// An implementation that cannot run a product (the few-row kernel on 512 rows) is listed as not
// applying. Results are kept in the kernel cache (codegen/kernel_cache.h, MAC-checked) under the
// product, the CPU, the thread count and Kiln's build, so a later run reads them instead of timing
// again (the studio marks them cached). Every product's candidates go to the session
// (AutotuneEvent): the studio's Timings tab lists them.
#pragma once

#include "engine/ir/graph.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/session/sink.h"

#include <string>

namespace kiln::driver {

// Whether torch.compile's `mode` asks for autotuning ("max-autotune", "max-autotune-no-cudagraphs").
bool wantsAutotune(const std::string& mode);

// Times the products of `sched` (steps over `fused`) and pins the fastest implementation to each;
// reports each product to `sink` under `compileId` (its node named "mm_2 (backward)" when `graph`
// is "backward"), and the whole search as the "autotune" timing. Returns how many were tuned.
int autotuneProducts(const ir::Graph& fused, schedule::ScheduledGraph& sched, const std::string& compileId, session::SessionSink& sink,
                     const std::string& graph = "");

}  // namespace kiln::driver
