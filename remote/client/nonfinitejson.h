#pragma once

#include <QByteArray>

#include <optional>

namespace ptwb {

// A device may write numbers JSON has no room for: NaN, Infinity, -Infinity (Python's
// json.dumps does by default) or a literal beyond a double (1e999). Qt's parser refuses the
// whole line, so a reply carrying one would never reach its call, which then waits for its
// timeout (issue 21). This rewrites each such number, outside strings, as a string of itself
// ("1e999", "NaN"): the message then reaches its call, and a field that wants a number refuses
// it with a clear error. (Not null: null has meanings in the protocol, "no clean minibatches".)
// Returns nullopt when the line holds no such number (it is bad for another reason).
std::optional<QByteArray> withNonFiniteNumbersAsText(const QByteArray &line);

}  // namespace ptwb
