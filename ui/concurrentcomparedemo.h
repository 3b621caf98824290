#pragma once

#include "util/expected.h"

#include <QString>

namespace ptwb::ui {

// The data of the `--view compare-concurrent` screenshot: a training and an inference workload
// with a reference of each, imported into the store under `device`. The public AGX Orin files
// when $PTWB_DATA_DIR or ../shared/data beside the checkout holds them (ResNet-18 training +
// MobileNet v3 inference, the MobileNet v3 training and ResNet-18 inference as references),
// else the simulator's pair on the same 441-mode grid. Blocks for a few seconds: run it on a
// worker.
struct ConcurrentDemo
{
    QString device;
    QString training;
    QString inference;
    QString trainingReference;
    QString inferenceReference;
    bool simulated = false;

    static Expected<ConcurrentDemo> import(const QString &dbPath, const QString &deviceKind);
};

}  // namespace ptwb::ui
