#pragma once

#include "predict/powermodel.h"

#include <QJsonObject>

namespace ptwb {

class Store;

// A workload's measurements as training data, with the device they came from and its kind.
struct WorkloadData
{
    QString device;
    QString kind;
    TrainingData data;

    // `device` may be empty when the workload was measured on one device only
    // (see Store::deviceOfWorkload).
    static Expected<WorkloadData> load(Store &store, const QString &workload,
                                       const QString &device);
};

// How well a model predicts a set of measured modes: its predictions beside the observations.
struct ModelFit
{
    TrainingData observed;
    ModePredictions predicted;  // in the order of observed.modes
    double timeMape = 0;  // percent
    double powerMape = 0;

    static ModelFit of(const PowerModel &model, const TrainingData &observed);

    // What a freshly trained model keeps in its record's metrics when `observed` is what it
    // was trained on: modes, time_mape_train, power_mape_train and the training time.
    QJsonObject trainingMetrics(double seconds) const;
};

}  // namespace ptwb
