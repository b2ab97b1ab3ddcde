// ProfileCharts: what running the compiled graphs cost, from a session's run profiles
// (kiln run --profile; the studio profiles the scripts it runs): per compile id, eager against
// compiled time as paired bars, and the slowest generated kernels with their time per launch.
// A session that was not profiled says how to get one.
#pragma once

#include "engine/session/events.h"

#include <QStringList>
#include <QWidget>

#include <vector>

class QChartView;

namespace kiln::viewers {

class ProfileCharts : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kKernelsShown = 15;

  explicit ProfileCharts(QWidget* parent = nullptr);
  void setProfiles(const std::vector<session::ProfileEvent>& profiles);

  // What the charts show: compile ids in bar order with their times, and the kernels charted
  // ("[0/0] name", slowest first) with their ms per launch.
  const QStringList& compiles() const { return compiles_; }
  const std::vector<double>& eagerMs() const { return eager_; }
  const std::vector<double>& compiledMs() const { return compiled_; }
  const QStringList& kernels() const { return kernels_; }
  const std::vector<double>& kernelMs() const { return kernelMs_; }
  QChartView* runChart() const { return run_; }
  QChartView* kernelChart() const { return kernel_; }

 private:
  QChartView* run_;
  QChartView* kernel_;
  QStringList compiles_, kernels_;
  std::vector<double> eager_, compiled_, kernelMs_;
};

}  // namespace kiln::viewers
