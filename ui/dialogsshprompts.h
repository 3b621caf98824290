#pragma once

#include "prompts.h"

#include <QPointer>

#include <memory>

class QDialog;
class QWidget;

namespace ptwb::ui {

class SshPromptDialogs;

// The window's answers to the SSH transport's questions, as non-modal dialogs over `window`.
// Asked from an SSH worker thread, it never blocks that thread: each question is queued to the
// GUI thread (the application's, whatever thread this object was created or asked on), shown
// there with open(), and the answer goes back through the reply callback when the person
// closes the dialog. A cancelled question (the device or the window closed meanwhile) closes its
// dialog. Create it on any thread and hand it to SshOptions::prompts.
class DialogSshPrompts : public SshPrompts
{
public:
    explicit DialogSshPrompts(QWidget *window);
    ~DialogSshPrompts() override;

    void ask(const SshPromptRequest &request, Reply reply) override;
    void cancel(quint64 id) override;

    // GUI thread only: the dialog showing question `id`, while it is open (tests).
    QDialog *dialogFor(quint64 id) const;

private:
    SshPromptDialogs *m_dialogs;  // lives on the GUI thread; deleteLater()ed with this object
};

}  // namespace ptwb::ui
