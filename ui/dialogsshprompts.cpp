#include "dialogsshprompts.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QThread>

namespace ptwb::ui {

DialogSshPrompts::DialogSshPrompts(QWidget *window)
    : m_window(window)
{
}

template<typename Ask>
auto DialogSshPrompts::onGuiThread(Ask ask) -> decltype(ask())
{
    if (QThread::currentThread() == thread())
        return ask();  // already there: blocking on ourselves would deadlock
    decltype(ask()) answer {};
    QMetaObject::invokeMethod(
        this, [&answer, &ask] { answer = ask(); }, Qt::BlockingQueuedConnection);
    return answer;
}

bool DialogSshPrompts::acceptUnknownHost(const QString &host, int port, const QString &keyType,
                                         const QString &sha256Fingerprint)
{
    return onGuiThread([&] {
        QMessageBox box(QMessageBox::Question, tr("Unknown device"),
                        tr("<p>This is the first connection to <b>%1:%2</b>.</p>"
                           "<p>It identifies itself with the %3 key<br><tt>%4</tt></p>"
                           "<p>Compare it with the fingerprint the device itself prints "
                           "for</p><pre>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</pre>"
                           "<p>Trust it and remember it?</p>")
                            .arg(host.toHtmlEscaped())
                            .arg(port)
                            .arg(keyType.toHtmlEscaped(), sha256Fingerprint.toHtmlEscaped()),
                        QMessageBox::Yes | QMessageBox::No, m_window);
        box.setObjectName(QStringLiteral("hostKeyQuestion"));
        box.setDefaultButton(QMessageBox::No);
        return box.exec() == QMessageBox::Yes;
    });
}

std::optional<QString> DialogSshPrompts::askText(const QString &title, const QString &label,
                                                 bool secret)
{
    return onGuiThread([&]() -> std::optional<QString> {
        QInputDialog dialog(m_window);
        dialog.setObjectName(QStringLiteral("sshSecretQuestion"));
        dialog.setWindowTitle(title);
        dialog.setLabelText(label);
        dialog.setTextEchoMode(secret ? QLineEdit::Password : QLineEdit::Normal);
        if (dialog.exec() != QDialog::Accepted)
            return std::nullopt;
        return dialog.textValue();
    });
}

std::optional<QString> DialogSshPrompts::passphrase(const QString &keyFile)
{
    return askText(tr("Key passphrase"), tr("Passphrase for %1:").arg(keyFile), true);
}

std::optional<QString> DialogSshPrompts::password(const QString &user, const QString &host)
{
    return askText(tr("Password"), tr("Password of %1 on %2:").arg(user, host), true);
}

std::optional<QStringList> DialogSshPrompts::keyboardInteractive(const QString &name,
                                                                 const QString &instruction,
                                                                 const QList<Question> &questions)
{
    QStringList answers;
    for (const Question &question : questions) {
        const QString label = instruction.isEmpty()
            ? question.text
            : QStringLiteral("%1\n\n%2").arg(instruction, question.text);
        std::optional<QString> answer =
            askText(name.isEmpty() ? tr("Sign in") : name, label, !question.echo);
        if (!answer)
            return std::nullopt;
        answers.append(*answer);
    }
    return answers;
}

}  // namespace ptwb::ui
