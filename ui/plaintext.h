#pragma once

#include <QString>

class QLabel;
class QMessageBox;
class QWidget;

namespace ptwb::ui {

// Text from a device or the store (model names, reasons, zone names, sweep messages, workload
// output, error texts, device and workload names) is never read as HTML: a QLabel, message box
// or tooltip left to guess (Qt::AutoText) renders `<img src="/path">` by reading that local file
// on the GUI thread. These make the plain reading explicit.

// A label that shows its text verbatim.
QLabel *plainLabel(const QString &text, QWidget *parent);
QLabel *plainLabel(QWidget *parent);
// Makes an existing label show its text verbatim; returns it.
QLabel *makePlain(QLabel *label);
// A message box whose text and informative text are shown verbatim; returns it.
QMessageBox *makePlain(QMessageBox *box);

// A tooltip that shows `text` verbatim: Qt guesses whether a tooltip is rich text, so text that
// might look like it is escaped into a paragraph of its own; other text is returned as it is.
QString plainTip(const QString &text);

// For a label that is rich text of our own: device or store text inside it, escaped.
inline QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

}  // namespace ptwb::ui
