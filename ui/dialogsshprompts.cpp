#include "dialogsshprompts.h"

#include "sshanswerdialog.h"

#include <QCoreApplication>
#include <QHash>
#include <QMessageBox>
#include <QThread>
#include <QWidget>

#include <utility>

namespace ptwb::ui {

// DialogSshPrompts' GUI-thread half: builds a dialog per question, remembers it by the question's
// id, and replies once, when it closes (or is destroyed with the window, as "not given").
class SshPromptDialogs : public QObject
{
public:
    explicit SshPromptDialogs(QWidget *window)
        : m_window(window)
    {
    }

    void show(const SshPromptRequest &request, SshPrompts::Reply reply);
    void withdraw(quint64 id);
    QDialog *dialogFor(quint64 id) const { return m_open.value(id); }

private:
    QDialog *hostKeyQuestion(const SshPromptRequest &request, QWidget *parent);
    QDialog *textQuestion(const SshPromptRequest &request, QWidget *parent);

    QPointer<QWidget> m_window;
    QHash<quint64, QPointer<QDialog>> m_open;
};

namespace {

bool onGuiThread()
{
    const QCoreApplication *app = QCoreApplication::instance();
    return app && QThread::currentThread() == app->thread();
}

// Calls the reply at most once; shared by a dialog's finished and destroyed handlers.
struct ReplyOnce
{
    SshPrompts::Reply reply;
    void operator()(SshPromptAnswer answer)
    {
        if (!reply)
            return;
        const SshPrompts::Reply take = std::exchange(reply, nullptr);
        take(std::move(answer));
    }
};

}  // namespace

QDialog *SshPromptDialogs::hostKeyQuestion(const SshPromptRequest &request, QWidget *parent)
{
    Q_ASSERT(onGuiThread());
    auto *box = new QMessageBox(
        QMessageBox::Question, QObject::tr("Unknown device"),
        QObject::tr("<p>This is the first connection to <b>%1:%2</b>.</p>"
                    "<p>It identifies itself with the %3 key<br><tt>%4</tt></p>"
                    "<p>Compare it with the fingerprint the device itself prints "
                    "for</p><pre>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</pre>"
                    "<p>Trust it and remember it?</p>")
            .arg(request.host.toHtmlEscaped())
            .arg(request.port)
            .arg(request.keyType.toHtmlEscaped(), request.fingerprint.toHtmlEscaped()),
        QMessageBox::Yes | QMessageBox::No, parent);
    box->setTextFormat(Qt::RichText);
    box->setObjectName(QStringLiteral("hostKeyQuestion"));
    box->setDefaultButton(QMessageBox::No);
    return box;
}

QDialog *SshPromptDialogs::textQuestion(const SshPromptRequest &request, QWidget *parent)
{
    Q_ASSERT(onGuiThread());
    using Kind = SshPromptRequest::Kind;
    switch (request.kind) {
    case Kind::Passphrase:
        return new SshAnswerDialog(QObject::tr("Key passphrase"), {},
                                   {{QObject::tr("Passphrase for %1:").arg(request.keyFile)}},
                                   parent);
    case Kind::Password:
        return new SshAnswerDialog(
            QObject::tr("Password"), {},
            {{QObject::tr("Password of %1 on %2:").arg(request.user, request.host)}}, parent);
    case Kind::KeyboardInteractive:
    case Kind::UnknownHost:
        break;
    }
    const QString title =
        request.name.isEmpty() ? QObject::tr("Sign in to %1").arg(request.host) : request.name;
    return new SshAnswerDialog(title, request.instruction, request.questions, parent);
}

void SshPromptDialogs::show(const SshPromptRequest &request, SshPrompts::Reply reply)
{
    auto once = std::make_shared<ReplyOnce>(ReplyOnce {std::move(reply)});
    // Widgets are the GUI thread's alone (built elsewhere, Qt warns of a parent in another
    // thread and may crash). This object is moved there when made; checked in every build, not
    // only where Q_ASSERT is on, since a dialog off that thread is no question to answer.
    if (!onGuiThread()) {
        qCritical("ptwb: an SSH question reached a thread other than the GUI's; not shown");
        SshPromptAnswer none;
        none.note = QObject::tr("the question could not be shown (not on the window's thread)");
        (*once)(std::move(none));
        return;
    }
    if (!m_window) {
        SshPromptAnswer none;
        none.note = QObject::tr("the window that would have asked was closed");
        (*once)(std::move(none));
        return;
    }
    const bool hostKey = request.kind == SshPromptRequest::Kind::UnknownHost;
    QDialog *dialog =
        hostKey ? hostKeyQuestion(request, m_window) : textQuestion(request, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    const quint64 id = request.id;
    m_open.insert(id, dialog);
    QObject::connect(dialog, &QDialog::finished, this, [this, dialog, once, hostKey, id](int r) {
        m_open.remove(id);
        SshPromptAnswer answer;
        if (hostKey) {
            answer.given = r == QMessageBox::Yes;
        } else if (r == QDialog::Accepted) {
            answer.given = true;
            answer.texts = static_cast<SshAnswerDialog *>(dialog)->takeAnswers();
        }
        (*once)(std::move(answer));
    });
    QObject::connect(dialog, &QObject::destroyed, this, [this, once, id] {
        m_open.remove(id);
        SshPromptAnswer none;  // gone with the window, unanswered
        none.note = QObject::tr("its window was closed before it was answered");
        (*once)(std::move(none));
    });
    // open(), not exec(): the window keeps running and nothing nests an event loop.
    dialog->open();
}

void SshPromptDialogs::withdraw(quint64 id)
{
    const QPointer<QDialog> dialog = m_open.take(id);
    if (!dialog)
        return;
    dialog->disconnect(this);  // the asker stopped waiting: no reply
    dialog->reject();  // closes and, WA_DeleteOnClose, deletes it
}

DialogSshPrompts::DialogSshPrompts(QWidget *window)
    : m_dialogs(new SshPromptDialogs(window))
{
    // Created wherever this object is (a sweep's thread creates transports too); it works on
    // the GUI thread, the only one that may build widgets.
    m_dialogs->moveToThread(QCoreApplication::instance()->thread());
}

DialogSshPrompts::~DialogSshPrompts()
{
    m_dialogs->deleteLater();  // open dialogs belong to the window and reply as they go
}

void DialogSshPrompts::ask(const SshPromptRequest &request, Reply reply)
{
    SshPromptDialogs *dialogs = m_dialogs;
    QMetaObject::invokeMethod(
        dialogs, [dialogs, request, reply = std::move(reply)] { dialogs->show(request, reply); },
        Qt::QueuedConnection);
}

void DialogSshPrompts::cancel(quint64 id)
{
    SshPromptDialogs *dialogs = m_dialogs;
    // Queued after the ask() of the same id from the same thread, so it finds its dialog.
    QMetaObject::invokeMethod(
        dialogs, [dialogs, id] { dialogs->withdraw(id); }, Qt::QueuedConnection);
}

QDialog *DialogSshPrompts::dialogFor(quint64 id) const
{
    return onGuiThread() ? m_dialogs->dialogFor(id) : nullptr;
}

}  // namespace ptwb::ui
