#include "util/numbertext.h"

#include <algorithm>
#include <charconv>

namespace ptwb {

void appendShortest(QByteArray &out, double value)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    const QByteArrayView text(buffer, result.ptr - buffer);
    out.append(text);
    if (std::all_of(text.begin(), text.end(),
                    [](char c) { return (c >= '0' && c <= '9') || c == '-'; }))
        out.append(".0");
}

}  // namespace ptwb
