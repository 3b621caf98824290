#include "store/workloadoutput.h"

#include <QJsonObject>

#include <cmath>

namespace ptwb {

namespace WorkloadOutput {

QString sanitisedText(const QString &text)
{
    QString out;
    const QString cut = text.left(WorkloadOutputLine::kMaxLineChars);
    out.reserve(cut.size());
    for (const QChar c : cut) {
        if (c == QLatin1Char('\t'))
            out.append(QLatin1Char(' '));
        else if (c.category() == QChar::Other_Control)
            continue;  // escape sequences, carriage returns, bells: dropped
        else if (c.isPrint() || c.isSurrogate())
            out.append(c);
        else
            out.append(QLatin1Char('?'));
    }
    return out;
}

QVector<WorkloadOutputLine> fromJson(const QJsonArray &lines, int maxLines)
{
    QVector<WorkloadOutputLine> out;
    const qsizetype first = std::max<qsizetype>(0, lines.size() - std::max(0, maxLines));
    for (qsizetype i = first; i < lines.size(); ++i) {
        const QJsonObject line = lines.at(i).toObject();
        if (!line.value(QLatin1String("text")).isString())
            continue;
        WorkloadOutputLine one;
        one.stream = line.value(QLatin1String("stream")).toString() == QLatin1String("err")
            ? QStringLiteral("err")
            : QStringLiteral("out");
        one.text = sanitisedText(line.value(QLatin1String("text")).toString());
        const QJsonValue ms = line.value(QLatin1String("ms"));
        if (ms.isDouble() && std::isfinite(ms.toDouble()) && ms.toDouble() > 0)
            one.ms = ms.toDouble();
        out.append(one);
    }
    return out;
}

QJsonArray toJson(const QVector<WorkloadOutputLine> &lines)
{
    QJsonArray out;
    for (const WorkloadOutputLine &line : lines) {
        out.append(QJsonObject {
            {QStringLiteral("stream"), line.stream},
            {QStringLiteral("text"), line.text},
            {QStringLiteral("ms"), line.ms ? QJsonValue(*line.ms) : QJsonValue(QJsonValue::Null)}});
    }
    return out;
}

}  // namespace WorkloadOutput

}  // namespace ptwb
