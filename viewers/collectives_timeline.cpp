#include "viewers/collectives_timeline.h"

#include "storage/collective_text.h"

#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

namespace kiln::viewers {

namespace {

constexpr double kHeaderWidth = 170;  // lane names
constexpr double kAxisHeight = 26;
constexpr double kRowHeight = 20;
constexpr double kLaneGap = 10;
constexpr double kMargin = 16;
constexpr int kMaxRows = 4;  // label rows per lane before labels are left to the tooltip
constexpr double kMinBarWidth = 2;

QString qs(const std::string& s) { return QString::fromStdString(s); }

// all_reduce, broadcast, barrier first (DDP's order of interest), anything else after.
int laneRank(const std::string& op) {
  static const std::vector<std::string> order = {"all_reduce", "broadcast", "barrier"};
  return int(std::find(order.begin(), order.end(), op) - order.begin());
}

QColor laneColour(int lane) {
  static const QColor colours[] = {QColor(0x3b, 0x7d, 0xd8), QColor(0x3f, 0xa3, 0x5b), QColor(0x8a, 0x8f, 0x98), QColor(0xc0, 0x7a, 0x2c)};
  return colours[lane % 4];
}

// Distinct labels of a lane (DDP's buckets) get distinct shades of the lane's colour.
QColor labelShade(QColor base, int index) {
  static const int shift[] = {0, 40, -35, 75, -70};
  float h, s, v;
  base.getHsvF(&h, &s, &v);
  const float hue = std::fmod(h + float(shift[index % 5]) / 360.0f + 1.0f, 1.0f);
  return QColor::fromHsvF(hue, s, std::clamp(v - 0.08f * float(index / 5), 0.3f, 1.0f));
}

// A tick step of 1, 2 or 5 times a power of ten that leaves at least `minPx` between ticks.
double tickStep(double pxPerMs, double minPx) {
  double step = std::pow(10.0, std::floor(std::log10(std::max(minPx / pxPerMs, 1e-6))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (step * m * pxPerMs >= minPx) return step * m;
  return step * 10;
}

}  // namespace

CollectivesTimeline::CollectivesTimeline(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setAlignment(Qt::AlignLeft | Qt::AlignTop);
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setMinimumHeight(120);
  rebuild();
}

double CollectivesTimeline::xOf(double ms) const { return kHeaderWidth + (ms - startMs_) * pxPerMs_; }

void CollectivesTimeline::setCollectives(std::vector<session::CollectiveEvent> collectives) {
  collectives_ = std::move(collectives);
  startMs_ = 0;
  endMs_ = 1;
  if (!collectives_.empty()) {
    startMs_ = collectives_.front().issuedAtMs;
    endMs_ = startMs_;
    for (const auto& c : collectives_) {
      startMs_ = std::min(startMs_, c.issuedAtMs);
      endMs_ = std::max({endMs_, c.issuedAtMs + std::max(c.durationMs, 0.0), c.waitedAtMs});
    }
    if (endMs_ - startMs_ < 0.01) endMs_ = startMs_ + 0.01;
  }
  fit();
}

void CollectivesTimeline::fit() {
  fitted_ = true;
  const double width = std::max(200.0, double(viewport()->width()) - kHeaderWidth - 2 * kMargin - 240);  // room for the last label
  pxPerMs_ = width / (endMs_ - startMs_);
  rebuild();
}

void CollectivesTimeline::zoomBy(double factor, int anchorX) {
  const double sceneX = mapToScene(anchorX, 0).x();
  const double ms = startMs_ + (sceneX - kHeaderWidth) / pxPerMs_;
  fitted_ = false;
  pxPerMs_ = std::clamp(pxPerMs_ * factor, 1e-3, 1e6);
  rebuild();
  horizontalScrollBar()->setValue(int(xOf(ms) - anchorX));
}

void CollectivesTimeline::wheelEvent(QWheelEvent* e) {
  if (e->modifiers() & Qt::ControlModifier) {
    zoomBy(std::pow(1.0015, e->angleDelta().y()), int(e->position().x()));
    e->accept();
    return;
  }
  QGraphicsView::wheelEvent(e);
}

void CollectivesTimeline::mouseDoubleClickEvent(QMouseEvent* e) {
  fit();
  e->accept();
}

void CollectivesTimeline::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  if (fitted_) fit();
}

void CollectivesTimeline::rebuild() {
  QGraphicsScene* s = scene();
  s->clear();
  bars_.clear();
  lanes_.clear();
  const QFont font = this->font();
  const QFontMetricsF fm(font);
  if (collectives_.empty()) {
    auto* t =
        s->addSimpleText(tr("No torch.distributed collectives in this session (they are recorded for scripts that call "
                            "all_reduce, broadcast or barrier, as DistributedDataParallel does)"));
    t->setPos(kMargin, kMargin);
    s->setSceneRect(s->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin));
    return;
  }

  // Lanes, in the fixed order of their kinds.
  std::vector<std::string> ops;
  for (const auto& c : collectives_)
    if (std::find(ops.begin(), ops.end(), c.op) == ops.end()) ops.push_back(c.op);
  std::stable_sort(ops.begin(), ops.end(), [](const std::string& a, const std::string& b) { return laneRank(a) < laneRank(b); });

  const double right = xOf(endMs_);
  // The axis: ms since the session started.
  const double step = tickStep(pxPerMs_, 90);
  const QPen gridPen(QColor(0, 0, 0, 28));
  double y = kAxisHeight;
  double laneTop = y;

