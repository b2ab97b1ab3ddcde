#include "viewers/profile_charts.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHorizontalBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace kiln::viewers {

namespace {

// A horizontal bar chart: one category per label (top to bottom in `labels` order), one bar
// set per series.
QChart* barChart(const QString& title, const QStringList& labels, const std::vector<std::pair<QString, std::vector<double>>>& sets) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setVisible(sets.size() > 1);
  if (labels.isEmpty()) return chart;
  auto* series = new QHorizontalBarSeries;
  double longest = 0;
  for (const auto& [name, values] : sets) {
    auto* set = new QBarSet(name);
    // Qt draws the first category at the bottom: feed them reversed so the list reads downwards.
    for (auto it = values.rbegin(); it != values.rend(); ++it) {
      *set << *it;
      longest = std::max(longest, *it);
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* axisY = new QBarCategoryAxis;
  // Qt Charts elides a category label that is wider than it allows, down to a lone "…" for
  // every kernel name: the axis takes the width its labels need instead.
  axisY->setTruncateLabels(false);
  QStringList reversed(labels.rbegin(), labels.rend());
  axisY->append(reversed);
  chart->addAxis(axisY, Qt::AlignLeft);
  series->attachAxis(axisY);
  auto* axisX = new QValueAxis;
  axisX->setRange(0, longest > 0 ? longest * 1.08 : 1.0);
  axisX->setLabelFormat(longest < 0.1 ? QStringLiteral("%.4f") : longest < 10 ? QStringLiteral("%.2f") : QStringLiteral("%.0f"));
  chart->addAxis(axisX, Qt::AlignBottom);
  series->attachAxis(axisX);
  return chart;
}

void replaceChart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
}

}  // namespace

ProfileCharts::ProfileCharts(QWidget* parent) : QWidget(parent), run_(new QChartView(this)), kernel_(new QChartView(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  for (QChartView* v : {run_, kernel_}) {
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumHeight(120);
    layout->addWidget(v);
  }
  setProfiles({});
}

void ProfileCharts::setProfiles(const std::vector<session::ProfileEvent>& profiles) {
  compiles_.clear();
  kernels_.clear();
  eager_.clear();
  compiled_.clear();
  kernelMs_.clear();
  int repeat = 0;
  std::vector<std::pair<double, QString>> ks;
  for (const auto& p : profiles) {
    compiles_ << QLatin1Char('[') + QString::fromStdString(p.compileId) + QLatin1Char(']');
    eager_.push_back(p.eagerMs);
    compiled_.push_back(p.compiledMs);
    repeat = p.repeat;
    for (const auto& k : p.kernels) ks.push_back({k.ms, compiles_.back() + QLatin1Char(' ') + QString::fromStdString(k.name)});
  }
  std::stable_sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < ks.size() && i < size_t(kKernelsShown); ++i) {
    kernels_ << ks[i].second;
    kernelMs_.push_back(ks[i].first);
  }
  if (profiles.empty()) {
    replaceChart(run_, barChart(tr("Not profiled: the studio profiles the scripts it runs; from a shell, kiln run --profile N"), {}, {}));
    replaceChart(kernel_, barChart(tr("No kernel times"), {}, {}));
    return;
  }
  replaceChart(run_, barChart(tr("Run time per compiled graph (ms, median of %1 runs)").arg(repeat), compiles_,
                              {{tr("eager"), eager_}, {tr("compiled"), compiled_}}));
  // A GPU graph's profile lists its extern calls (cuBLAS, cuDNN) beside the generated kernels.
  const bool externs = std::any_of(ks.begin(), ks.end(), [](const auto& k) { return k.second.contains(QLatin1String("extern_kernels.")); });
  replaceChart(kernel_, barChart(ks.empty() ? tr("No generated kernels")
                                 : externs  ? tr("Slowest kernels and extern calls (ms per call)")
                                            : tr("Slowest generated kernels (ms per launch)"),
                                 kernels_, {{tr("ms"), kernelMs_}}));
}

}  // namespace kiln::viewers
