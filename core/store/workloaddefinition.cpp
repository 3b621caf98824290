#include "store/workloaddefinition.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace ptwb {

namespace {

bool isEnvironmentName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    return re.match(name).hasMatch();
}

// A name a secret usually goes by (WANDB_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY, ...).
bool looksLikeSecret(const QString &name)
{
    const QString upper = name.toUpper();
    for (const char *word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"}) {
        if (upper.contains(QLatin1String(word)))
            return true;
    }
    return false;
}

// Named groups of a pattern: "(?P<name>" and "(?<name>", not escaped "\(".
int namedGroups(const QString &pattern)
{
    static const QRegularExpression group(QStringLiteral(R"((?<!\\)\(\?P?<[A-Za-z_]\w*>)"));
    int count = 0;
    for (auto it = group.globalMatch(pattern); it.hasNext(); it.next())
        ++count;
    return count;
}

struct Problem
{
    QString field;
    QString text;
};

Problem findProblem(const WorkloadDefinition &d)
{
    using D = WorkloadDefinition;
    static const QRegularExpression nameRe(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}$"));
    if (!nameRe.match(d.name).hasMatch()) {
        return {QStringLiteral("name"),
                QStringLiteral("expected 1 to 64 letters, digits or _ . @ + - (starting with a "
                               "letter or digit), got \"%1\"")
                    .arg(d.name.left(64))};
    }
    if (isBuiltinWorkloadName(d.name))
        return {QStringLiteral("name"), QStringLiteral("%1 is a built-in workload").arg(d.name)};
    if (d.argv.isEmpty() || d.argv.first().trimmed().isEmpty())
        return {QStringLiteral("argv"), QStringLiteral("expected a command (its arguments apart)")};
    if (d.argv.size() > D::kMaxArguments) {
        return {QStringLiteral("argv"),
                QStringLiteral("expected at most %1 arguments, got %2")
                    .arg(D::kMaxArguments)
                    .arg(d.argv.size())};
    }
    for (int i = 0; i < d.argv.size(); ++i) {
        if (d.argv.at(i).contains(QChar(0)) || d.argv.at(i).size() > 4096) {
            return {
                QStringLiteral("argv"),
                QStringLiteral("argument %1: expected at most 4096 characters, no NUL").arg(i + 1)};
        }
    }
    const QString &cwd = d.workingDirectory;
    if (!cwd.isEmpty() &&
        (cwd.contains(QChar(0)) || cwd.size() > 4096 ||
         !(cwd.startsWith(QLatin1Char('/')) || cwd == QLatin1String("~") ||
           cwd.startsWith(QLatin1String("~/"))))) {
        return {QStringLiteral("cwd"),
                QStringLiteral("expected an absolute directory or one under ~/ on the device, "
                               "got \"%1\"")
                    .arg(cwd.left(200))};
    }
    if (d.environment.size() > D::kMaxEnvironment) {
        return {QStringLiteral("env"),
                QStringLiteral("expected at most %1 variables, got %2")
                    .arg(D::kMaxEnvironment)
                    .arg(d.environment.size())};
    }
    QStringList seen;
    for (int i = 0; i < d.environment.size(); ++i) {
        const auto &[name, value] = d.environment.at(i);
        const QString field = QStringLiteral("env[%1]").arg(i + 1);
        if (!isEnvironmentName(name)) {
            return {field,
                    QStringLiteral("expected a variable name (letters, digits, _; not "
                                   "starting with a digit), got \"%1\"")
                        .arg(name.left(128))};
        }
        if (name.startsWith(QLatin1String("PTWB_"))) {
            return {field, QStringLiteral("%1: PTWB_ variables are the workbench's own").arg(name)};
        }
        if (looksLikeSecret(name)) {
            return {field,
                    QStringLiteral("%1 looks like a secret; set it in the device's own "
                                   "environment, the workbench stores definitions in "
                                   "plain text")
                        .arg(name)};
        }
        if (seen.contains(name))
            return {field, QStringLiteral("%1 is set twice").arg(name)};
        seen.append(name);
        if (value.contains(QChar(0)) || value.size() > 4096) {
            return {field,
                    QStringLiteral("%1: expected a value of at most 4096 characters, no NUL")
                        .arg(name)};
        }
    }
    if (d.recogniser == D::Recogniser::Regex) {
        if (d.pattern.isEmpty() || d.pattern.size() > D::kMaxPatternLength) {
            return {QStringLiteral("pattern"),
                    QStringLiteral("expected a regular expression of 1 to %1 characters")
                        .arg(D::kMaxPatternLength)};
        }
        const QRegularExpression re(d.pattern);
        if (!re.isValid()) {
            return {QStringLiteral("pattern"),
                    QStringLiteral("not a regular expression: %1 at character %2")
                        .arg(re.errorString())
                        .arg(re.patternErrorOffset() + 1)};
        }
        if (const int groups = namedGroups(d.pattern); groups != 1) {
            return {QStringLiteral("pattern"),
                    QStringLiteral("expected exactly one named group (?P<name>...) holding the "
                                   "number, found %1")
                        .arg(groups)};
        }
    }
    if (d.skip < 0 || d.skip > D::kMaxMinibatches)
        return {QStringLiteral("skip"),
                QStringLiteral("expected 0 to %1 minibatches, got %2")
                    .arg(D::kMaxMinibatches)
                    .arg(d.skip)};
    if (d.keep < 2 || d.skip + d.keep > D::kMaxMinibatches) {
        return {QStringLiteral("keep"),
                QStringLiteral("expected 2 to %1 minibatches (with the skipped ones), got %2")
                    .arg(D::kMaxMinibatches - d.skip)
                    .arg(d.keep)};
    }
    if (d.timeoutSeconds < 1 || d.timeoutSeconds > D::kMaxTimeoutSeconds) {
        return {QStringLiteral("timeout"),
                QStringLiteral("expected 1 to %1 seconds, got %2")
                    .arg(D::kMaxTimeoutSeconds)
                    .arg(d.timeoutSeconds)};
    }
    return {};
}

}  // namespace

