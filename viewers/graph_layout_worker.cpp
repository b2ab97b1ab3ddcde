#include "viewers/graph_layout_worker.h"

#include "viewers/layout_wrap.h"

#include <limits>

namespace kiln::viewers {

GraphLayoutWorker::GraphLayoutWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<GraphLayout>();
  thread_.setObjectName(QStringLiteral("kiln-graph-layout"));
  context_ = new QObject;
  context_->moveToThread(&thread_);
  thread_.start(QThread::LowPriority);
}

GraphLayoutWorker::~GraphLayoutWorker() {
  // Skip whatever is still queued; a layout already running finishes before wait() returns,
  // and its result, queued to `this`, is discarded together with this object.
  latest_ = std::numeric_limits<quint64>::max();
  thread_.quit();
  thread_.wait();
  delete context_;
}

quint64 GraphLayoutWorker::request(ir::Graph graph, LabelMetrics metrics) {
  const quint64 id = ++nextId_;
  latest_ = id;
  pending_ = id;
  QMetaObject::invokeMethod(
      context_,
      [this, id, graph = std::move(graph), metrics] {
        if (latest_ != id) return;  // a newer request is queued behind this one
        GraphLayout layout = computeGraphLayout(graph, metrics);
        wrapLongLayout(layout);  // a long chain in several columns (layout_wrap.h)
        layout.requestId = id;
        QMetaObject::invokeMethod(
            this, [this, layout] { deliver(layout); }, Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
  return id;
}

void GraphLayoutWorker::cancel() {
  latest_ = ++nextId_;  // an id no request carries
  pending_ = 0;
}

void GraphLayoutWorker::deliver(const GraphLayout& layout) {
  if (layout.requestId != latest_) return;
  pending_ = 0;
  emit layoutReady(layout);
}

}  // namespace kiln::viewers
