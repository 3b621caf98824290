#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace ptwb::CsvField {

// A field without its surrounding blanks and double quotes ("12" and " 12 " read as 12).
QByteArray unquote(const QByteArray &field);

// A whole number; "64.0" (as some spreadsheet tools and the public files write 64) too.
bool parseWhole(const QByteArray &text, qint64 *out);

// A CSV file's lines: a UTF-8 byte order mark dropped, CRLF endings accepted, and where its
// content is (blank lines before the header and at the end are accepted).
struct Lines
{
    QList<QByteArray> lines;  // without their line endings
    bool endsWithNewline = false;
    int header = -1;  // the first line with content; -1 for a file without any
    int lastContent = -1;

    static Lines of(const QByteArray &data);
};

// Why a row of `fields` is not `expected` fields wide ("" when it is), naming `fileName`, the
// 1-based `line` and the header's `columns`; a last line without a newline that is short is a
// file cut off mid-write, and says so.
QString fieldCountProblem(const QString &fileName, int line, qsizetype fields, int expected,
                          bool unterminatedLast, const QString &columns);

}  // namespace ptwb::CsvField
