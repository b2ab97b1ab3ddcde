#include "viewers/timings_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace kiln::viewers {

TimingsChart::TimingsChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(120);
  setTimings({});
}

double TimingsChart::ms(const QString& phase, int compile) const {
  qsizetype p = phases_.indexOf(phase);
  if (p < 0 || compile < 0 || compile >= compiles_.size()) return 0.0;
  return ms_[size_t(p)][size_t(compile)];
}

void TimingsChart::setTimings(const std::vector<session::TimingEvent>& timings) {
  compiles_.clear();
  phases_.clear();
  ms_.clear();
  for (const auto& t : timings) {
    const QString c = QString::fromStdString(t.compileId), p = QString::fromStdString(t.phase);
    if (t.compileId.empty() || p == QLatin1String("run")) continue;
    if (!compiles_.contains(c)) compiles_ << c;
    if (!phases_.contains(p)) phases_ << p;
  }
  // The compiler's phases in pipeline order; anything else a session recorded goes after them.
  std::stable_sort(phases_.begin(), phases_.end(), [](const QString& a, const QString& b) {
    auto rank = [](const QString& p) {
      const auto& order = session::compilePhases();
      return std::find(order.begin(), order.end(), p.toStdString()) - order.begin();
    };
    return rank(a) < rank(b);
  });
  ms_.assign(size_t(phases_.size()), std::vector<double>(size_t(compiles_.size()), 0.0));
  for (const auto& t : timings) {
    qsizetype c = compiles_.indexOf(QString::fromStdString(t.compileId)), p = phases_.indexOf(QString::fromStdString(t.phase));
    if (c >= 0 && p >= 0) ms_[size_t(p)][size_t(c)] += t.ms;
  }

  auto* chart = new QChart;
  chart->setTitle(compiles_.isEmpty() ? tr("No compile timings in this session") : tr("Compile time per phase (ms)"));
  chart->legend()->setAlignment(Qt::AlignBottom);
  if (!compiles_.isEmpty()) {
    auto* series = new QHorizontalStackedBarSeries;
    double longest = 0;
    std::vector<double> total(size_t(compiles_.size()), 0.0);
    for (qsizetype p = 0; p < phases_.size(); ++p) {
      auto* set = new QBarSet(phases_[p]);
      for (qsizetype c = 0; c < compiles_.size(); ++c) {
        *set << ms_[size_t(p)][size_t(c)];
        total[size_t(c)] += ms_[size_t(p)][size_t(c)];
      }
      series->append(set);
    }
    for (double t : total) longest = std::max(longest, t);
    chart->addSeries(series);
    auto* axisY = new QBarCategoryAxis;
    QStringList labels;
    for (const auto& c : compiles_) labels << QLatin1Char('[') + c + QLatin1Char(']');
    axisY->append(labels);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisY);
    auto* axisX = new QValueAxis;
    axisX->setRange(0, longest > 0 ? longest * 1.05 : 1.0);
    axisX->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(axisX, Qt::AlignBottom);
    series->attachAxis(axisX);
  }
  QChart* old = this->chart();
  setChart(chart);
  delete old;
}

}  // namespace kiln::viewers
