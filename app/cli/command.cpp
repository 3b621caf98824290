#include "command.h"

#include "store/store.h"

#include <QJsonDocument>

namespace ptwb::cli {

void Output::object(const QJsonObject &object)
{
    m_out << QJsonDocument(object).toJson(QJsonDocument::Compact) << Qt::endl;
}

int Output::fail(const QString &message, ErrorKind kind)
{
    const int code = kind == ErrorKind::BadInput ? kExitBadInput : kExitFailed;
    m_err << message << Qt::endl;
    if (m_json)
        object({{QStringLiteral("error"), message}, {QStringLiteral("exit"), code}});
    return code;
}

QCommandLineOption dbOption()
{
    return QCommandLineOption(
        QStringLiteral("db"),
        QStringLiteral("The workbench database (default: %1).").arg(Store::defaultPath()),
        QStringLiteral("DB"));
}

QString dbPath(const QCommandLineParser &parser)
{
    const QString path = parser.value(QStringLiteral("db"));
    return path.isEmpty() ? Store::defaultPath() : path;
}

bool requireOptions(const QCommandLineParser &parser, const QStringList &names, Output &output,
                    int *exitCode)
{
    for (const QString &name : names) {
        if (parser.value(name).trimmed().isEmpty()) {
            *exitCode = output.badUsage(
                QStringLiteral("missing --%1; see --help for the options").arg(name));
            return false;
        }
    }
    return true;
}

}  // namespace ptwb::cli
