// kiln run --verify: every call of a compiled graph also runs the graph as captured, eagerly,
// on the same inputs, and the two results are compared. On the first difference the graph is
// recompiled with each pass disabled in turn, then with fewer and fewer fusion decisions, to
// name what introduced it; the event goes to the session, and the call returns the eager
// values so the program goes on with the right answer.
#pragma once

#include "engine/capture/frame.h"
#include "engine/driver/backends.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

struct VerifyStats {
  int graphs = 0;                    // compiled graphs wrapped
  int calls = 0;                     // calls checked
  int mismatches = 0;                // calls whose compiled outputs differed
  std::vector<std::string> reports;  // one line per graph that differed, for the CLI
};

// How two output lists differ: the first output that does not match, and how (shape, dtype,
// or the first element outside tolerance, with the largest absolute difference). nullopt when
// they match: same shapes and dtypes, integers and booleans equal, floating values within
// rtol/atol for their dtype (float32: 1e-4 / 1e-5), NaN where the other has NaN.
struct OutputDiff {
  int output = -1;
  std::string detail;
};
std::optional<OutputDiff> compareOutputs(const std::vector<tensor::Tensor>& got, const std::vector<tensor::Tensor>& expected,
                                         const std::string& what = "output");

// Wraps `compiled` (the runner compileGraph made for `captured`) so that each call is checked.
capture::GraphRunner verifyingRunner(capture::GraphRunner compiled, std::shared_ptr<const ir::Graph> captured, const std::string& compileId,
                                     const BackendOptions& opts, codegen::KernelCompiler* cpu, session::SessionSink& sink,
                                     std::shared_ptr<VerifyStats> stats);

// What introduced a difference from `expected` (outputs, and the inputs' values after the
// call) for a call with `inputs` (left untouched: each trial runs on copies): lowering alone
// (the aot_eager backend), then `captured` recompiled without each pass, then the fusion
// decisions bisected. Fills `log` with one line per trial; returns the culprit ("pass NAME",
// "fusion decision K of N: ...", or what neither explains).
std::string bisectMismatch(const ir::Graph& captured, const std::string& compileId, const BackendOptions& opts,
                           codegen::KernelCompiler* cpu, const std::vector<tensor::Tensor>& inputs,
                           const std::vector<tensor::Tensor>& expected, const std::vector<tensor::Tensor>& expectedInputs,
                           std::vector<std::string>& log);

}  // namespace kiln::driver
