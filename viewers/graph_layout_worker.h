// GraphLayoutWorker: runs computeGraphLayout() on its own thread so the UI never waits for
// Graphviz. Only the newest request matters: older requests still queued are skipped, and the
// result of one already running is dropped when it arrives (dot itself cannot be interrupted).
#pragma once

#include "viewers/graph_layout.h"

#include <QObject>
#include <QThread>

#include <atomic>
#include <memory>

namespace kiln::viewers {

class GraphLayoutWorker : public QObject {
  Q_OBJECT

 public:
  explicit GraphLayoutWorker(QObject* parent = nullptr);
  ~GraphLayoutWorker() override;

  // Queues a layout of `graph`; returns the id its GraphLayout will carry.
  quint64 request(ir::Graph graph, LabelMetrics metrics);
  // Forgets every request made so far: none of them will be delivered.
  void cancel();
  bool busy() const { return pending_ != 0; }

 signals:
  // Delivered on the thread that owns the worker (the UI thread), newest request only.
  void layoutReady(const kiln::viewers::GraphLayout& layout);

 private:
  void deliver(const GraphLayout& layout);

  QThread thread_;
  QObject* context_ = nullptr;  // lives in thread_; requests run as its queued calls
  std::atomic<quint64> latest_{0};
  quint64 nextId_ = 0;
  quint64 pending_ = 0;  // the id awaited by the UI, 0 when idle
};

}  // namespace kiln::viewers
