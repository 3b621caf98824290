#pragma once

#include "store/workloaddefinition.h"

#include <QHash>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ptwb::ui {

// The Workloads dialog's editor of one saved definition: name, device kind, the command (one
// line split into the exact argument list it runs, never through a shell), working directory,
// environment, how a minibatch is recognised (with a live check of a regular expression against
// a sample line), skip, keep and timeout. The first problem of the definition
// (WorkloadDefinition::problem) is shown next to its field.
class WorkloadEditor : public QWidget
{
    Q_OBJECT

public:
    explicit WorkloadEditor(QWidget *parent = nullptr);

    // The definition the fields describe (timestamps as last set).
    WorkloadDefinition definition() const;
    void setDefinition(const WorkloadDefinition &definition);
    // A built-in workload: only its name, every field read-only, and why.
    void showBuiltin(const QString &name);
    bool isBuiltin() const { return m_builtin; }
    // The definition's problem, empty when it can be saved.
    QString problem() const { return m_problem; }
    // The text under the field the problem is about (tests), empty when none shows one.
    QString fieldError(const QString &field) const;
    // What the sample-line check says (tests, screenshots).
    QString sampleResult() const;
    void setSampleLine(const QString &line);
    void focusName();

    // A command line as splitCommand reads it back, for the command field.
    static QString commandText(const QStringList &argv);

Q_SIGNALS:
    // Any field changed (by the person or setDefinition).
    void changed();

private:
    QLabel *errorLabel(const QString &field);
    QWidget *withErrors(QWidget *field, const QStringList &errors, QWidget *note = nullptr);
    void addEnvironmentRow(const QString &name, const QString &value);
    void updateArgv();
    void updateRecogniser();
    void updateSample();
    void validate();
    void setEditable(bool editable);

    bool m_builtin = false;
    bool m_loading = false;
    QString m_problem;
    QString m_createdAt;
    QString m_updatedAt;

    QLabel *m_builtinNote = nullptr;
    QLineEdit *m_name = nullptr;
    QComboBox *m_deviceKind = nullptr;
    QLineEdit *m_command = nullptr;
    QLabel *m_argv = nullptr;
    QLineEdit *m_cwd = nullptr;
    QTableWidget *m_env = nullptr;
    QPushButton *m_envAdd = nullptr;
    QPushButton *m_envRemove = nullptr;
    QComboBox *m_recogniser = nullptr;
    QLabel *m_recogniserHelp = nullptr;
    QFormLayout *m_form = nullptr;
    QList<QWidget *> m_regexRows;
    QLineEdit *m_pattern = nullptr;
    QComboBox *m_unit = nullptr;
    QLineEdit *m_sample = nullptr;
    QLabel *m_sampleResult = nullptr;
    QSpinBox *m_skip = nullptr;
    QSpinBox *m_keep = nullptr;
    QSpinBox *m_timeout = nullptr;
    QHash<QString, QLabel *> m_errors;  // by problemField()
};

}  // namespace ptwb::ui
