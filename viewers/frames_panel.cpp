#include "viewers/frames_panel.h"

#include <QColor>
#include <QHeaderView>

namespace kiln::viewers {

namespace {

constexpr int kCompileRole = Qt::UserRole + 1;

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

FramesPanel::FramesPanel(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
  setHeaderLabels({tr("Frame / compile"), tr("Detail")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    for (QTreeWidgetItem* i = item; i; i = i->parent())
      if (const QString cid = i->data(0, kCompileRole).toString(); !cid.isEmpty()) {
        emit compileActivated(cid);
        return;
      }
  });
}

void FramesPanel::setSession(const std::vector<storage::FrameRow>& frames, const std::vector<storage::CompileRow>& compiles,
                             const std::vector<session::RecompileEvent>& recompiles) {
  clear();
  for (const auto& f : frames) {
    auto* frame = new QTreeWidgetItem(this, {QStringLiteral("frame %1: %2").arg(f.frameId).arg(qs(f.name)),
                                             QStringLiteral("%1:%2 (%3)").arg(qs(f.file)).arg(f.firstLine).arg(qs(f.kind))});
    for (const auto& c : compiles) {
      if (c.frameId != f.frameId) continue;
      auto* compile = new QTreeWidgetItem(frame, {QStringLiteral("[%1]").arg(qs(c.compileId)),
                                                  tr("%1 · %2 · %n guard(s)", nullptr, c.guardCount).arg(qs(c.backend), qs(c.status))});
      compile->setData(0, kCompileRole, qs(c.compileId));
      if (!c.message.empty()) compile->setToolTip(1, qs(c.message));
      if (c.status == "failed") {  // red, with its error and line: the failure is in plain sight
        compile->setText(1,
                         compile->text(1) + QStringLiteral(": ") + qs(c.message) + (c.line > 0 ? tr(" (line %1)").arg(c.line) : QString()));
        for (int col = 0; col < 2; ++col) compile->setForeground(col, QColor(0xc0, 0x39, 0x2b));
        if (!c.detail.empty()) compile->setToolTip(1, qs(c.message + "\n" + c.detail));
      }
      for (const auto& r : recompiles)
        if (r.compileId == c.compileId)
          for (const auto& reason : r.reasons) new QTreeWidgetItem(compile, {tr("recompiled because"), qs(reason)});
    }
  }
  expandAll();
}

}  // namespace kiln::viewers
