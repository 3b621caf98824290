#pragma once

#include "store/importer.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLineEdit;

namespace ptwb::ui {

// Asks which device and workload an import of a file or of raw run folders is for, and whether
// to import or only check.
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
    bool m_dryRun = false;
};

}  // namespace ptwb::ui
