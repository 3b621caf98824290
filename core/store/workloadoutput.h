#pragma once

#include <QJsonArray>
#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

// One line a workload printed, as the agent reports it (docs/device-protocol.md): which stream,
// the text, and the minibatch time recognised on it (none: not a minibatch line). The text comes
// from the device and is untrusted: fromJson keeps it printable (control characters replaced,
// at most kMaxLineChars), and nothing of it is ever run or used as a path.
struct WorkloadOutputLine
{
    static constexpr int kMaxLineChars = 1000;
    static constexpr int kMaxLines = 100;

    QString stream;  // "out" or "err"
    QString text;
    std::optional<double> ms;

    bool operator==(const WorkloadOutputLine &other) const
    {
        return stream == other.stream && text == other.text && ms == other.ms;
    }
};

namespace WorkloadOutput {
// The last `maxLines` lines of a JSON array as on the wire, sanitised; anything that is not a
// line object is skipped.
QVector<WorkloadOutputLine> fromJson(const QJsonArray &lines,
                                     int maxLines = WorkloadOutputLine::kMaxLines);
QJsonArray toJson(const QVector<WorkloadOutputLine> &lines);
// A device's line fit to store and show: tabs as spaces, every other control character
// replaced, at most kMaxLineChars.
QString sanitisedText(const QString &text);
}  // namespace WorkloadOutput

}  // namespace ptwb
