#pragma once

#include "predict/regressor.h"
#include "synthetic.h"

#include <QHash>

// Small, fast stand-ins for the default and baseline configurations of the accuracy study
// (AccuracyBenchOptions::configOverrides): the project's ridge-head transfer and the published
// fine-tuning, each in a few epochs.
inline QHash<QString, ptwb::predict::RegressorConfig> studyConfigs()
{
    ptwb::predict::RegressorConfig quick = quickConfig();
    quick.epochs = 15;
    ptwb::predict::RegressorConfig baseline = ptwb::predict::RegressorConfig::baseline();
    baseline.hidden = {16, 8};
    baseline.epochs = 15;
    baseline.fineTuneEpochs = 10;
    return {{QStringLiteral("default"), quick}, {QStringLiteral("baseline"), baseline}};
}
