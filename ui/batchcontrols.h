#pragma once

#include "batch/batchchoice.h"

#include <QWidget>

class QButtonGroup;
class QLabel;
class QSlider;

namespace ptwb::ui {

// The question of Explore's batch size mode: a cap on the peak power (W) and what to minimise
// to reach the target accuracy, time or energy. Both remembered (QSettings); changed() whenever
// either moves.
class BatchControls : public QWidget
{
    Q_OBJECT

public:
    static constexpr double kCapStepW = 0.1;

    explicit BatchControls(QWidget *parent = nullptr);

    double capW() const;
    AccuracyObjective objective() const;

    // The cap slider's span (the lowest to the highest peak); the cap stays where it was when it
    // still falls inside.
    void setCapRange(double minW, double maxW);
    void setCap(double watts);
    void setObjective(AccuracyObjective objective);

    QSlider *capSlider() const { return m_cap; }

Q_SIGNALS:
    void changed();

private:
    void updateLabel();
    void remember();

    QSlider *m_cap;
    QLabel *m_capValue;
    QButtonGroup *m_objective;
};

}  // namespace ptwb::ui
