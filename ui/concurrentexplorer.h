#pragma once

#include "backgroundtasks.h"
#include "concurrent/concurrentspace.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;

namespace ptwb::ui {

class ConcurrentCard;
class ConcurrentChart;
class ConcurrentControls;
struct ConcurrentPicture;

// Explore's concurrent mode (training while serving inference): a training and an inference
// workload of the store, every (mode, inference batch) pair of them in power vs training
// throughput, the arrival rate and the latency and power budgets, and the pick on a card.
// The space is loaded on a worker by the same workflow as `ptwb recommend-concurrent`
// (workflows::loadConcurrentSpace); a budget moved re-judges every pair on the GUI thread
// (core's assessPair and choose: a few milliseconds for 90,000 pairs, see
// lastEvaluationMs()). Apply is ExplorePanel's: the card's applyRequested.
class ConcurrentExplorer : public QWidget
{
    Q_OBJECT

public:
    explicit ConcurrentExplorer(QWidget *parent = nullptr);
    ~ConcurrentExplorer() override;

    void setDatabasePath(const QString &path);
    void setDeviceKind(const QString &kind);
    // Loads only while shown: an inactive explorer just remembers that it is out of date.
    void setActive(bool active);

    // What the view shows (normally loaded from the store; tests may hand one in).
    void setSpace(std::shared_ptr<const ConcurrentSpace> space);
    const ConcurrentSpace *space() const { return m_space.get(); }
    bool isLoading() const;
    QString trainingWorkload() const;
    QString inferenceWorkload() const;
    // Shows these workloads (they must be in the lists), then loads their space.
    bool chooseWorkloads(const QString &training, const QString &inference);

    // Every pair against the budgets on screen, as CSV (File > Export table).
    QByteArray pairsCsv() const;
    bool exportChart(const QString &path, QString *error);
    // How long the last budget change took to judge every pair and redraw the chart's layers.
    double lastEvaluationMs() const { return m_lastEvaluationMs; }

    ConcurrentChart *chart() const { return m_chart; }
    ConcurrentControls *controls() const { return m_controls; }
    ConcurrentCard *card() const { return m_card; }
    QComboBox *trainingCombo() const { return m_training; }
    QComboBox *inferenceCombo() const { return m_inference; }

public Q_SLOTS:
    // The workload lists and the space again (an import, a sweep or a model changed the store).
    void reload();

Q_SIGNALS:
    void loaded(int pairs);
    void failed(const QString &message);
    void busyChanged(bool busy);

private:
    struct Choice
    {
        QString workload;
        QString device;
        qint64 modes = 0;
        int batches = 0;  // inference: how many batch sizes
    };
    struct Lists
    {
        QVector<Choice> training;
        QVector<Choice> inference;
    };

    void loadLists();
    void showLists(const Lists &lists);
    void fillInference();
    void loadSpace();
    void evaluate();
    void showNoSpace(const QString &title, const QString &text);
    QString tooltipFor(int pair) const;

    BackgroundTasks *m_tasks;
    QComboBox *m_training;
    QComboBox *m_inference;
    QLabel *m_source;
    ConcurrentChart *m_chart;
    ConcurrentControls *m_controls;
    ConcurrentCard *m_card;
    QString m_dbPath;
    QString m_kind = QStringLiteral("orin-agx");
    Lists m_lists;
    std::shared_ptr<const ConcurrentSpace> m_space;
    QVector<int> m_byPower;  // the pairs in order of power at m_byPowerSigmas
    double m_byPowerSigmas = -1;
    bool m_active = false;
    bool m_stale = true;
    double m_lastEvaluationMs = 0;
};

}  // namespace ptwb::ui
