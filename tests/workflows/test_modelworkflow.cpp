#include "modelworkflow.h"
#include "modes/devicereport.h"
#include "optimize/tradeoffspace.h"
#include "predict/syntheticstore.h"
#include "store/devicespecstore.h"

#include <QTest>

#include <atomic>

using namespace ptwb;

namespace {

predict::RegressorConfig tinyConfig(int epochs)
{
    predict::RegressorConfig config = quickConfig();
    config.epochs = epochs;
    return config;
}

workflows::TrainRequest trainRequest(const QString &path, const QString &workload, int epochs = 5)
{
    workflows::TrainRequest request;
    request.databasePath = path;
    request.workload = workload;
    request.config = tinyConfig(epochs);
    return request;
}

int storedModels(const QString &path)
{
    auto store = Store::open(path);
    return store ? int((*store)->models()->size()) : -1;
}

}  // namespace

// The train and transfer workflows without any widget: what `ptwb train`/`transfer`, the Models
// view and the first run's starter data all call.
class TestModelWorkflow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void trainStoresTheModelWithItsMetricsAndReportsEveryEpoch()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        QVector<TrainingProgress> seen;
        TrainingCallbacks callbacks;
        callbacks.progress = [&seen](const TrainingProgress &p) { seen.append(p); };
        const Expected<ModelRecord> model =
            workflows::train(trainRequest(path, QStringLiteral("resnet")), callbacks);
        QVERIFY2(model, qPrintable(model.error()));
        QVERIFY(model->id > 0);
        QCOMPARE(model->method, QStringLiteral("reference"));
        QCOMPARE(model->deviceKind, QStringLiteral("orin-agx"));
        QCOMPARE(model->metrics.value(QStringLiteral("modes")).toInt(), 300);  // MAXN among them
        QVERIFY(model->metrics.value(QStringLiteral("time_mape_train")).toDouble() > 0);
        QVERIFY(model->metrics.value(QStringLiteral("seconds")).toDouble() > 0);

        // time: 2 members x 5 epochs, then power: the same, in order.
        QCOMPARE(seen.size(), 20);
        for (int i = 0; i < seen.size(); ++i) {
            QCOMPARE(seen[i].target, i < 10 ? QStringLiteral("time") : QStringLiteral("power"));
            QCOMPARE(seen[i].member, (i % 10) / 5);
            QCOMPARE(seen[i].epoch, i % 5 + 1);
        }
        auto store = Store::open(path);
        const Expected<ModelRecord> stored = (*store)->latestModel(
            QStringLiteral("orin-agx"), QStringLiteral("resnet"), QStringLiteral("reference"));
        QVERIFY(stored);
        QCOMPARE(stored->id, model->id);
        QCOMPARE(stored->metrics, model->metrics);
    }

    void transferAdaptsTheNewestReferenceOfTheKind()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        const Expected<ModelRecord> older =
            workflows::train(trainRequest(path, QStringLiteral("resnet")));
        const Expected<ModelRecord> newer =
            workflows::train(trainRequest(path, QStringLiteral("resnet")));
        QVERIFY(older && newer);
        workflows::TransferRequest request;
        request.databasePath = path;
        request.referenceWorkload = QStringLiteral("resnet");
        request.workload = QStringLiteral("mobilenet");
        const Expected<ModelRecord> pt = workflows::transfer(request);
        QVERIFY2(pt, qPrintable(pt.error()));
        QCOMPARE(pt->method, QStringLiteral("pt"));
        QCOMPARE(pt->referenceModelId, newer->id);
        QCOMPARE(pt->metrics.value(QStringLiteral("modes")).toInt(), 50);
        QCOMPARE(storedModels(path), 3);
    }

    void aReferenceOfAnotherKindNeedsConsent()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        {
            auto store = Store::open(path);
            QVERIFY(addSyntheticWorkloadOn(**store, QStringLiteral("orin-nano"),
                                           QStringLiteral("nanonet"), 40, 7));
        }
        const Expected<ModelRecord> reference =
            workflows::train(trainRequest(path, QStringLiteral("resnet")));
        QVERIFY(reference);
        workflows::TransferRequest request;
        request.databasePath = path;
        request.referenceWorkload = QStringLiteral("resnet");
        request.workload = QStringLiteral("nanonet");

        const Expected<ModelRecord> refused = workflows::transfer(request);
        QVERIFY(!refused);
        QCOMPARE(refused.errorKind(), ErrorKind::BadInput);
        QCOMPARE(refused.field(), InputField::DeviceTransfer);
        QVERIFY2(refused.error().contains(QStringLiteral("orin-agx")) &&
                     refused.error().contains(QStringLiteral("orin-nano")) &&
                     !refused.error().contains(QStringLiteral("--")),
                 qPrintable(refused.error()));
        QCOMPARE(storedModels(path), 1);

        request.allowDeviceTransfer = true;
        const Expected<ModelRecord> adapted = workflows::transfer(request);
        QVERIFY2(adapted, qPrintable(adapted.error()));
        QCOMPARE(adapted->deviceKind, QStringLiteral("orin-nano"));
        QCOMPARE(adapted->referenceModelId, reference->id);

        // findReference itself: the same kind wins over a newer one of another kind.
        auto store = Store::open(path);
        const Expected<ModelRecord> none = workflows::findReference(
            **store, QStringLiteral("nanonet"), QStringLiteral("orin-agx"), true);
        QVERIFY(!none);  // nanonet has no reference model at all
        QCOMPARE(none.errorKind(), ErrorKind::BadInput);
    }

    // Issue 22: a device known only by the spec it reported (tables no built-in one has) is a
    // transfer target like any other; the model's predictions cover every mode of its own table.
    void aDevicesOwnSpecIsATransferTarget()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        DeviceReport report;
        report.model = QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit");
        report.maxCores = 6;
        report.cpuKHz = {115200, 729600, 1190400, 1728000};
        report.gpuHz = {306000000, 612000000, 816000000, 1020000000};
        report.emcHz = {665600000, 3199000000};
        const Expected<DeviceSpec> own = deviceSpecFromReport(report);
        QVERIFY2(own, qPrintable(own.error()));
        QVERIFY(!DeviceSpec::builtinIds().contains(own->id()));
        {
            auto store = Store::open(path);
            QVERIFY(store);
            QVERIFY(DeviceSpecStore(**store).recordSeen(QStringLiteral("ssh://nvidia@lab"), *own,
                                                        own->family(), report.model, {}));
        }
        // Opening the store makes its spec known: its measurements are read in its own table.
        {
            auto store = Store::open(path);
            QVERIFY(store);
            QVERIFY(addSyntheticWorkloadOn(**store, own->id(), QStringLiteral("nanonet"), 30, 7));
        }
        QVERIFY(workflows::train(trainRequest(path, QStringLiteral("resnet"))));
        workflows::TransferRequest request;
        request.databasePath = path;
        request.referenceWorkload = QStringLiteral("resnet");
        request.workload = QStringLiteral("nanonet");
        request.allowDeviceTransfer = true;
        const Expected<ModelRecord> adapted = workflows::transfer(request);
        QVERIFY2(adapted, qPrintable(adapted.error()));
        QCOMPARE(adapted->deviceKind, own->id());
        QCOMPARE(adapted->referenceDeviceKind, QStringLiteral("orin-agx"));

        auto store = Store::open(path);
        const Expected<TradeoffSpace> space =
            TradeoffSpace::load(**store, QStringLiteral("nanonet"), own->id(), false);
        QVERIFY2(space, qPrintable(space.error()));
        QVERIFY(space->hasPredictions());
        QCOMPARE(space->size(), 6 * 4 * 4 * 2);
        QCOMPARE(space->deviceKind(), own->id());
    }

    void anUnknownReferenceModelIsBadInputAboutTheReference()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        workflows::TransferRequest request;
        request.databasePath = path;
        request.referenceModelId = 42;
        request.workload = QStringLiteral("mobilenet");
        const Expected<ModelRecord> missing = workflows::transfer(request);
        QVERIFY(!missing);
        QCOMPARE(missing.errorKind(), ErrorKind::BadInput);
        QCOMPARE(missing.field(), InputField::Reference);
    }

    void cancelStopsWithinOneEpochAndStoresNothing()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        std::atomic<bool> cancel = false;
        int afterCancel = 0;
        TrainingCallbacks callbacks;
        callbacks.progress = [&](const TrainingProgress &) {
            if (cancel)
                ++afterCancel;
            cancel = true;
        };
        callbacks.cancelled = [&cancel] { return cancel.load(); };
        const Expected<ModelRecord> model =
            workflows::train(trainRequest(path, QStringLiteral("resnet"), 1000), callbacks);
        QVERIFY(!model);
        QVERIFY2(model.error().contains(QStringLiteral("cancelled")), qPrintable(model.error()));
        // The epoch under way when the flag was set may still report; no later one does.
        QVERIFY2(afterCancel <= 1, qPrintable(QString::number(afterCancel)));
        QCOMPARE(storedModels(path), 0);
    }

    void tooFewModesAreReportedAndNothingIsStored()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("few.sqlite"));
        {
            auto store = Store::open(path);
            QVERIFY(store);
            QVERIFY(addSyntheticWorkloadOn(**store, QStringLiteral("orin-agx"),
                                           QStringLiteral("few"), 3, 1));
        }
        const Expected<ModelRecord> model =
            workflows::train(trainRequest(path, QStringLiteral("few")));
        QVERIFY(!model);
        QCOMPARE(model.error(),
                 QStringLiteral("workload 'few': training needs at least 8 profiled modes; got 3"));
        QCOMPARE(storedModels(path), 0);
    }

    // Train and transfer reduce a workload to one row per mode: an inference workload (several
    // batch sizes per mode) is refused before anything is trained, naming the workload.
    void anInferenceWorkloadIsRefusedByTrainingWorkflows()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        {
            auto store = Store::open(path);
            QVERIFY(store);
            QVector<Measurement> rows;
            for (const Measurement &m : measurementsOf(syntheticData(40, 3, 0.5))) {
                for (int batch : {1, 16}) {
                    Measurement row = m;
                    row.inferenceBatch = batch;
                    row.timeMs *= batch;
                    rows.append(row);
                }
            }
            QVERIFY((*store)
                        ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                    QStringLiteral("net_infer"), QStringLiteral("net_infer.csv"),
                                    QStringLiteral("net-infer"), rows)
                        .ok());
        }
        const QString message =
            QStringLiteral("workload 'net_infer' on orin-agx holds inference measurements "
                           "(inference minibatch sizes 1, 16), not training ones; training, "
                           "transfer, evaluation and mode selection need a workload of training "
                           "measurements");
        const Expected<ModelRecord> trained =
            workflows::train(trainRequest(path, QStringLiteral("net_infer")));
        QVERIFY(!trained);
        QCOMPARE(trained.error(), message);
        QCOMPARE(trained.errorKind(), ErrorKind::BadInput);
        QCOMPARE(trained.field(), InputField::Workload);

        QVERIFY(workflows::train(trainRequest(path, QStringLiteral("resnet"))));
        workflows::TransferRequest transfer;
        transfer.databasePath = path;
        transfer.referenceWorkload = QStringLiteral("resnet");
        transfer.workload = QStringLiteral("net_infer");
        const Expected<ModelRecord> transferred = workflows::transfer(transfer);
        QVERIFY(!transferred);
        QCOMPARE(transferred.error(), message);
        QCOMPARE(transferred.errorKind(), ErrorKind::BadInput);
        QCOMPARE(storedModels(path), 1);  // the reference only
    }

    void theOverviewAndAStoredFitComeFromTheStore()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 50);
        const Expected<ModelRecord> reference =
            workflows::train(trainRequest(path, QStringLiteral("resnet")));
        QVERIFY(reference);
        const Expected<workflows::ModelOverview> overview = workflows::modelOverview(path);
        QVERIFY(overview);
        QCOMPARE(overview->workloads.size(), 2);
        QCOMPARE(overview->models.size(), 1);
        const Expected<workflows::StoredFit> fit = workflows::storedFit(path, reference->id);
        QVERIFY2(fit, qPrintable(fit.error()));
        QCOMPARE(fit->fit.observed.size(), 300);
        QCOMPARE(fit->fit.predicted.timeMs.size(), 300);
        QVERIFY(!workflows::storedFit(path, 999));
    }
};

QTEST_GUILESS_MAIN(TestModelWorkflow)
#include "test_modelworkflow.moc"
