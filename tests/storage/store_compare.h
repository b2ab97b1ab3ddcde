// Field-by-field comparisons of what the store returns against what was written. The event
// structs have no operator==, and comparing field by field names the field that differs.
#pragma once

#include "engine/session/events.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln::storage::testing {

inline void expectSameLoc(const ir::SourceLoc& a, const ir::SourceLoc& b) {
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.line, b.line);
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.endLine, b.endLine);
  EXPECT_EQ(a.endCol, b.endCol);
  EXPECT_EQ(a.function, b.function);
  EXPECT_EQ(a.code, b.code);
}

inline void expectSameLocs(const std::vector<ir::SourceLoc>& a, const std::vector<ir::SourceLoc>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) expectSameLoc(a[i], b[i]);
}

inline void expectSameGraph(const ir::Graph& got, const ir::Graph& want) {
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.nextId(), want.nextId());
  ASSERT_EQ(got.nodes.size(), want.nodes.size());
  for (size_t i = 0; i < got.nodes.size(); ++i) {
    SCOPED_TRACE("node " + want.nodes[i].name);
    const ir::Node& a = got.nodes[i];
    const ir::Node& b = want.nodes[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.target, b.target);
    EXPECT_EQ(a.args, b.args);
    EXPECT_EQ(a.kwargs, b.kwargs);
    EXPECT_EQ(a.types, b.types);
    expectSameLoc(a.prov.loc, b.prov.loc);
    EXPECT_EQ(a.prov.modulePath, b.prov.modulePath);
    EXPECT_EQ(a.prov.from, b.prov.from);
    expectSameLocs(a.prov.userStack, b.prov.userStack);
    EXPECT_EQ(a.kernel, b.kernel);
  }
}

inline void expectSameBreak(const session::GraphBreakEvent& a, const session::GraphBreakEvent& b) {
  EXPECT_EQ(a.frameId, b.frameId);
  EXPECT_EQ(a.compileId, b.compileId);
  EXPECT_EQ(a.code, b.code);
  EXPECT_EQ(a.title, b.title);
  EXPECT_EQ(a.explanation, b.explanation);
  EXPECT_EQ(a.hints, b.hints);
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.line, b.line);
  EXPECT_EQ(a.col, b.col);
  expectSameLocs(a.userStack, b.userStack);
}

inline void expectSameKernel(const KernelRow& a, const session::KernelEvent& b) {
  EXPECT_EQ(a.compileId, b.compileId);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.kernelIr, b.kernelIr);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.llvmIr, b.llvmIr);
  EXPECT_EQ(a.assembly, b.assembly);
  EXPECT_EQ(a.nodeIds, b.nodeIds);
  EXPECT_EQ(a.sourceLines, b.sourceLines);
  EXPECT_DOUBLE_EQ(a.compileMs, b.compileMs);
  EXPECT_EQ(a.gpu.arch, b.gpu.arch);
  EXPECT_EQ(a.gpu.ptx, b.gpu.ptx);
  EXPECT_EQ(a.gpu.sass, b.gpu.sass);
  EXPECT_EQ(a.gpu.launch, b.gpu.launch);
  EXPECT_EQ(a.gpu.registers, b.gpu.registers);
  EXPECT_EQ(a.gpu.sharedBytes, b.gpu.sharedBytes);
  EXPECT_EQ(a.gpu.stackBytes, b.gpu.stackBytes);
  EXPECT_EQ(a.gpu.spillStores, b.gpu.spillStores);
  EXPECT_EQ(a.gpu.spillLoads, b.gpu.spillLoads);
  EXPECT_EQ(a.gpu.notes, b.gpu.notes);
}

inline void expectSameGuards(const std::vector<session::Guard>& a, const std::vector<session::Guard>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_EQ(a[i].source, b[i].source);
    EXPECT_EQ(a[i].text, b[i].text);
    EXPECT_EQ(a[i].line, b[i].line);
  }
}