QString WorkloadDefinition::problem() const
{
    const Problem p = findProblem(*this);
    return p.field.isEmpty() ? QString() : p.field + QStringLiteral(": ") + p.text;
}

QString WorkloadDefinition::problemField() const
{
    const QString field = findProblem(*this).field;
    return field.startsWith(QLatin1String("env")) ? QStringLiteral("env") : field;
}

std::optional<double> WorkloadDefinition::minibatchMsIn(const QString &line, QString *why) const
{
    const auto no = [why](const QString &reason) {
        if (why)
            *why = reason;
        return std::optional<double>();
    };
    const QRegularExpression re(pattern);
    if (!re.isValid())
        return no(QStringLiteral("not a regular expression: %1").arg(re.errorString()));
    QString group;
    for (const QString &name : re.namedCaptureGroups()) {
        if (!name.isEmpty()) {
            group = name;
            break;
        }
    }
    if (group.isEmpty())
        return no(QStringLiteral("the pattern has no named group (?P<name>\u2026)"));
    const QRegularExpressionMatch match = re.match(line.left(1000));
    if (!match.hasMatch())
        return no(QStringLiteral("no match: this line would not count as a minibatch"));
    bool ok = false;
    const double value = match.captured(group).toDouble(&ok);
    if (!ok || !std::isfinite(value) || value <= 0) {
        return no(QStringLiteral("the pattern matched \"%1\" but its group \"%2\" is not a "
                                 "positive number")
                      .arg(match.captured(0), group));
    }
    switch (unit) {
    case RateUnit::Seconds:
        return value * 1000;
    case RateUnit::PerSecond:
        return 1000 / value;
    case RateUnit::Milliseconds:
        break;
    }
    return value;
}

QString WorkloadDefinition::commandLine() const
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=@%+,-]+$"));
    QStringList words;
    for (const QString &arg : argv) {
        if (plain.match(arg).hasMatch())
            words.append(arg);
        else
            words.append(QLatin1Char('\'') +
                         QString(arg).replace(QLatin1Char('\''), QLatin1String("'\\''")) +
                         QLatin1Char('\''));
    }
    return words.join(QLatin1Char(' '));
}

QJsonObject WorkloadDefinition::toJson() const
{
    QJsonObject env;
    QJsonArray order;
    for (const auto &[key, value] : environment) {
        env.insert(key, value);
        order.append(key);
    }
    QJsonObject out {{QStringLiteral("argv"), QJsonArray::fromStringList(argv)},
                     {QStringLiteral("recognise"), WorkloadRecognisers::name(recogniser)},
                     {QStringLiteral("skip"), skip},
                     {QStringLiteral("keep"), keep},
                     {QStringLiteral("timeout_s"), timeoutSeconds}};
    if (!deviceKind.isEmpty())
        out.insert(QStringLiteral("device_kind"), deviceKind);
    if (!workingDirectory.isEmpty())
        out.insert(QStringLiteral("cwd"), workingDirectory);
    if (!environment.isEmpty()) {
        out.insert(QStringLiteral("env"), env);
        out.insert(QStringLiteral("env_order"), order);  // a JSON object forgets its order
    }
    if (recogniser == Recogniser::Regex) {
        out.insert(QStringLiteral("pattern"), pattern);
        out.insert(QStringLiteral("unit"), WorkloadRecognisers::unitName(unit));
    }
    return out;
}

