#include "prompts.h"

namespace ptwb {

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
