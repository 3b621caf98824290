#pragma once

#include "util/expected.h"

#include <QString>

namespace ptwb {

// Where a sweep or an apply goes: the embedded simulated Jetson of a given kind, or a real one
// over SSH. Parsed from the command line's --target (sim:orin-agx, ssh://user@host[:port]).
struct DeviceTarget
{
    enum class Kind { Simulated, Ssh };

    Kind kind = Kind::Simulated;
    QString deviceKind;  // for Simulated: one of DeviceSpec::builtinIds()
    QString user;  // for Ssh
    QString host;
    int port = 22;

    static Expected<DeviceTarget> parse(const QString &text);
    // A login name an ssh:// target accepts: letters, digits, '.', '_' and '-', not starting
    // with '-' (it would read as an option).
    static bool isValidUser(const QString &user);
    QString toString() const;
    // What a person sees: "simulated AGX Orin (orin-agx)" or "user@host:port".
    QString displayName() const;
};

}  // namespace ptwb
