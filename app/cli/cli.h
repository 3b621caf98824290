#pragma once

#include <QStringList>
#include <QTextStream>

namespace ptwb::cli {

// Runs `ptwb` with `arguments` (arguments[0] is the program name) and returns the exit code.
// Needs a QCoreApplication.
int run(const QStringList &arguments, QTextStream &out, QTextStream &err);

}  // namespace ptwb::cli
