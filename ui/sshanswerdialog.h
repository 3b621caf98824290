#pragma once

#include "prompts.h"

#include <QDialog>
#include <QList>

class QLineEdit;

namespace ptwb::ui {

// The SSH transport's text questions in one non-modal dialog: a password, a key passphrase, or
// one keyboard-interactive round (a field per question). Everything shown comes from the
// server or the user's files, so it is shown as plain text. Secret fields are masked.
class SshAnswerDialog : public QDialog
{
    Q_OBJECT

public:
    SshAnswerDialog(const QString &title, const QString &intro,
                    const QList<SshPromptRequest::Question> &questions, QWidget *parent);
    ~SshAnswerDialog() override;

    // What was typed, one per question in order, in memory of its own; the fields' own copies
    // are overwritten and emptied, so the secrets stay only in what this returns.
    QStringList takeAnswers();
    QList<QLineEdit *> fields() const { return m_fields; }

private:
    QList<QLineEdit *> m_fields;
};

// The longest secret a field takes (characters).
constexpr int kMaxSecretChars = 1024;
// Masks `field` and gives it a buffer that typing never outgrows (see takeSecret).
void prepareSecretField(QLineEdit *field);
// A secret field's text in memory of its own; the field's copy is overwritten and emptied.
QString takeSecret(QLineEdit *field);

}  // namespace ptwb::ui
