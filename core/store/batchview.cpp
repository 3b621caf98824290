#include "store/batchview.h"

namespace ptwb {

QString BatchView::name() const
{
    return QStringLiteral("%1@%2").arg(workload).arg(batch);
}

std::optional<BatchView> BatchView::of(const QString &name)
{
    const qsizetype at = name.lastIndexOf(QLatin1Char('@'));
    if (at <= 0 || at == name.size() - 1)
        return std::nullopt;
    const QString digits = name.mid(at + 1);
    if (digits.startsWith(QLatin1Char('0')))
        return std::nullopt;  // one spelling per view: "@32", never "@032"
    for (const QChar c : digits) {
        if (!c.isDigit() || c.unicode() > 127)
            return std::nullopt;
    }
    bool ok = false;
    const int batch = digits.toInt(&ok);
    if (!ok || batch < 1 || batch > 4096)
        return std::nullopt;
    return BatchView {name.left(at), batch};
}

}  // namespace ptwb
