#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace ptwb {

// Splits what a device writes into lines, bounded whatever it writes (issue 21): one shared by
// the local-process and the SSH transports, for stdout and stderr alike.
//
// - A line is at most `maxLineBytes`. A longer one is cut: in Discard mode (protocol lines) it
//   is dropped through its newline; in Truncate mode (log lines) its first `maxLineBytes` are
//   kept. Either way the rest is read and thrown away as it comes, and each further
//   `maxLineBytes` of the same line counts as another over-long line, so a line without end
//   keeps counting.
// - Backpressure: the caller reads only while wantsInput() (at most `maxQueuedLines` lines wait
//   to be taken, and the partial line is within its cap), so nothing piles up here however fast
//   the device writes; what it writes meanwhile waits in the pipe or the SSH window.
// - Over-long lines are reported as Problems (how many bytes, a printable prefix): the caller
//   decides what to say and when to give the device up (DeviceClient, BadLines).
class LineReader
{
public:
    enum class OverLong { Discard, Truncate };
    static constexpr qsizetype kMaxLineBytes = 1024 * 1024;  // the agent's own request limit
    static constexpr int kMaxQueuedLines = 256;
    static constexpr int kReadChunk = 64 * 1024;  // what a caller reads at a time
    static constexpr int kPrefixChars = 60;

    struct Problem
    {
        qsizetype bytes = 0;  // of the over-long line so far
        QString prefix;  // its first characters, printable (util/printable.h)
    };

    explicit LineReader(OverLong mode = OverLong::Discard, qsizetype maxLineBytes = kMaxLineBytes,
                        int maxQueuedLines = kMaxQueuedLines);

    void append(const char *data, qsizetype size);
    void append(const QByteArray &data) { append(data.constData(), data.size()); }
    // The end of the stream. A last line without its newline is queued (within its cap) in
    // Truncate mode; in Discard mode it is dropped: a protocol line cut off mid-write is no
    // message.
    void finish();

    bool wantsInput() const { return m_lines.size() < m_maxQueuedLines; }
    // How much the caller may read now (0 while lines wait).
    qsizetype room() const { return wantsInput() ? kReadChunk : 0; }
    bool hasLine() const { return !m_lines.isEmpty(); }
    // The next complete line, without its newline and surrounding white space; empty lines are
    // never queued.
    QByteArray takeLine();
    bool hasProblem() const { return !m_problems.isEmpty(); }
    Problem takeProblem();
    qsizetype pendingBytes() const { return m_partial.size(); }
    qsizetype maxLineBytes() const { return m_maxLineBytes; }

private:
    void queue(const QByteArray &line);
    void overLong();
    void countDiscarded(qsizetype count);

    OverLong m_mode;
    qsizetype m_maxLineBytes;
    int m_maxQueuedLines;
    QByteArray m_partial;
    QList<QByteArray> m_lines;
    QList<Problem> m_problems;
    bool m_discarding = false;  // inside an over-long line: throw away through its newline
    qsizetype m_discarded = 0;  // bytes of it since it was last counted
    qsizetype m_overLongBytes = 0;  // bytes of it in all
    QString m_overLongPrefix;
};

}  // namespace ptwb
