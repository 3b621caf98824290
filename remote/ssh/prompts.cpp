#include "prompts.h"

namespace ptwb {

namespace {

template<typename Char>
void overwrite(const Char *data, qsizetype size)
{
    // volatile: the stores are not optimised away even though the buffer is freed soon after.
    volatile Char *chars = const_cast<Char *>(data);
    for (qsizetype i = 0; i < size; ++i)
        chars[i] = Char(0);
}

}  // namespace

void wipeSecret(QString &secret)
{
    // Static text (a literal) is not ours to overwrite; shared text is its last holder's.
    if (secret.data_ptr().isMutable() && secret.isDetached())
        overwrite(reinterpret_cast<const char16_t *>(secret.constData()), secret.size());
    secret.resize(0);
}

void wipeSecret(QByteArray &secret)
{
    if (secret.data_ptr().isMutable() && secret.isDetached())
        overwrite(secret.constData(), secret.size());
    secret.resize(0);
}

void wipeShared(QString &secret)
{
    if (secret.data_ptr().isMutable())
        overwrite(reinterpret_cast<const char16_t *>(secret.constData()), secret.size());
    secret = QString();
}

QString ownCopy(const QString &text)
{
    return QString(text.constData(), text.size());
}

void SecretTexts::wipe()
{
    if (!isDetached())
        return;  // another copy of the list holds the same texts and wipes them when it goes
    for (QString &text : *this)  // detached: no copy is made here
        wipeSecret(text);
}

void SynchronousSshPrompts::ask(const SshPromptRequest &request, Reply reply)
{
    using Kind = SshPromptRequest::Kind;
    SshPromptAnswer answer;
    std::optional<QString> text;
    switch (request.kind) {
    case Kind::UnknownHost:
        answer.given =
            acceptUnknownHost(request.host, request.port, request.keyType, request.fingerprint);
        if (!answer.given)
            answer.note = unconfirmedHostNote();
        break;
    case Kind::Passphrase:
        text = passphrase(request.keyFile);
        break;
    case Kind::Password:
        text = password(request.user, request.host);
        break;
    case Kind::KeyboardInteractive:
        if (std::optional<QStringList> answers =
                keyboardInteractive(request.name, request.instruction, request.questions)) {
            answer.given = true;
            answer.texts = std::move(*answers);
        }
        break;
    }
    if (text) {
        answer.given = true;
        answer.texts = {std::move(*text)};
    }
    reply(std::move(answer));
}

}  // namespace ptwb
