#pragma once

#include "store/importer.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLineEdit;

namespace ptwb::ui {

// Asks which file, device and workload an import is for.
class ImportDialog : public QDialog
{
    Q_OBJECT

public:
    ImportDialog(const QString &filePath, const QString &deviceKind, QWidget *parent = nullptr);

    ImportRequest request() const;

private:
    void updateAcceptable();

    QLineEdit *m_file;
    QComboBox *m_device;
    QLineEdit *m_workload;
    QDialogButtonBox *m_buttons;
};

}  // namespace ptwb::ui
