#pragma once

#include <QAbstractButton>
#include <QAction>
#include <QKeySequence>
#include <QWidget>

namespace ptwb::ui {

// An action of a view and the button that shows it: the shortcut works while the focus is
// anywhere in the view, the button carries the action's tooltip (which names the shortcut), and
// both trigger the same slot.
template<typename View, typename Slot>
void addViewAction(View *view, QAction *action, QAbstractButton *button,
                   const QKeySequence &shortcut, const QString &toolTip, Slot slot)
{
    action->setShortcut(shortcut);
    action->setToolTip(toolTip);
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    view->addAction(action);
    button->setToolTip(toolTip);
    QObject::connect(action, &QAction::triggered, view, slot);
    QObject::connect(button, &QAbstractButton::clicked, view, slot);
}

}  // namespace ptwb::ui