// Everything the sample session reported, read back through every reader of the Store.
inline void expectSampleStored(Store& store, int64_t id, const SampleSession& s) {
  auto d = store.session(id);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->summary.id, id);
  EXPECT_EQ(d->summary.scriptPath, s.start.scriptPath);
  EXPECT_EQ(d->summary.status, s.end.status);
  EXPECT_EQ(d->summary.startedAtMs, s.start.startedAtMs);
  EXPECT_DOUBLE_EQ(d->summary.totalMs, s.end.totalMs);
  EXPECT_EQ(d->summary.frameCount, static_cast<int>(s.frames.size()));
  EXPECT_EQ(d->summary.graphCount, 2);  // 1/0 failed: no graph
  EXPECT_EQ(d->summary.breakCount, static_cast<int>(s.breaks.size()));
  EXPECT_EQ(d->summary.recompileCount, static_cast<int>(s.recompiles.size()));
  EXPECT_EQ(d->scriptText, s.start.scriptText);
  EXPECT_EQ(d->optionsJson, s.start.optionsJson);
  EXPECT_EQ(d->engineVersion, s.start.engineVersion);
  EXPECT_EQ(d->error, s.end.error);
  EXPECT_EQ(d->outputsJson, s.end.outputsJson);
  std::string out;
  for (const auto& o : s.output) out += o;
  EXPECT_EQ(d->stdoutText, out);

  auto frames = store.frames(id);
  ASSERT_EQ(frames.size(), s.frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].frameId, s.frames[i].frameId);
    EXPECT_EQ(frames[i].name, s.frames[i].name);
    EXPECT_EQ(frames[i].file, s.frames[i].file);
    EXPECT_EQ(frames[i].firstLine, s.frames[i].firstLine);
    EXPECT_EQ(frames[i].kind, s.frames[i].kind);
    EXPECT_EQ(frames[i].source, s.frames[i].source);
  }

  auto compiles = store.compiles(id);
  ASSERT_EQ(compiles.size(), s.compiles.size());
  for (size_t i = 0; i < compiles.size(); ++i) {
    const auto& c = s.compiles[i];
    EXPECT_EQ(compiles[i].compileId, c.compileId);
    EXPECT_EQ(compiles[i].frameId, c.frameId);
    EXPECT_EQ(compiles[i].compileIndex, c.compileIndex);
    EXPECT_EQ(compiles[i].backend, c.backend);
    EXPECT_EQ(compiles[i].status, c.status);
    EXPECT_EQ(compiles[i].message, c.message);
    EXPECT_EQ(compiles[i].transformedCode, c.transformedCode);
    EXPECT_EQ(compiles[i].file, c.file);
    EXPECT_EQ(compiles[i].line, c.line);
    EXPECT_EQ(compiles[i].col, c.col);
    EXPECT_EQ(compiles[i].detail, c.detail);
    expectSameGuards(compiles[i].guards, c.guards);

    std::vector<const session::StageEvent*> want;
    for (const auto& st : s.stages)
      if (st.compileId == c.compileId) want.push_back(&st);
    auto stages = store.stages(id, c.compileId);
    ASSERT_EQ(stages.size(), want.size());
    for (size_t k = 0; k < stages.size(); ++k) {
      SCOPED_TRACE(c.compileId + " " + want[k]->stage);
      EXPECT_EQ(stages[k].compileId, c.compileId);
      EXPECT_EQ(stages[k].stage, want[k]->stage);
      EXPECT_EQ(stages[k].order, want[k]->order);
      EXPECT_EQ(stages[k].changed, want[k]->changed);
      EXPECT_DOUBLE_EQ(stages[k].ms, want[k]->ms);
      ASSERT_EQ(stages[k].rules.size(), want[k]->rules.size());
      for (size_t r = 0; r < stages[k].rules.size(); ++r) {
        EXPECT_EQ(stages[k].rules[r].rule, want[k]->rules[r].rule);
        EXPECT_EQ(stages[k].rules[r].count, want[k]->rules[r].count);
        EXPECT_EQ(stages[k].rules[r].nodes, want[k]->rules[r].nodes);
      }
      // Each rule application (schema 11), field by field.
      const auto apps = store.ruleApplications(stages[k].id);
      ASSERT_EQ(apps.size(), want[k]->applications.size());
      for (size_t a = 0; a < apps.size(); ++a) {
        const auto& w = want[k]->applications[a];
        EXPECT_EQ(apps[a].rule, w.rule);
        EXPECT_EQ(apps[a].where, w.where);
        EXPECT_EQ(apps[a].root, w.root);
        EXPECT_EQ(apps[a].consumed, w.consumed);
        EXPECT_EQ(apps[a].added, w.added);
        EXPECT_EQ(apps[a].replacement, w.replacement);
      }
      EXPECT_EQ(store.stageText(stages[k].id), want[k]->text);
      expectSameGraph(store.stageGraph(stages[k].id), want[k]->graph);
    }

    std::vector<const session::KernelEvent*> wantK;
    for (const auto& k : s.kernels)
      if (k.compileId == c.compileId) wantK.push_back(&k);
    auto kernels = store.kernels(id, c.compileId);
    ASSERT_EQ(kernels.size(), wantK.size());
    for (size_t k = 0; k < kernels.size(); ++k) expectSameKernel(kernels[k], *wantK[k]);

    std::string wrapper;
    for (const auto& w : s.wrappers)
      if (w.compileId == c.compileId) wrapper = w.text;
    EXPECT_EQ(store.wrapperText(id, c.compileId), wrapper);
  }

  auto breaks = store.graphBreaks(id);
  ASSERT_EQ(breaks.size(), s.breaks.size());
  for (size_t i = 0; i < breaks.size(); ++i) expectSameBreak(breaks[i], s.breaks[i]);

  auto recompiles = store.recompiles(id);
  ASSERT_EQ(recompiles.size(), s.recompiles.size());
  for (size_t i = 0; i < recompiles.size(); ++i) {
    EXPECT_EQ(recompiles[i].frameId, s.recompiles[i].frameId);
    EXPECT_EQ(recompiles[i].compileId, s.recompiles[i].compileId);
    EXPECT_EQ(recompiles[i].reasons, s.recompiles[i].reasons);
    EXPECT_EQ(recompiles[i].lines, s.recompiles[i].lines);
  }

  // Timings come back in the order reported: per compile, then the session's own.
  std::vector<session::TimingEvent> wantT;
  for (const auto& c : s.compiles)
    for (const auto& t : s.timings)
      if (t.compileId == c.compileId) wantT.push_back(t);
  for (const auto& t : s.timings)
    if (t.compileId.empty()) wantT.push_back(t);
  auto timings = store.timings(id);
  ASSERT_EQ(timings.size(), wantT.size());
  for (size_t i = 0; i < timings.size(); ++i) {
    EXPECT_EQ(timings[i].compileId, wantT[i].compileId);
    EXPECT_EQ(timings[i].phase, wantT[i].phase);
    EXPECT_DOUBLE_EQ(timings[i].ms, wantT[i].ms);
  }

  auto verifications = store.verifications(id);
  ASSERT_EQ(verifications.size(), s.verifications.size());
  for (size_t i = 0; i < verifications.size(); ++i) {
    EXPECT_EQ(verifications[i].compileId, s.verifications[i].compileId);
    EXPECT_EQ(verifications[i].call, s.verifications[i].call);
    EXPECT_EQ(verifications[i].matched, s.verifications[i].matched);
    EXPECT_EQ(verifications[i].output, s.verifications[i].output);
    EXPECT_EQ(verifications[i].detail, s.verifications[i].detail);
    EXPECT_EQ(verifications[i].culprit, s.verifications[i].culprit);
    EXPECT_EQ(verifications[i].bisection, s.verifications[i].bisection);
  }

  // Artifacts come back in the order they were recorded (per compile, then the session's own).
  auto artifacts = store.artifacts(id);
  ASSERT_EQ(artifacts.size(), s.artifacts.size());
  for (const auto& want : s.artifacts) {
    bool found = false;
    for (const auto& a : artifacts)
      found = found || (a.compileId == want.compileId && a.name == want.name && a.text == want.text && a.line == want.line);
    EXPECT_TRUE(found) << want.name;
  }

  // Collectives come back in issue order (seq), whatever order they were reported in.
  auto collectives = store.collectives(id);
  ASSERT_EQ(collectives.size(), s.collectives.size());
  for (size_t i = 0; i < collectives.size(); ++i) {
    const session::CollectiveEvent* want = nullptr;
    for (const auto& c : s.collectives)
      if (c.seq == int64_t(i)) want = &c;
    ASSERT_NE(want, nullptr) << "no sample collective with seq " << i;
    const auto& got = collectives[i];
    EXPECT_EQ(got.seq, want->seq);
    EXPECT_EQ(got.op, want->op);
    EXPECT_EQ(got.reduceOp, want->reduceOp);
    EXPECT_EQ(got.root, want->root);
    EXPECT_EQ(got.backend, want->backend);
    EXPECT_EQ(got.bytes, want->bytes);
    EXPECT_EQ(got.dtype, want->dtype);
    EXPECT_EQ(got.shape, want->shape);
    EXPECT_DOUBLE_EQ(got.issuedAtMs, want->issuedAtMs);
    EXPECT_DOUBLE_EQ(got.durationMs, want->durationMs);
    EXPECT_DOUBLE_EQ(got.waitedAtMs, want->waitedAtMs);
    EXPECT_EQ(got.rank, want->rank);
    EXPECT_EQ(got.worldSize, want->worldSize);
    EXPECT_EQ(got.label, want->label);
  }

  auto profiles = store.profiles(id);
  ASSERT_EQ(profiles.size(), s.profiles.size());
  for (size_t i = 0; i < profiles.size(); ++i) {
    EXPECT_EQ(profiles[i].compileId, s.profiles[i].compileId);
    EXPECT_DOUBLE_EQ(profiles[i].eagerMs, s.profiles[i].eagerMs);
    EXPECT_DOUBLE_EQ(profiles[i].compiledMs, s.profiles[i].compiledMs);
    EXPECT_EQ(profiles[i].repeat, s.profiles[i].repeat);
    ASSERT_EQ(profiles[i].kernels.size(), s.profiles[i].kernels.size());
    for (size_t k = 0; k < profiles[i].kernels.size(); ++k) {
      EXPECT_EQ(profiles[i].kernels[k].name, s.profiles[i].kernels[k].name);
      EXPECT_DOUBLE_EQ(profiles[i].kernels[k].ms, s.profiles[i].kernels[k].ms);
      EXPECT_EQ(profiles[i].kernels[k].bytes, s.profiles[i].kernels[k].bytes);
    }
  }
  auto autotunes = store.autotuneChoices(id);
  ASSERT_EQ(autotunes.size(), s.autotunes.size());
  for (size_t i = 0; i < autotunes.size(); ++i) {
    const auto &got = autotunes[i], &want = s.autotunes[i];
    EXPECT_EQ(got.compileId, want.compileId);
    EXPECT_EQ(got.node, want.node);
    EXPECT_EQ(got.op, want.op);
    EXPECT_EQ(got.problem, want.problem);
    EXPECT_EQ(got.cached, want.cached);
    ASSERT_EQ(got.candidates.size(), want.candidates.size());
    for (size_t k = 0; k < got.candidates.size(); ++k) {
      EXPECT_EQ(got.candidates[k].algo, want.candidates[k].algo);
      EXPECT_DOUBLE_EQ(got.candidates[k].ms, want.candidates[k].ms);
      EXPECT_EQ(got.candidates[k].note, want.candidates[k].note);
      EXPECT_EQ(got.candidates[k].chosen, want.candidates[k].chosen);
    }
  }
}

}  // namespace kiln::storage::testing
