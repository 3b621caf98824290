#pragma once

#include "prompts.h"

#include <QObject>
#include <QPointer>
#include <QWidget>

namespace ptwb::ui {

// The window's answers to the SSH transport's questions, as dialogs over `window`. The
// transport asks from its worker thread; each question hops to the GUI thread and waits
// there for the person (Qt::BlockingQueuedConnection), so the worker blocks, never the GUI.
// Create it on the GUI thread and hand it to SshOptions::prompts.
class DialogSshPrompts : public QObject, public SshPrompts
{
    Q_OBJECT

public:
    explicit DialogSshPrompts(QWidget *window);

    bool acceptUnknownHost(const QString &host, int port, const QString &keyType,
                           const QString &sha256Fingerprint) override;
    std::optional<QString> passphrase(const QString &keyFile) override;
    std::optional<QString> password(const QString &user, const QString &host) override;
    std::optional<QStringList> keyboardInteractive(const QString &name, const QString &instruction,
                                                   const QList<Question> &questions) override;

private:
    // Runs `ask` on the GUI thread and returns what it returned.
    template<typename Ask>
    auto onGuiThread(Ask ask) -> decltype(ask());

    std::optional<QString> askText(const QString &title, const QString &label, bool secret);

    QPointer<QWidget> m_window;
};

}  // namespace ptwb::ui