Expected<WorkloadDefinition> WorkloadDefinition::fromJson(const QJsonObject &object,
                                                          const QString &name)
{
    using Result = Expected<WorkloadDefinition>;
    const auto bad = [&name](const QString &field, const QString &expected) {
        return Result::badInput(
            InputField::Workload,
            QStringLiteral("workload %1: %2: expected %3").arg(name, field, expected));
    };
    WorkloadDefinition d;
    d.name = name;
    d.deviceKind = object.value(QLatin1String("device_kind")).toString();
    const QJsonValue argv = object.value(QLatin1String("argv"));
    if (!argv.isArray())
        return bad(QStringLiteral("argv"), QStringLiteral("a list of strings"));
    for (const QJsonValue &arg : argv.toArray()) {
        if (!arg.isString())
            return bad(QStringLiteral("argv"), QStringLiteral("a list of strings"));
        d.argv.append(arg.toString());
    }
    d.workingDirectory = object.value(QLatin1String("cwd")).toString();
    const QJsonObject env = object.value(QLatin1String("env")).toObject();
    QStringList order;
    for (const QJsonValue &key : object.value(QLatin1String("env_order")).toArray())
        order.append(key.toString());
    for (const QString &key : env.keys()) {
        if (!order.contains(key))
            order.append(key);
    }
    for (const QString &key : order) {
        if (!env.contains(key))
            return bad(QStringLiteral("env"), QStringLiteral("a value for %1").arg(key));
        if (!env.value(key).isString())
            return bad(QStringLiteral("env.%1").arg(key), QStringLiteral("a string"));
        d.environment.append({key, env.value(key).toString()});
    }
    if (!WorkloadRecognisers::fromName(
            object.value(QLatin1String("recognise")).toString(QStringLiteral("marker")),
            &d.recogniser))
        return bad(QStringLiteral("recognise"), QStringLiteral("marker, regex or launcher"));
    if (d.recogniser == Recogniser::Regex) {
        d.pattern = object.value(QLatin1String("pattern")).toString();
        if (!WorkloadRecognisers::unitFromName(object.value(QLatin1String("unit")).toString(),
                                               &d.unit))
            return bad(QStringLiteral("unit"), QStringLiteral("ms, s or per_s"));
    }
    d.skip = object.value(QLatin1String("skip")).toInt(d.skip);
    d.keep = object.value(QLatin1String("keep")).toInt(d.keep);
    d.timeoutSeconds = object.value(QLatin1String("timeout_s")).toInt(d.timeoutSeconds);
    const Problem p = findProblem(d);
    if (!p.field.isEmpty())
        return Result::badInput(InputField::Workload,
                                QStringLiteral("workload %1: %2: %3").arg(name, p.field, p.text));
    return d;
}

bool WorkloadDefinition::operator==(const WorkloadDefinition &other) const
{
    return name == other.name && toJson() == other.toJson();
}

namespace WorkloadRecognisers {

QString name(WorkloadDefinition::Recogniser recogniser)
{
    switch (recogniser) {
    case WorkloadDefinition::Recogniser::Marker:
        return QStringLiteral("marker");
    case WorkloadDefinition::Recogniser::Regex:
        return QStringLiteral("regex");
    case WorkloadDefinition::Recogniser::Launcher:
        return QStringLiteral("launcher");
    }
    return {};
}

bool fromName(const QString &text, WorkloadDefinition::Recogniser *out)
{
    for (auto r : {WorkloadDefinition::Recogniser::Marker, WorkloadDefinition::Recogniser::Regex,
                   WorkloadDefinition::Recogniser::Launcher}) {
        if (text == name(r)) {
            *out = r;
            return true;
        }
    }
    return false;
}

QString unitName(WorkloadDefinition::RateUnit unit)
{
    switch (unit) {
    case WorkloadDefinition::RateUnit::Milliseconds:
        return QStringLiteral("ms");
    case WorkloadDefinition::RateUnit::Seconds:
        return QStringLiteral("s");
    case WorkloadDefinition::RateUnit::PerSecond:
        return QStringLiteral("per_s");
    }
    return {};
}

bool unitFromName(const QString &text, WorkloadDefinition::RateUnit *out)
{
    for (auto u :
         {WorkloadDefinition::RateUnit::Milliseconds, WorkloadDefinition::RateUnit::Seconds,
          WorkloadDefinition::RateUnit::PerSecond}) {
        if (text == unitName(u)) {
            *out = u;
            return true;
        }
    }
    return false;
}

}  // namespace WorkloadRecognisers

const QStringList &builtinWorkloadBases()
{
    static const QStringList bases {QStringLiteral("resnet18"), QStringLiteral("mobilenet_v3")};
    return bases;
}

QStringList builtinWorkloadNames()
{
    QStringList names;
    for (const QString &builtin : builtinWorkloadBases())
        names << builtin << builtin + QLatin1String(kInferenceSuffix);
    return names;
}

bool isBuiltinWorkloadName(const QString &name)
{
    return builtinWorkloadNames().contains(name);
}

}  // namespace ptwb
