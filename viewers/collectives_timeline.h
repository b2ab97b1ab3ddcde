// CollectivesTimeline: the torch.distributed collectives of a session on a time axis (ms since
// the session started). One lane per kind of collective (all_reduce, broadcast, barrier); each
// collective is a bar from its issue time for its duration, labelled "all_reduce bucket 0 ·
// 4.1 MiB · 0.350 ms" where the label fits (up to four label rows; bars without room for theirs
// go in a row of their own below), with a faint band on to when the script's wait()
// returned (DDP: the backward computing meanwhile); the tooltip has every detail. A collective
// whose duration was never known is drawn dashed to the end. Ctrl+wheel zooms around the
// pointer, double-click fits. Reads only what Store::collectives gives.
//
// Compile phases are not drawn here: the store keeps their durations, not when they ran.
#pragma once

#include "engine/session/events.h"

#include <QGraphicsView>
#include <QStringList>

#include <vector>

namespace kiln::viewers {

class CollectivesTimeline : public QGraphicsView {
  Q_OBJECT

 public:
  explicit CollectivesTimeline(QWidget* parent = nullptr);

  void setCollectives(std::vector<session::CollectiveEvent> collectives);
  // Fits the whole span into the view's width (also on double-click).
  void fit();
  // Horizontal zoom by `factor` keeping the time under view x `anchorX` in place.
  void zoomBy(double factor, int anchorX);

  // What is drawn, for the tests: lane names in order, and one bar per collective.
  struct Bar {
    int lane = 0;
    int64_t seq = 0;
    QRectF rect;    // scene coordinates
    QString label;  // the summary line
    QString toolTip;
    bool labelShown = false;  // false where neighbours left no room (the tooltip still has it)
    bool running = false;     // duration unknown
  };
  const QStringList& lanes() const { return lanes_; }
  const std::vector<Bar>& bars() const { return bars_; }
  int collectiveCount() const { return int(collectives_.size()); }
  double pixelsPerMs() const { return pxPerMs_; }
  // Scene x of a time (ms since the session started).
  double xOf(double ms) const;

 protected:
  void wheelEvent(QWheelEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void rebuild();

  std::vector<session::CollectiveEvent> collectives_;
  QStringList lanes_;
  std::vector<Bar> bars_;
  double startMs_ = 0, endMs_ = 1;
  double pxPerMs_ = 1;
  bool fitted_ = true;  // follow the view's width until the user zooms
};

}  // namespace kiln::viewers
