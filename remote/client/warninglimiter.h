#pragma once

namespace ptwb {

// Says which of a run of alike warnings to show: the first three, then the 10th, 100th, 1000th
// and so on, so a device repeating a fault forever costs a handful of lines (issue 21). Counts
// without a clock, so what is shown does not depend on timing.
class WarningLimiter
{
public:
    // Counts one occurrence; true when this one is to be shown.
    bool count()
    {
        ++m_count;
        if (m_count <= 3)
            return true;
        if (m_count == m_next) {
            m_next = m_next > kMaxStep / 10 ? m_next + kMaxStep : m_next * 10;
            return true;
        }
        return false;
    }
    long long total() const { return m_count; }

private:
    static constexpr long long kMaxStep = 1000000000LL;
    long long m_count = 0;
    long long m_next = 10;
};

}  // namespace ptwb
