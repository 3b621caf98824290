#pragma once

#include "deviceclient.h"

#include <QTest>

#include <memory>
#include <optional>

// Waits for a device call to finish and returns its reply; a "test-timeout" reply when it never
// does, so a hung device fails the test instead of hanging it.
inline ptwb::DeviceReply awaitReply(ptwb::DeviceCall *call, int timeoutMs = 60000)
{
    auto reply = std::make_shared<std::optional<ptwb::DeviceReply>>();
    QObject::connect(call, &ptwb::DeviceCall::finished,
                     [reply](const ptwb::DeviceReply &r) { *reply = r; });
    if (!QTest::qWaitFor([&] { return reply->has_value(); }, timeoutMs))
        return {false, {}, {QStringLiteral("test-timeout"), QStringLiteral("never finished"), {}}};
    return **reply;
}
