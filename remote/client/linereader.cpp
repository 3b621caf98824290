#include "linereader.h"

#include "util/printable.h"

#include <cstring>

namespace ptwb {

LineReader::LineReader(OverLong mode, qsizetype maxLineBytes, int maxQueuedLines)
    : m_mode(mode)
    , m_maxLineBytes(maxLineBytes)
    , m_maxQueuedLines(maxQueuedLines)
{
}

void LineReader::queue(const QByteArray &line)
{
    const QByteArray trimmed = line.trimmed();
    if (!trimmed.isEmpty())
        m_lines.append(trimmed);
}

void LineReader::overLong()
{
    // m_partial holds the line's first maxLineBytes: what it starts with goes into the
    // warning, and in Truncate mode it is kept as the line. Problems are bounded too: at most
    // one per maxLineBytes read.
    m_overLongPrefix = printable(QString::fromUtf8(m_partial.left(kPrefixChars * 4)), kPrefixChars);
    if (m_mode == OverLong::Truncate)
        queue(m_partial);
    m_overLongBytes = m_partial.size();
    m_partial.clear();
    m_discarding = true;
    m_discarded = 0;
    if (m_problems.size() < m_maxQueuedLines)
        m_problems.append({m_overLongBytes, m_overLongPrefix});
}

void LineReader::countDiscarded(qsizetype count)
{
    // a line without end keeps counting: one more problem per maxLineBytes
    while (count > 0) {
        const qsizetype step = qMin(count, m_maxLineBytes - m_discarded);
        m_overLongBytes += step;
        m_discarded += step;
        count -= step;
        if (m_discarded == m_maxLineBytes) {
            m_discarded = 0;
            if (m_problems.size() < m_maxQueuedLines)
                m_problems.append({m_overLongBytes, m_overLongPrefix});
        }
    }
}

void LineReader::append(const char *data, qsizetype size)
{
    qsizetype start = 0;
    while (start < size) {
        const char *newline =
            static_cast<const char *>(memchr(data + start, '\n', size_t(size - start)));
        const qsizetype end = newline ? newline - data : size;
        const qsizetype count = end - start;
        if (m_discarding) {
            countDiscarded(count);
        } else if (m_partial.size() + count > m_maxLineBytes) {
            const qsizetype take = m_maxLineBytes - m_partial.size();
            m_partial.append(data + start, take);
            overLong();
            countDiscarded(count - take);
        } else {
            m_partial.append(data + start, count);
            if (newline) {
                queue(m_partial);
                m_partial.clear();
            }
        }
        if (newline && m_discarding) {
            m_discarding = false;
            m_overLongBytes = 0;
            m_discarded = 0;
        }
        start = newline ? end + 1 : size;
    }
}

void LineReader::finish()
{
    // A protocol line is a message only once its newline has come: one cut off by the end of
    // the stream (a connection dropped mid-write) is not parsed as a reply. A log keeps it.
    if (!m_discarding && m_mode == OverLong::Truncate)
        queue(m_partial);
    m_partial.clear();
    m_discarding = false;
    m_overLongBytes = 0;
}

QByteArray LineReader::takeLine()
{
    return m_lines.isEmpty() ? QByteArray() : m_lines.takeFirst();
}

LineReader::Problem LineReader::takeProblem()
{
    return m_problems.isEmpty() ? Problem() : m_problems.takeFirst();
}

}  // namespace ptwb
