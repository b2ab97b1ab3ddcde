// TimingsChart: compile time per phase for every compile of a session, as a stacked horizontal
// bar chart (Qt Charts): one bar per compile id ([0/0], [0/1] ...), one colour per phase
// (capture, lower, passes, schedule, codegen), so the slow phase of a slow recompile stands out.
// Reads the session's timings from the store.
#pragma once

#include "engine/session/events.h"

#include <QChartView>
#include <QStringList>

#include <vector>

namespace kiln::viewers {

class TimingsChart : public QChartView {
  Q_OBJECT

 public:
  explicit TimingsChart(QWidget* parent = nullptr);

  void setTimings(const std::vector<session::TimingEvent>& timings);
  // What the chart shows: compile ids (bar order) and per phase the ms of each compile.
  const QStringList& compiles() const { return compiles_; }
  const QStringList& phases() const { return phases_; }
  double ms(const QString& phase, int compile) const;

 private:
  QStringList compiles_, phases_;
  std::vector<std::vector<double>> ms_;  // [phase][compile]
};

}  // namespace kiln::viewers
