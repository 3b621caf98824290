#include "predict/modelfit.h"
#include "syntheticstore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

class TestModelFit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void loadsAWorkloadWithItsDevice()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("s.sqlite")));
        QVERIFY2(store.ok(), qPrintable(store.error()));
        QVERIFY(addSyntheticWorkload(**store, QStringLiteral("w"), 40, 3));
        const Expected<WorkloadData> loaded = WorkloadData::load(**store, QStringLiteral("w"), {});
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->device, QStringLiteral("orin-agx"));
        QCOMPARE(loaded->kind, QStringLiteral("orin-agx"));
        QCOMPARE(loaded->data.size(), 40);
        const TrainingData expected = syntheticDataWithMaxn(40, 3);
        QCOMPARE(loaded->data.modes, expected.modes);
        QCOMPARE(loaded->data.timeMs, expected.timeMs);

        const auto missing = WorkloadData::load(**store, QStringLiteral("nothing"), {});
        QVERIFY(!missing.ok());
        QCOMPARE(missing.errorKind(), ErrorKind::BadInput);
        QVERIFY(missing.error().contains(QStringLiteral("nothing")));
    }

    void fitIsTheModelsErrorOnTheObservedModes()
    {
        const TrainingData train = syntheticData(300, 1);
        Expected<PowerModel> model = PowerModel::train(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("w"), train,
            QStringLiteral("reference"), quickConfig(), 1);
        QVERIFY2(model.ok(), qPrintable(model.error()));

        // Observations 10 % above the law the model learnt: the MAPE grows by about 9 points.
        const TrainingData heldOut = syntheticData(500, 2).subset({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        TrainingData shifted = heldOut;
        for (double &t : shifted.timeMs)
            t *= 1.1;
        const ModelFit fit = ModelFit::of(*model, heldOut);
        const ModelFit off = ModelFit::of(*model, shifted);
        QCOMPARE(fit.predicted.timeMs.size(), 10);
        QCOMPARE(fit.observed.modes, heldOut.modes);
        QCOMPARE(fit.timeMape, meanAbsolutePercentageError(fit.predicted.timeMs, heldOut.timeMs));
        QCOMPARE(fit.powerMape, meanAbsolutePercentageError(fit.predicted.powerW, heldOut.powerW));
        QVERIFY2(fit.timeMape < 10, qPrintable(QString::number(fit.timeMape)));
        QVERIFY(off.timeMape > fit.timeMape + 3);
        QCOMPARE(off.powerMape, fit.powerMape);

        const QJsonObject metrics = fit.trainingMetrics(1.5);
        QCOMPARE(metrics.value(QStringLiteral("modes")).toInt(), 10);
        QCOMPARE(metrics.value(QStringLiteral("time_mape_train")).toDouble(), fit.timeMape);
        QCOMPARE(metrics.value(QStringLiteral("power_mape_train")).toDouble(), fit.powerMape);
        QCOMPARE(metrics.value(QStringLiteral("seconds")).toDouble(), 1.5);
    }
};

QTEST_GUILESS_MAIN(TestModelFit)
#include "test_modelfit.moc"
