#include "command.h"

#include "concurrentstudy.h"

#include "predict/powermodel.h"
#include "store/store.h"
#include "util/printable.h"

#include <QFileInfo>
#include <QSaveFile>

#include <QJsonDocument>

namespace ptwb::cli {

void Output::line(const QString &text)
{
    m_out << terminalSafeLines(text) << Qt::endl;
}

void Output::object(const QJsonObject &object)
{
    // JSON escapes C0 itself; the rest a terminal acts on can only sit inside strings, where
    // \uXXXX means the same character.
    const QString json = QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
    QString safe;
    safe.reserve(json.size());
    for (const QChar c : json) {
        const char16_t u = c.unicode();
        if ((u >= 0x7F && u <= 0x9F) || c.category() == QChar::Other_Format ||
            c.category() == QChar::Separator_Line || c.category() == QChar::Separator_Paragraph)
            safe += QStringLiteral("\\u%1").arg(uint(u), 4, 16, QLatin1Char('0'));
        else
            safe += c;
    }
    m_out << safe << Qt::endl;
}

int Output::fail(const QString &message, ErrorKind kind)
{
    const int code = kind == ErrorKind::BadInput ? kExitBadInput : kExitFailed;
    m_err << terminalSafeLines(message) << Qt::endl;
    if (m_json)
        object({{QStringLiteral("error"), message}, {QStringLiteral("exit"), code}});
    return code;
}

int Output::failAbout(InputField field, const QString &message, ErrorKind kind)
{
    const QString option = kind == ErrorKind::BadInput && field != InputField::None && m_optionFor
        ? m_optionFor(field)
        : QString();
    // A message that already starts with its option (parsed here) is not prefixed twice.
    const QString prefix = QStringLiteral("--%1: ").arg(option);
    if (option.isEmpty() || message.startsWith(prefix))
        return fail(message, kind);
    return fail(prefix + message, kind);
}

QString Command::defaultOptionFor(InputField field)
{
    switch (field) {
    case InputField::None:
        return {};
    case InputField::Database:
        return QStringLiteral("db");
    case InputField::Device:
        return QStringLiteral("device");
    case InputField::DeviceKind:
        return QStringLiteral("kind");
    case InputField::Target:
        return QStringLiteral("target");
    case InputField::Workload:
        return QStringLiteral("workload");
    case InputField::Reference:
        return QStringLiteral("reference");
    case InputField::DeviceTransfer:
        return QStringLiteral("device-transfer");
    case InputField::Modes:
        return QStringLiteral("modes");
    case InputField::Mode:
        return QStringLiteral("mode");
    case InputField::Resume:
        return QStringLiteral("resume");
    case InputField::Run:
        return QStringLiteral("run");
    case InputField::Minibatches:
        return QStringLiteral("minibatches");
    case InputField::Repeats:
        return QStringLiteral("repeats");
    case InputField::Seed:
        return QStringLiteral("seed");
    case InputField::Samples:
        return QStringLiteral("samples");
    case InputField::Budgets:
        return QStringLiteral("budgets");
    case InputField::Strategies:
        return QStringLiteral("strategies");
    case InputField::Methods:
        return QStringLiteral("methods");
    case InputField::Configs:
        return QStringLiteral("configs");
    case InputField::SimulatorSpeed:
        return QStringLiteral("sim-speed");
    case InputField::Training:
        return QStringLiteral("train");
    case InputField::Inference:
        return QStringLiteral("infer");
    case InputField::TrainingReference:
        return QStringLiteral("train-reference");
    case InputField::InferenceReference:
        return QStringLiteral("infer-reference");
    case InputField::ArrivalRate:
        return QStringLiteral("arrival-rate");
    case InputField::LatencyBudget:
        return QStringLiteral("latency-budget");
    case InputField::PowerBudget:
        return QStringLiteral("power-budget");
    case InputField::ConfirmWithin:
        return QStringLiteral("confirm-within");
    case InputField::BatchSizes:
        return QStringLiteral("batch-sizes");
    case InputField::DatasetSamples:
        return QStringLiteral("dataset-samples");
    }
    return {};
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

Expected<TrainingData> readTrainingData(const QString &path, const QString &deviceKind,
                                        InputField field)
{
    using Result = Expected<TrainingData>;
    const Expected<QVector<Measurement>> rows =
        workflows::readMeasurementsFile(path, deviceKind, field);
    if (!rows)
        return passOn<Result>(rows);
    Expected<TrainingData> data = TrainingData::fromMeasurements(*rows, QFileInfo(path).fileName());
    if (!data)
        return Result::badInput(field, data.error());
    return data;
}

void addDeviceKindOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device kind of both files (default orin-agx)."),
                      QStringLiteral("KIND"), QStringLiteral("orin-agx")});
    parser.addOption({QStringLiteral("reference-device"),
                      QStringLiteral("Device kind the reference file was measured on (default: "
                                     "--device). Another kind than the target's transfers across "
                                     "devices."),
                      QStringLiteral("KIND")});
    parser.addOption({QStringLiteral("target-device"),
                      QStringLiteral("Device kind the target file was measured on (default: "
                                     "--device)."),
                      QStringLiteral("KIND")});
}

DeviceKinds deviceKinds(const QCommandLineParser &parser)
{
    const QString both = parser.value(QStringLiteral("device"));
    const QString reference = parser.value(QStringLiteral("reference-device"));
    const QString target = parser.value(QStringLiteral("target-device"));
    return {reference.isEmpty() ? both : reference, target.isEmpty() ? both : target};
}

int writeOutput(Output &output, const QString &path, const QByteArray &data)
{
    if (path == QLatin1String("-")) {
        output.out() << QString::fromUtf8(data);
        output.out().flush();
        return kExitOk;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        return output.fail(QStringLiteral("%1: cannot write: %2").arg(path, file.errorString()),
                           ErrorKind::Failed);
    }
    return kExitOk;
}

void appendModeColumns(QByteArray &out, const PowerMode &mode)
{
    out += QByteArray::number(mode.cores) + ',' + QByteArray::number(mode.cpuKHz) + ',' +
        QByteArray::number(mode.gpuHz) + ',' + QByteArray::number(mode.emcHz) + ',';
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
