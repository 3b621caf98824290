#include "plaintext.h"

#include <QLabel>
#include <QMessageBox>
#include <QTextDocument>

namespace ptwb::ui {

QLabel *plainLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setText(text);
    return label;
}

QLabel *plainLabel(QWidget *parent)
{
    return plainLabel(QString(), parent);
}

QLabel *makePlain(QLabel *label)
{
    label->setTextFormat(Qt::PlainText);
    return label;
}

QMessageBox *makePlain(QMessageBox *box)
{
    box->setTextFormat(Qt::PlainText);
    // The informative text has no format of its own: its label is the box's child.
    if (auto *informative = box->findChild<QLabel *>(QStringLiteral("qt_msgbox_informativelabel")))
        informative->setTextFormat(Qt::PlainText);
    return box;
}

QString plainTip(const QString &text)
{
    if (!Qt::mightBeRichText(text))
        return text;
    return Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal);
}

}  // namespace ptwb::ui
