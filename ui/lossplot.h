#pragma once

#include <QChartView>
#include <QVector>

class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace ptwb::ui {

// Training and validation loss per epoch of one target (time or power), live: one pair of
// curves per ensemble member (later members lighter), the loss on a log scale.
class LossPlot : public QChartView
{
    Q_OBJECT

public:
    explicit LossPlot(const QString &title, QWidget *parent = nullptr);

    void clear();
    // A closed-form fit (PowerTrain's ridge head) reports one "epoch" per member: those are
    // drawn as points, one per member.
    void addEpoch(int member, int epoch, int epochs, double trainingLoss, double validationLoss);
    // Points on the chart, training and validation together (tests).
    int pointCount() const { return m_points; }
    void setPlaceholder(const QString &text);

private:
    void ensureMember(int member);
    void updateRanges();

    QString m_title;
    QValueAxis *m_axisX;
    QLogValueAxis *m_axisY;
    QVector<QLineSeries *> m_training;
    QVector<QLineSeries *> m_validation;
    int m_points = 0;
    bool m_closedForm = false;
    int m_maxEpoch = 1;
    double m_minLoss = 0;
    double m_maxLoss = 0;
};

}  // namespace ptwb::ui
