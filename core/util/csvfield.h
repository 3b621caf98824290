#pragma once

#include <QByteArray>

namespace ptwb::CsvField {

// A field without its surrounding blanks and double quotes ("12" and " 12 " read as 12).
QByteArray unquote(const QByteArray &field);

// A whole number; "64.0" (as some spreadsheet tools and the public files write 64) too.
bool parseWhole(const QByteArray &text, qint64 *out);

}  // namespace ptwb::CsvField
