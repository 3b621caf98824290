#pragma once

#include "concurrent/concurrentevaluation.h"
#include "concurrentstudy.h"
#include "store/measurement.h"

#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace ptwb::ui {

// The inputs of Compare's concurrent evaluation (`ptwb evaluate-concurrent` on stored
// workloads): a training and an inference workload with their optional references, the grid of
// arrival rates, latency budgets and power budgets as text (FROM:TO:STEP or a list, read by
// ConcurrentGrid::parseRange, each field's error shown under it as it is typed), the strategies
// (pt and safe only with a training reference), samples, repeats and seed.
class ConcurrentCompareForm : public QWidget
{
    Q_OBJECT

public:
    explicit ConcurrentCompareForm(QWidget *parent = nullptr);

    // The workloads of the device kind on show, training and inference alike.
    void setWorkloads(const QVector<WorkloadSummary> &summaries);
    // Whether there is a training and an inference workload to pair.
    bool hasPair() const;

    // The options as set, or the first error (a grid field's, or no strategy checked).
    Expected<ConcurrentEvaluationOptions> options() const;
    workflows::ConcurrentWorkloads workloads() const;

    bool setTrainingWorkload(const QString &workload);
    bool setInferenceWorkload(const QString &workload);
    // "" chooses none.
    bool setTrainingReference(const QString &workload);
    bool setInferenceReference(const QString &workload);
    void setGrid(const QString &arrivalRates, const QString &latencyBudgets,
                 const QString &powerBudgets);
    void setStrategies(const QStringList &strategies);
    void setSamples(int samples);
    void setRepeats(int repeats);
    void setSeed(quint64 seed);

    // The error shown under a grid field (ArrivalRate, LatencyBudget, PowerBudget), "" if none.
    QString fieldError(InputField field) const;
    // Whether a strategy can be checked (pt and safe need a training reference).
    bool isStrategyEnabled(const QString &strategy) const;

Q_SIGNALS:
    void changed();

private:
    struct GridField
    {
        InputField field;
        QLineEdit *edit;
        QLabel *error;
        QString example;
    };

    void addGridField(QFormLayout *form, const QString &label, InputField field,
                      const QString &text, const QString &toolTip);
    Expected<QVector<double>> parse(const GridField &field) const;
    void checkGrid();
    void updateStrategies();

    QComboBox *m_training;
    QComboBox *m_inference;
    QComboBox *m_trainingReference;
    QComboBox *m_inferenceReference;
    QVector<GridField> m_grid;
    QLabel *m_problems;
    QListWidget *m_strategies;
    QSpinBox *m_samples;
    QSpinBox *m_repeats;
    QSpinBox *m_seed;
    bool m_listed = false;  // the workloads were listed once: later lists keep the choices
};

}  // namespace ptwb::ui
