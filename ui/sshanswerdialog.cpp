#include "sshanswerdialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

QLabel *plainLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    return label;
}

}  // namespace

SshAnswerDialog::SshAnswerDialog(const QString &title, const QString &intro,
                                 const QList<SshPromptRequest::Question> &questions,
                                 QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("sshSecretQuestion"));
    setWindowTitle(title);
    auto *layout = new QVBoxLayout(this);
    if (!intro.isEmpty())
        layout->addWidget(plainLabel(intro, this));
    auto *form = new QFormLayout;
    for (const SshPromptRequest::Question &question : questions) {
        auto *field = new QLineEdit(this);
        if (question.echo)
            field->setEchoMode(QLineEdit::Normal);
        else
            prepareSecretField(field);
        form->addRow(plainLabel(question.text, this), field);
        m_fields.append(field);
    }
    layout->addLayout(form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

SshAnswerDialog::~SshAnswerDialog()
{
    takeAnswers();  // wiped: the secret does not stay in the widget, nor in freed memory
}

void prepareSecretField(QLineEdit *field)
{
    field->setEchoMode(QLineEdit::Password);
    field->setMaxLength(kMaxSecretChars);
    // The field's text starts in a buffer with room for the longest secret, and this is its
    // only holder: typing then never grows it into a new buffer, which would leave the old one,
    // the secret's first characters, in freed memory. takeSecret overwrites it in place.
    QString room;
    room.reserve(kMaxSecretChars);
    field->setText(room);
}

QString takeSecret(QLineEdit *field)
{
    QString shared = field->text();  // shares the field's own buffer
    QString answer = ownCopy(shared);
    wipeShared(shared);  // the field's buffer, overwritten in place
    field->setText(QString());  // and its undo history dropped
    return answer;
}

QStringList SshAnswerDialog::takeAnswers()
{
    QStringList out;
    for (QLineEdit *field : std::as_const(m_fields))
        out.append(takeSecret(field));
    return out;
}

}  // namespace ptwb::ui
