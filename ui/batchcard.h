#pragma once

#include "batchchoice.h"

#include <QFrame>

class QLabel;
class QTableWidget;

namespace ptwb::ui {

// The card of Explore's batch size mode: the (batch size, mode) pick with its whole-run time
// and energy to the target accuracy, its minibatches, the time and power of one minibatch, and
// where the samples-to-accuracy relation comes from (SIMULATED when the simulator made it); below,
// the best mode of each batch size under the cap. No Apply: the pick is a batch size for the
// training script as much as a mode.
class BatchCard : public QFrame
{
    Q_OBJECT

public:
    explicit BatchCard(QWidget *parent = nullptr);

    void showPick(const workflows::BatchSpace &space, const BatchPick &pick,
                  const QVector<BatchPick> &perBatch, double capW, AccuracyObjective objective);
    // No pair under the cap: the lowest peak of any, to say how far off the cap is.
    void showNothing(const workflows::BatchSpace &space, double capW, double lowestPeakW);
    void showMessage(const QString &title, const QString &text);

    // The pick shown: its batch (0 when none) and mode.
    int batch() const { return m_batch; }
    const PowerMode &mode() const { return m_mode; }
    QString titleText() const;
    QString bodyText() const;
    QString provenanceText() const;
    QTableWidget *perBatchTable() const { return m_table; }

    // Display helpers shared with the chart's hover text.
    static QString durationText(double seconds);
    static QString energyText(double joules);

private:
    void showProvenance(const workflows::BatchSpace &space);
    void fillTable(const QVector<BatchPick> &perBatch, int pickBatch);

    QLabel *m_title;
    QLabel *m_modeLabel;
    QLabel *m_numbers;
    QLabel *m_provenance;
    QLabel *m_tableTitle;
    QTableWidget *m_table;
    QLabel *m_sources;
    int m_batch = 0;
    PowerMode m_mode;
};

}  // namespace ptwb::ui
