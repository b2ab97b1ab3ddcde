#include "viewers/rule_steps_panel.h"

#include "engine/ir/graph_diff.h"
#include "viewers/graph_view.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace kiln::viewers {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// A titled read-only code pane in `split`; returns the editor.
QPlainTextEdit* codeEdit(QSplitter* split, const QString& title) {
  auto* box = new QWidget(split);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(new QLabel(title, box));
  auto* e = new QPlainTextEdit(box);
  e->setReadOnly(true);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(e, 1);
  split->addWidget(box);
  return e;
}

}  // namespace

RuleStepsPanel::RuleStepsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  prev_ = new QPushButton(tr("◀ Prev rule"), this);
  next_ = new QPushButton(tr("Next rule ▶"), this);
  prev_->setToolTip(tr("The rule application before this one (Alt+Left)"));
  next_->setToolTip(tr("The next rule application (Alt+Right)"));
  header_ = new QLabel(this);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bar->addWidget(prev_);
  bar->addWidget(next_);
  bar->addWidget(header_, 1);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Horizontal, this);
  list_ = new QListWidget(split);
  list_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  split->addWidget(list_);
  beforeEdit_ = codeEdit(split, tr("Before: the matched nodes and their inputs (the pass's input graph)"));
  afterEdit_ = codeEdit(split, tr("After: the replacement the root's users read (the pass's output graph)"));
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 3);
  layout->addWidget(split, 1);

  connect(prev_, &QPushButton::clicked, this, [this] { step(-1); });
  connect(next_, &QPushButton::clicked, this, [this] { step(1); });
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) { select(row); });
  hide();
}

void RuleStepsPanel::setApplications(std::vector<session::RuleApplication> apps, const ir::Graph& before, const ir::Graph& after) {
  clear();
  if (apps.empty()) return;
  apps_ = std::move(apps);
  // Copies: the stage's graphs go away after it is shown, and each selection reads them.
  before_ = before;
  after_ = after;
  {
    const QSignalBlocker block(list_);
    for (size_t k = 0; k < apps_.size(); ++k) {
      const auto& a = apps_[k];
      const ir::Node* root = before_.find(a.root);
      list_->addItem(QStringLiteral("%1  %2  @ %3").arg(k + 1).arg(qs(a.rule), root ? qs(root->name) : QString::number(a.root)));
    }
  }
  header_->setText(tr("%n rule application(s) in this pass: select one, or Next rule", nullptr, count()));
  show();
}

void RuleStepsPanel::clear() {
  apps_.clear();
  before_ = {};
  after_ = {};
  step_ = {};
  current_ = -1;
  {
    const QSignalBlocker block(list_);
    list_->clear();
  }
  header_->clear();
  beforeEdit_->clear();
  afterEdit_->clear();
  hide();
}

const session::RuleApplication* RuleStepsPanel::selected() const {
  return current_ >= 0 && current_ < count() ? &apps_[static_cast<size_t>(current_)] : nullptr;
}

void RuleStepsPanel::select(int index) {
  index = index < 0 || apps_.empty() ? -1 : std::min(index, count() - 1);
  if (index == current_) return;
  current_ = index;
  {
    const QSignalBlocker block(list_);
    list_->setCurrentRow(index);
  }
  if (const session::RuleApplication* a = selected()) {
    step_ = session::ruleStep(before_, after_, *a);
    header_->setText(header());
    beforeEdit_->setPlainText(qs(step_.beforeText));
    afterEdit_->setPlainText(qs(step_.afterText));
  } else {
    step_ = {};
    beforeEdit_->clear();
    afterEdit_->clear();
  }
  prev_->setEnabled(current_ != 0);
  next_->setEnabled(current_ + 1 < count());
  emit applicationSelected(current_);
}

bool RuleStepsPanel::step(int delta) {
  if (apps_.empty() || delta == 0) return false;
  const int to = current_ < 0 ? (delta > 0 ? 0 : count() - 1) : current_ + delta;
  if (to < 0 || to >= count()) return false;
  select(to);
  return true;
}

QString RuleStepsPanel::header() const {
  const session::RuleApplication* a = selected();
  if (!a) return {};
  return tr("%1 of %2 · %3 · defined at %4").arg(current_ + 1).arg(count()).arg(qs(a->rule), qs(a->where));
}

QString RuleStepsPanel::beforeText() const { return beforeEdit_->toPlainText(); }
QString RuleStepsPanel::afterText() const { return afterEdit_->toPlainText(); }

void markApplication(const RuleStepsPanel& panel, GraphView& view) {
  const session::RuleApplication* a = panel.selected();
  if (!a) return;
  const session::RuleStep& step = panel.selectedStep();
  ir::GraphChanges changes;
  changes.added = step.after;  // present in the output graph (RuleStep keeps only those)
  std::vector<ir::Node> removed;
  for (int id : step.matched)
    if (const ir::Node* n = panel.beforeGraph().find(id)) {
      changes.removed.push_back(n->name);
      removed.push_back(*n);
    }
  view.setChanges(changes, false, std::move(removed));
  if (a->replacement >= 0) view.selectNode(a->replacement);
}

}  // namespace kiln::viewers
