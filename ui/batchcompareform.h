#pragma once

#include "batchchoice.h"
#include "store/measurement.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace ptwb::ui {

// The inputs of Compare's batch-size evaluation (`ptwb evaluate-batch` on stored workloads): the
// workload measured at several training batch sizes, the reference pt transfers (a trainable
// workload or a batch view such as resnet18@16), the power caps as text (20,30,40 or
// FROM:TO:STEP), the objective, samples, repeats, seed, an optional proxy-samples CSV and the
// strategies. Remembered in QSettings (compareBatch/...).
class BatchCompareForm : public QWidget
{
    Q_OBJECT

public:
    explicit BatchCompareForm(QWidget *parent = nullptr);

    // The device kind's workloads: those that mix batch sizes become the workload choices, the
    // trainable ones (batch views included) the reference choices.
    void setWorkloads(const QVector<WorkloadSummary> &summaries);
    bool hasWorkload() const;

    // The request as set, or the first error about a field of the form (caps, strategies).
    Expected<workflows::BatchEvaluationRequest> request() const;

    bool setWorkload(const QString &workload);
    // "" chooses none.
    bool setReference(const QString &workload);
    void setCaps(const QString &text);
    void setObjective(AccuracyObjective objective);
    void setSamples(int samples);
    void setRepeats(int repeats);
    void setSeed(quint64 seed);
    void setProxySamplesFile(const QString &path);
    void setStrategies(const QStringList &strategies);

    // The form's words for the field an error is about ("Power caps").
    static QString fieldName(InputField field);

Q_SIGNALS:
    void changed();

private:
    void save() const;
    void chooseProxyFile();

    QComboBox *m_workload;
    QComboBox *m_reference;
    QLineEdit *m_caps;
    QComboBox *m_objective;
    QSpinBox *m_samples;
    QSpinBox *m_repeats;
    QSpinBox *m_seed;
    QLineEdit *m_proxy;
    QListWidget *m_strategies;
    bool m_restoring = false;
};

}  // namespace ptwb::ui
