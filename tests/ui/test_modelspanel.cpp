#include "explorepanel.h"
#include "fitplot.h"
#include "lossplot.h"
#include "modelspanel.h"
#include "modelworkflow.h"
#include "predict/syntheticstore.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 60000;

int storedModels(const QString &path)
{
    auto store = Store::open(path);
    return store ? int((*store)->models()->size()) : -1;
}

predict::RegressorConfig tinyConfig(int epochs)
{
    predict::RegressorConfig config = quickConfig();
    config.epochs = epochs;
    return config;
}

}  // namespace

class TestModelsPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyStoreSaysWhatToDo()
    {
        QTemporaryDir dir;
        ModelsPanel panel;
        QSignalSpy loaded(&panel, &ModelsPanel::listsLoaded);
        panel.setDeviceKind(QStringLiteral("orin-agx"));
        panel.setDatabasePath(dir.filePath(QStringLiteral("empty.sqlite")));
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, kTimeout);
        const auto *stack = panel.findChild<QStackedWidget *>();
        QVERIFY(stack);
        const auto *label = qobject_cast<QLabel *>(stack->currentWidget());
        QVERIFY(label);
        QVERIFY(label->text().contains(QStringLiteral("Import measurements or run a sweep")));
    }

    void trainsAReferenceAndTransfersIt()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        ModelsPanel panel;
        panel.resize(1300, 850);
        panel.setTrainingConfig(tinyConfig(8));
        QSignalSpy loaded(&panel, &ModelsPanel::listsLoaded);
        QSignalSpy saved(&panel, &ModelsPanel::modelSaved);
        QSignalSpy fitShown(&panel, &ModelsPanel::fitShown);
        QSignalSpy failed(&panel, &ModelsPanel::failed);
        panel.setDeviceKind(QStringLiteral("orin-agx"));
        panel.setDatabasePath(path);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, kTimeout);
        QVERIFY(panel.models().isEmpty());

        QVERIFY(panel.setTrainingWorkload(QStringLiteral("resnet")));
        panel.trainReference();
        QVERIFY(panel.isBusy());
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, kTimeout);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        // 2 members x 8 epochs, training and validation, for each target.
        QCOMPARE(panel.timeLoss()->pointCount(), 32);
        QCOMPARE(panel.powerLoss()->pointCount(), 32);
        const qint64 referenceId = saved.first().at(0).toLongLong();
        QCOMPARE(saved.first().at(1).toString(), QStringLiteral("resnet"));

        // The stored model is the one announced, with its in-sample metrics.
        auto store = Store::open(path);
        QVERIFY(store.ok());
        const Expected<ModelRecord> record = (*store)->model(referenceId);
        QVERIFY2(record.ok(), qPrintable(record.error()));
        QCOMPARE(record->method, QStringLiteral("reference"));
        QCOMPARE(record->workload, QStringLiteral("resnet"));
        QCOMPARE(record->metrics.value(QStringLiteral("modes")).toInt(), 300);
        QVERIFY(record->metrics.value(QStringLiteral("time_mape_train")).toDouble() > 0);

        // The list reloads with it selected, and its fit on the measured modes is shown.
        QTRY_COMPARE_WITH_TIMEOUT(panel.models().size(), 1, kTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(fitShown.contains({referenceId}), kTimeout);
        QCOMPARE(panel.timeFit()->pointCount(), 300);
        QCOMPARE(panel.powerFit()->pointCount(), 300);

        // Transfer to the small workload: a "pt" model that names its reference.
        QVERIFY(panel.setTransferChoice(referenceId, QStringLiteral("mobilenet")));
        panel.transfer();
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 2, kTimeout);
        const qint64 transferredId = saved.at(1).at(0).toLongLong();
        QCOMPARE(saved.at(1).at(1).toString(), QStringLiteral("mobilenet"));
        const Expected<ModelRecord> transferred = (*store)->model(transferredId);
        QVERIFY(transferred.ok());
        QCOMPARE(transferred->method, QStringLiteral("pt"));
        QCOMPARE(transferred->referenceModelId, referenceId);
        QTRY_VERIFY_WITH_TIMEOUT(fitShown.contains({transferredId}), kTimeout);
        QCOMPARE(panel.timeFit()->pointCount(), 60);
        QVERIFY(!panel.isBusy());
    }

    // PowerTrain's second claim from the window: a reference model of the AGX Orin adapted to a
    // workload profiled on an Orin Nano, chosen in the Models view of the Orin Nano.
    void transfersAcrossDeviceKinds()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        qint64 referenceId = 0;
        {
            auto store = Store::open(path);
            QVERIFY(addSyntheticWorkloadOn(**store, QStringLiteral("orin-nano"),
                                           QStringLiteral("nanonet"), 50, 9));
            workflows::TrainRequest train;
            train.databasePath = path;
            train.workload = QStringLiteral("resnet");
            train.config = tinyConfig(8);
            const Expected<ModelRecord> reference = workflows::train(train);
            QVERIFY2(reference, qPrintable(reference.error()));
            referenceId = reference->id;
        }
        ModelsPanel panel;
        QSignalSpy loaded(&panel, &ModelsPanel::listsLoaded);
        QSignalSpy saved(&panel, &ModelsPanel::modelSaved);
        QSignalSpy failed(&panel, &ModelsPanel::failed);
        panel.setDeviceKind(QStringLiteral("orin-nano"));
        panel.setDatabasePath(path);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, kTimeout);
        // The Orin Nano has no model of its own; the AGX Orin's reference is offered, labelled.
        QVERIFY(panel.models().isEmpty());
        const auto *references = panel.findChild<QComboBox *>(QStringLiteral("referenceModel"));
        QVERIFY(references);
        const int row = references->findData(referenceId);
        QVERIFY(row >= 0);
        QVERIFY2(references->itemText(row).contains(QStringLiteral("from Jetson AGX Orin")),
                 qPrintable(references->itemText(row)));

        QVERIFY(panel.setTransferChoice(referenceId, QStringLiteral("nanonet")));
        // Said plainly before it runs.
        const auto *note = panel.findChild<QLabel *>(QStringLiteral("crossDeviceNote"));
        QVERIFY(note);
        QVERIFY(!note->isHidden());
        QCOMPARE(note->text(),
                 QStringLiteral("Across devices: model #%1 was trained on Jetson AGX Orin; the "
                                "transfer adapts it to Jetson Orin Nano 8GB from nanonet's "
                                "profiled modes there.")
                     .arg(referenceId));
        panel.transfer();
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1 || !failed.isEmpty(), kTimeout);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        auto store = Store::open(path);
        const Expected<ModelRecord> adapted = (*store)->model(saved.first().at(0).toLongLong());
        QVERIFY(adapted);
        QCOMPARE(adapted->method, QStringLiteral("pt"));
        QCOMPARE(adapted->workload, QStringLiteral("nanonet"));
        QCOMPARE(adapted->deviceKind, QStringLiteral("orin-nano"));
        QCOMPARE(adapted->referenceModelId, referenceId);
        // Both devices in its provenance.
        QCOMPARE(adapted->referenceDeviceKind, QStringLiteral("orin-agx"));
        QCOMPARE(adapted->referenceDevice, QStringLiteral("orin-agx"));
        QCOMPARE(adapted->device, QStringLiteral("orin-nano"));
        QVERIFY(adapted->acrossDevices());
        QTRY_COMPARE_WITH_TIMEOUT(panel.models().size(), 1, kTimeout);  // the Nano's own now

        // Explore predicts every mode of the Orin Nano with the transferred model, not only the
        // 50 profiled ones.
        ExplorePanel explore;
        QSignalSpy shown(&explore, &ExplorePanel::loaded);
        explore.setDeviceKind(QStringLiteral("orin-nano"));
        explore.setDatabasePath(path);
        explore.showWorkload(QStringLiteral("nanonet"));
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() &&
                                     shown.last().at(0).toString() == QLatin1String("nanonet"),
                                 kTimeout);
        QCOMPARE(shown.last().at(1).toInt(), 1800);
        QVERIFY(explore.space()->hasPredictions());
        QCOMPARE(explore.space()->deviceKind(), QStringLiteral("orin-nano"));
    }

    void cancelStoresNothing()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        ModelsPanel panel;
        panel.setTrainingConfig(tinyConfig(5000));  // minutes, were it not cancelled
        QSignalSpy loaded(&panel, &ModelsPanel::listsLoaded);
        QSignalSpy saved(&panel, &ModelsPanel::modelSaved);
        QSignalSpy cancelled(&panel, &ModelsPanel::trainingCancelled);
        panel.setDeviceKind(QStringLiteral("orin-agx"));
        panel.setDatabasePath(path);
        panel.show();
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, kTimeout);
        QVERIFY(panel.setTrainingWorkload(QStringLiteral("resnet")));
        panel.trainReference();
        QVERIFY(panel.isBusy());
        // Some epochs are on the chart, then Esc.
        QTRY_VERIFY_WITH_TIMEOUT(panel.timeLoss()->pointCount() >= 6, kTimeout);
        panel.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeout);
        QVERIFY(!panel.isBusy());
        QCOMPARE(saved.count(), 0);
        QCOMPARE(storedModels(path), 0);
    }
};

QTEST_MAIN(TestModelsPanel)
#include "test_modelspanel.moc"
