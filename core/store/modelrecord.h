#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

namespace ptwb {

// A trained model as the store keeps it: what it is for, how it was made, and its weights.
struct ModelRecord
{
    qint64 id = 0;
    QString device;  // the device whose measurements trained it
    QString deviceKind;  // the kind it predicts for: orin-agx, ...
    QString workload;
    QString method;  // "reference", "nn" or "pt"
    QString config;  // "default" or "baseline"
    QString featureLayout;
    qint64 referenceModelId = 0;  // for "pt": the model it was transferred from
    QString referenceDevice;  // for "pt": the device and kind that model was trained on, which
    QString referenceDeviceKind;  // differ from device and deviceKind across devices
    quint64 seed = 0;
    QVector<qint64> trainingIds;  // measurement ids it was trained on
    QJsonObject metrics;
    QByteArray timeModel;
    QByteArray powerModel;
    QString createdAt;

    bool acrossDevices() const
    {
        return !referenceDeviceKind.isEmpty() && referenceDeviceKind != deviceKind;
    }
};

}  // namespace ptwb
