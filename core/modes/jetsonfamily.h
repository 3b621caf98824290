#pragma once

#include "util/expected.h"

#include <QString>
#include <QVector>

namespace ptwb {

// A Jetson family the workbench knows (issue 22, docs/devices.md): what a device's device-tree
// model string names, and the id its specs and built-in tables go by.
struct JetsonFamily
{
    QString id;  // "orin-nano-super"
    QString name;  // "Jetson Orin Nano (Super clocks)"
    QString socFamily;  // "tegra234"
};

// Every family, in the order docs/devices.md lists them.
const QVector<JetsonFamily> &jetsonFamilies();

// The family of a device from its device-tree model ("NVIDIA Jetson Orin Nano Engineering
// Reference Developer Kit Super") and the top of its GPU table: an Orin Nano on JetPack 6.1+
// reports "Orin Nano" with or without the Super clocks, so a GPU table reaching above the
// original 624.75 MHz top is what tells them apart. A model no family matches is refused,
// naming the families known.
Expected<JetsonFamily> jetsonFamilyOf(const QString &model, qint64 gpuTopHz);

}  // namespace ptwb
