#include "concurrentcomparedemo.h"

#include "simulatedcorpus.h"
#include "starterdata.h"
#include "store/importer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

namespace ptwb::ui {

namespace {

// The public files' folder: $PTWB_DATA_DIR, else ../shared/data beside the checkout the
// executable was built in (build/app/powertrain-workbench), else beside the working directory.
QString publicDataDir(const QString &deviceKind)
{
    QStringList roots;
    if (qEnvironmentVariableIsSet("PTWB_DATA_DIR"))
        roots.append(qEnvironmentVariable("PTWB_DATA_DIR"));
    roots.append(QCoreApplication::applicationDirPath() + QStringLiteral("/../../../shared/data"));
    roots.append(QDir::currentPath() + QStringLiteral("/../shared/data"));
    for (const QString &root : roots) {
        const QDir dir(QDir(root).filePath(deviceKind));
        if (dir.exists(QStringLiteral("resnet18_imagenet_train.csv")) &&
            dir.exists(QStringLiteral("mobilenetv3_infer.csv")))
            return dir.absolutePath();
    }
    return {};
}

// The simulator's corpus of `workload` on the concurrent study's grid (inference: per batch).
Status simulate(const QString &deviceKind, const QString &workload, bool inference,
                const QString &out)
{
    Expected<QStringList> args = SimulatedCorpus::arguments(deviceKind, workload, out);
    if (!args)
        return Status::failure(args.error());
    *args << QStringLiteral("--grid") << QStringLiteral("fulcrum");
    if (inference)
        *args << QStringLiteral("--inference");
    QProcess generator;
    generator.start(QStringLiteral("python3"), *args);
    if (!generator.waitForFinished(60000) || generator.exitCode() != 0)
        return Status::failure(QStringLiteral("the simulated corpus generator failed: %1")
                                   .arg(QString::fromUtf8(generator.readAllStandardError())));
    return {};
}

}  // namespace

Expected<ConcurrentDemo> ConcurrentDemo::import(const QString &dbPath, const QString &deviceKind)
{
    using Result = Expected<ConcurrentDemo>;
    struct File
    {
        QString workload;
        QString name;  // the public file, or the simulator's workload
        bool inference;
    };
    const QString dir = publicDataDir(deviceKind);
    ConcurrentDemo demo;
    demo.simulated = dir.isEmpty();
    demo.device = demo.simulated ? StarterData::deviceName(deviceKind) : deviceKind;
    const QVector<File> files = demo.simulated
        ? QVector<File> {{QStringLiteral("resnet18_fulcrum"), QStringLiteral("resnet18"), false},
                         {QStringLiteral("mobilenet_v3_infer"), QStringLiteral("mobilenet_v3"),
                          true},
                         {QStringLiteral("mobilenet_v3_fulcrum"), QStringLiteral("mobilenet_v3"),
                          false},
                         {QStringLiteral("resnet18_infer"), QStringLiteral("resnet18"), true}}
        : QVector<File> {
              {QStringLiteral("resnet18_imagenet"), QStringLiteral("resnet18_imagenet_train.csv"),
               false},
              {QStringLiteral("mobilenetv3_infer"), QStringLiteral("mobilenetv3_infer.csv"), true},
              {QStringLiteral("mobilenetv3_gld23k"), QStringLiteral("mobilenetv3_gld23k_train.csv"),
               false},
              {QStringLiteral("resnet18_infer"), QStringLiteral("resnet18_infer.csv"), true}};
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return passOn<Result>(store);
    QTemporaryDir scratch;
    QString *const chosen[] = {&demo.training, &demo.inference, &demo.trainingReference,
                               &demo.inferenceReference};
    for (int i = 0; i < files.size(); ++i) {
        const File &file = files[i];
        QString path = QDir(dir).filePath(file.name);
        if (demo.simulated) {
            path = scratch.filePath(file.workload + QStringLiteral(".csv"));
            if (const Status made = simulate(deviceKind, file.name, file.inference, path); !made)
                return passOn<Result>(made);
        } else if (!QFileInfo::exists(path)) {
            continue;  // a reference the data lacks: the screenshot goes without it
        }
        const Expected<ImportOutcome> imported =
            Importer(**store).run({path, demo.device, deviceKind, file.workload});
        if (!imported)
            return passOn<Result>(imported);
        *chosen[i] = file.workload;
    }
    if (demo.training.isEmpty() || demo.inference.isEmpty())
        return Result::failure(QStringLiteral("no training and inference pair to show"));
    return demo;
}

}  // namespace ptwb::ui
