#include "viewers/graph_legend.h"

#include "viewers/op_colour.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

namespace kiln::viewers {
namespace {

// One legend entry: a colour swatch and its meaning, inline so the entries flow across the strip.
QString swatch(const QColor& fill, const QString& text) {
  // A short entry stays on one line (the strip wraps between entries); a long one may wrap.
  QString shown = text.toHtmlEscaped();
  if (text.size() <= 32) shown.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
  return QStringLiteral("<span style='background-color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp;&nbsp; ")
      .arg(fill.name(), shown);
}

// With no overlay: what the view's own colours mean.
QString baseLegend() {
  QString h;
  h += swatch(QColor(0x2e, 0x9e, 0x4f), QObject::tr("added by this step"));
  h += swatch(QColor(0xe0, 0x8e, 0x0b), QObject::tr("changed"));
  h += swatch(QColor(0xd9, 0x48, 0x3b), QObject::tr("removed (ghost)"));
  h += swatch(QColor(0x1f, 0x6f, 0xd0), QObject::tr("selected"));
  h += swatch(QColor::fromHsl(137, 200, 215), QObject::tr("from the selected source line"));
  h += QObject::tr("<span style='color:#6a6f78'>zoomed out:</span> ");
  h += swatch(opKindColour(QStringLiteral("aten.mm.default")), QObject::tr("matmul, conv"));
  h += swatch(opKindColour(QStringLiteral("aten.sum.dim_IntList")), QObject::tr("reduction"));
  h += swatch(opKindColour(QStringLiteral("aten.view.default")), QObject::tr("view"));
  h += swatch(opKindColour(QStringLiteral("aten.relu.default")), QObject::tr("pointwise"));
  h += swatch(opKindColour(QStringLiteral("input")), QObject::tr("input"));
  return h;
}

}  // namespace

GraphLegend::GraphLegend(QWidget* parent)
    : QFrame(parent), chooser_(new QComboBox(this)), fold_(new QToolButton(this)), body_(new QLabel(this)) {
  setObjectName(QStringLiteral("graphLegend"));
  setFrameShape(QFrame::NoFrame);
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, QColor(0xe9, 0xeb, 0xef));  // a plain node's white swatch shows on it
  setPalette(pal);
  chooser_->addItems(overlayNames());
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  chooser_->setToolTip(
      tr("Colour the nodes by: the kernel they are in, its time or bytes per launch (run profile), their dtype, or "
         "how their shape changes"));
  fold_->setAutoRaise(true);
  fold_->setCheckable(true);
  fold_->setToolTip(tr("Show or hide what the colours mean"));
  connect(fold_, &QToolButton::toggled, this, [this](bool on) { setFolded(on); });
  body_->setTextFormat(Qt::RichText);
  body_->setWordWrap(true);
  auto* top = top_ = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  top->addWidget(new QLabel(tr("Colour by"), this));
  top->addWidget(chooser_);
  top->addWidget(fold_);
  top->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 3, 6, 3);
  layout->setSpacing(2);
  layout->addLayout(top);
  layout->addWidget(body_);
  connect(chooser_, &QComboBox::currentIndexChanged, this, [this](int i) { emit overlayChosen(Overlay(i)); });
  setFolded(false);
  showPaint({});
}

Overlay GraphLegend::overlay() const { return Overlay(std::max(0, chooser_->currentIndex())); }

void GraphLegend::setOverlay(Overlay mode) { chooser_->setCurrentIndex(int(mode)); }

bool GraphLegend::folded() const { return body_->isHidden(); }

void GraphLegend::setFolded(bool folded) {
  body_->setVisible(!folded);
  fold_->setChecked(folded);
  fold_->setArrowType(folded ? Qt::DownArrow : Qt::UpArrow);
  fit();
}

void GraphLegend::showPaint(const OverlayPaint& paint) {
  if (overlay() == Overlay::None) {
    body_->setText(baseLegend());
  } else {
    QString h = QStringLiteral("<b>%1</b>&nbsp;&nbsp; ").arg(paint.title.toHtmlEscaped());
    for (const auto& e : paint.legend) h += swatch(e.colour, e.text);
    if (!paint.message.isEmpty()) h += QStringLiteral("<span style='color:#a3461c'>%1</span>").arg(paint.message.toHtmlEscaped());
    body_->setText(h);
  }
  fit();
}

QString GraphLegend::text() const {
  QTextDocument doc;
  doc.setHtml(body_->text());
  QString text = chooser_->currentText() + QLatin1Char('\n') + doc.toPlainText();
  return text.replace(QChar::Nbsp, QLatin1Char(' '));
}

void GraphLegend::fit() {
  // The owner sizes the strip (its width is the view's): say the height changed.
  updateGeometry();
  emit resized();
}

void GraphLegend::addToTopRow(QWidget* widget) {
  widget->setParent(this);
  top_->insertWidget(top_->count() - 1, widget, 1);
}

int GraphLegend::heightFor(int width) const { return layout()->totalHeightForWidth(width); }

}  // namespace kiln::viewers