  for (size_t lane = 0; lane < ops.size(); ++lane) {
    const std::string& op = ops[lane];
    // Bars in issue order; each takes the first label row whose last label ended before it.
    std::vector<const session::CollectiveEvent*> mine;
    for (const auto& c : collectives_)
      if (c.op == op) mine.push_back(&c);
    std::stable_sort(mine.begin(), mine.end(), [](auto* a, auto* b) { return a->issuedAtMs < b->issuedAtMs; });
    std::map<std::string, int> shadeOf;
    std::vector<double> rowFree;  // per label row: the x where it is free again
    struct Placed {
      const session::CollectiveEvent* c;
      int row;
      bool labelled;
    };
    std::vector<Placed> placed;
    bool overflow = false;
    for (const auto* c : mine) {
      const double x = xOf(c->issuedAtMs);
      const double w = std::max(kMinBarWidth, (c->durationMs < 0 ? endMs_ - c->issuedAtMs : c->durationMs) * pxPerMs_);
      const double labelEnd = x + w + 4 + fm.horizontalAdvance(qs(storage::collectiveSummary(*c))) + 12;
      int row = -1;
      for (size_t r = 0; r < rowFree.size(); ++r)
        if (rowFree[r] <= x) {
          row = int(r);
          break;
        }
      bool labelled = true;
      if (row < 0 && int(rowFree.size()) < kMaxRows) {
        row = int(rowFree.size());
        rowFree.push_back(0);
      }
      if (row < 0) {  // no room for its label: the bar goes in the lane's last row, which holds no labels
        labelled = false;
        overflow = true;
      } else {
        rowFree[size_t(row)] = labelEnd;
      }
      shadeOf.emplace(c->label, int(shadeOf.size()));
      placed.push_back({c, row, labelled});
    }
    for (auto& p : placed)
      if (!p.labelled) p.row = int(rowFree.size());
    const int rows = std::max<int>(1, int(rowFree.size()) + (overflow ? 1 : 0));
    const double laneHeight = rows * kRowHeight + 8;

    // Lane background and header.
    auto* band =
        s->addRect(QRectF(0, laneTop, right + kMargin + 240, laneHeight), Qt::NoPen, lane % 2 ? QColor(0, 0, 0, 10) : QColor(0, 0, 0, 0));
    band->setZValue(-2);
    const QString name = qs(op);
    lanes_ << name;
    auto* header = s->addSimpleText(tr("%1 · %2").arg(name).arg(mine.size()));
    QFont bold = font;
    bold.setBold(true);
    header->setFont(bold);
    header->setPos(kMargin / 2, laneTop + (laneHeight - fm.height()) / 2);

    const QColor base = laneColour(laneRank(op) < 3 ? laneRank(op) : 3);
    for (const auto& p : placed) {
      const auto& c = *p.c;
      const double x = xOf(c.issuedAtMs);
      const bool running = c.durationMs < 0;
      const double w = std::max(kMinBarWidth, (running ? endMs_ - c.issuedAtMs : c.durationMs) * pxPerMs_);
      const double top = laneTop + 4 + p.row * kRowHeight;
      const QRectF rect(x, top + 3, w, kRowHeight - 6);
      const QString summary = qs(storage::collectiveSummary(c));
      const QString tip = tr("#%1 %2\n%3").arg(c.seq).arg(summary, qs(storage::collectiveDetails(c)));
      const QColor colour = labelShade(base, shadeOf[c.label]);
      // Issue to the script's wait() returning: what the host did meanwhile (DDP's backward), a
      // faint band under the bar and the labels (a line through them would strike them out).
      if (c.waitedAtMs > c.issuedAtMs) {
        QColor faint = colour;
        faint.setAlpha(45);
        auto* wait = s->addRect(QRectF(x, rect.top(), xOf(c.waitedAtMs) - x, rect.height()), Qt::NoPen, faint);
        wait->setToolTip(tip);
        wait->setZValue(0);
      }
      QPen outline(colour.darker(130));
      if (running) outline.setStyle(Qt::DashLine);
      auto* bar = s->addRect(rect, outline, running ? QBrush(colour.lighter(160), Qt::BDiagPattern) : QBrush(colour));
      bar->setToolTip(tip);
      bar->setZValue(1);
      if (p.labelled) {
        auto* text = s->addSimpleText(summary);
        text->setPos(x + w + 4, top + (kRowHeight - fm.height()) / 2);
        text->setToolTip(tip);
        text->setZValue(2);
      }
      bars_.push_back({int(lane), c.seq, rect, summary, tip, p.labelled, running});
    }
    laneTop += laneHeight + kLaneGap;
    y = laneTop;
  }

  // Ticks and grid lines over every lane.
  const double first = std::ceil(startMs_ / step) * step;
  for (double t = first; t <= endMs_ + 1e-9; t += step) {
    const double x = xOf(t);
    s->addLine(x, kAxisHeight - 4, x, y - kLaneGap, gridPen)->setZValue(-1);
    auto* label = s->addSimpleText(QStringLiteral("%1 ms").arg(t, 0, 'f', step < 1 ? (step < 0.1 ? 2 : 1) : 0));
    label->setPos(x - fm.horizontalAdvance(label->text()) / 2, 2);
  }
  s->setSceneRect(QRectF(0, 0, right + kMargin + 240, y));
}

}  // namespace kiln::viewers
