#include "store/store.h"
#include "synthetic.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace ptwb;

namespace {

PowerModel trainQuick(const QString &kind = QStringLiteral("orin-agx"))
{
    Expected<PowerModel> model =
        PowerModel::train(QStringLiteral("lab"), kind, QStringLiteral("resnet"),
                          syntheticData(400, 1), QStringLiteral("reference"), quickConfig(), 3);
    if (!model)
        qFatal("%s", qPrintable(model.error()));
    return std::move(model).value();
}

}  // namespace

class TestPowerModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void medianOfRepeats()
    {
        QVector<Measurement> rows;
        const PowerMode a {12, 2201600, 1300500000, 3199000000};
        const PowerMode b {4, 1036800, 318750000, 2133000000};
        for (const auto &[mode, time, power] :
             {std::tuple {a, 100.0, 40.0}, std::tuple {b, 400.0, 15.0}, std::tuple {a, 110.0, 41.0},
              std::tuple {a, 90.0, 45.0}}) {
            Measurement m;
            m.id = rows.size() + 1;
            m.mode = mode;
            m.timeMs = time;
            m.powerW = power;
            rows.append(m);
        }
        const Expected<TrainingData> reduced =
            TrainingData::fromMeasurements(rows, QStringLiteral("test"));
        QVERIFY2(reduced, qPrintable(reduced.error()));
        const TrainingData &data = *reduced;
        QCOMPARE(data.size(), 2);
        QCOMPARE(data.modes[0], a);
        QCOMPARE(data.timeMs[0], 100.0);
        QCOMPARE(data.powerW[0], 41.0);
        QCOMPARE(data.timeMs[1], 400.0);
        QCOMPARE(data.ids, (QVector<qint64> {1, 2, 3, 4}));
    }

    // Reduced per mode, one mode at two batch sizes would look like one mode measured twice.
    void inferenceRowsAreNotTrainingData()
    {
        Measurement training;
        training.mode = {12, 2201600, 1300500000, 3199000000};
        training.timeMs = 100;
        training.powerW = 40;
        Measurement inference = training;
        inference.inferenceBatch = 32;
        const Expected<TrainingData> data = TrainingData::fromMeasurements(
            {training, inference}, QStringLiteral("resnet18_infer.csv"));
        QVERIFY(!data);
        QCOMPARE(data.errorKind(), ErrorKind::BadInput);
        QCOMPARE(data.field(), InputField::Workload);
        QCOMPARE(data.error(),
                 QStringLiteral("resnet18_infer.csv holds inference measurements (inference "
                                "minibatch sizes 32), not training ones; training, transfer, "
                                "evaluation and mode selection need a workload of training "
                                "measurements"));
    }

    void storeRoundTripGivesIdenticalPredictions()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        PowerModel reference = trainQuick();
        const Expected<qint64> referenceId = (*store)->saveModel(reference.toRecord());
        QVERIFY2(referenceId.ok(), qPrintable(referenceId.error()));
        reference.setId(*referenceId);
        Expected<PowerModel> transferred =
            reference.transfer(QStringLiteral("lab"), QStringLiteral("orin-agx"),
                               QStringLiteral("mobilenet"), syntheticData(30, 5, 0.9), 2, false);
        QVERIFY2(transferred.ok(), qPrintable(transferred.error()));
        QCOMPARE(transferred->record().referenceModelId, *referenceId);
        const Expected<qint64> id = (*store)->saveModel(transferred->toRecord());
        QVERIFY(id.ok());

        const Expected<ModelRecord> record = (*store)->latestModel(
            QStringLiteral("orin-agx"), QStringLiteral("mobilenet"), QStringLiteral("pt"));
        QVERIFY2(record.ok(), qPrintable(record.error()));
        QCOMPARE(record->id, *id);
        QCOMPARE(record->method, QStringLiteral("pt"));
        QCOMPARE(record->config, QStringLiteral("quick"));
        QCOMPARE(record->featureLayout, QStringLiteral("log:cores,cpu_khz,gpu_hz,emc_hz"));
        QCOMPARE(record->trainingIds.size(), 30);
        const Expected<PowerModel> loaded = PowerModel::fromRecord(*record);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));

        const ModeSpace space(DeviceSpec::builtin(QStringLiteral("orin-agx")).value());
        const Expected<ModePredictions> original = transferred->predict(space);
        const Expected<ModePredictions> again = loaded->predict(space);
        QVERIFY(original.ok() && again.ok());
        QCOMPARE(again->timeMs.size(), 18096);
        QVERIFY(again->timeMs == original->timeMs);
        QVERIFY(again->powerW == original->powerW);
        QVERIFY(again->timeStdMs == original->timeStdMs);
    }

    void transferredSpreadWidensAwayFromTheProfiledModes()
    {
        // Profiled at the lower half of the GPU clocks only, predicted at the top one: the
        // spread must cover a fair share of the real errors there. The head's leave-one-out
        // error alone (without the leverage term) covered none of them
        // (docs/optimization.md, "How well the spread is calibrated").
        const PowerModel reference = trainQuick();
        const TrainingData target = syntheticData(400, 5, 0.9);
        QVector<int> low;
        TrainingData top;
        for (int i = 0; i < target.size(); ++i) {
            if (target.modes[i].gpuHz <= 624750000)
                low.append(i);
            else if (target.modes[i].gpuHz == 1300500000)
                top.modes.append(target.modes[i]);
        }
        QVERIFY(low.size() >= 40 && top.size() >= 10);
        Expected<PowerModel> lowOnly = reference.transfer(
            QStringLiteral("lab"), QStringLiteral("orin-agx"), QStringLiteral("mobilenet"),
            target.subset(low.mid(0, 40)), 2, false);
        QVERIFY2(lowOnly.ok(), qPrintable(lowOnly.error()));
        const ModePredictions far = lowOnly->predict(top.modes);
        int within = 0;
        for (int i = 0; i < top.size(); ++i) {
            const int row = int(target.modes.indexOf(top.modes[i]));
            within += std::abs(target.timeMs[row] - far.timeMs[i]) <= far.timeStdMs[i] ? 1 : 0;
        }
        const double share = 100.0 * within / top.size();
        qInfo("at the top GPU clock: time within one spread for %.0f %% of %d modes", share,
              top.size());
        QVERIFY2(share >= 30, qPrintable(QString::number(share)));
    }

    void refusesWrongDeviceAndLayout()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        const PowerModel model = trainQuick();
        const Expected<qint64> id = (*store)->saveModel(model.toRecord());
        QVERIFY(id.ok());
        Expected<ModelRecord> record = (*store)->model(*id);
        QVERIFY(record.ok());

        const Expected<PowerModel> loaded = PowerModel::fromRecord(*record);
        QVERIFY(loaded.ok());
        const ModeSpace xavier(DeviceSpec::builtin(QStringLiteral("xavier-agx")).value());
        const Expected<ModePredictions> wrongDevice = loaded->predict(xavier);
        QVERIFY(!wrongDevice.ok());
        QCOMPARE(wrongDevice.error(),
                 QStringLiteral("model %1 predicts for orin-agx, not for xavier-agx").arg(*id));

        record->featureLayout = QStringLiteral("raw:cores,cpu_khz,gpu_hz,emc_hz");
        const Expected<PowerModel> wrongLayout = PowerModel::fromRecord(*record);
        QVERIFY(!wrongLayout.ok());
        QCOMPARE(wrongLayout.error(),
                 QStringLiteral("model %1: feature layout 'raw:cores,cpu_khz,gpu_hz,emc_hz' is not "
                                "the 'log:cores,cpu_khz,gpu_hz,emc_hz' its weights expect; the "
                                "model cannot be used")
                     .arg(*id));

        const Expected<ModelRecord> missing = (*store)->model(999);
        QVERIFY(!missing.ok());
        QCOMPARE(missing.errorKind(), ErrorKind::BadInput);
    }

    void crossDeviceTransferNeedsTheOption()
    {
        const PowerModel reference = trainQuick();
        const TrainingData nano = syntheticData(20, 4);  // values only; the kind is what matters
        const Expected<PowerModel> refused =
            reference.transfer(QStringLiteral("nano-1"), QStringLiteral("orin-nano"),
                               QStringLiteral("mobilenet"), nano, 1, false);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errorKind(), ErrorKind::BadInput);
        QCOMPARE(refused.field(), InputField::DeviceTransfer);  // ptwb names --device-transfer
        QCOMPARE(refused.error(),
                 QStringLiteral("the reference model of 'resnet' was trained on orin-agx, but "
                                "'mobilenet' was measured on orin-nano; allow a transfer across "
                                "device kinds to adapt it"));
        const Expected<PowerModel> allowed =
            reference.transfer(QStringLiteral("nano-1"), QStringLiteral("orin-nano"),
                               QStringLiteral("mobilenet"), nano, 1, true);
        QVERIFY2(allowed.ok(), qPrintable(allowed.error()));
        QCOMPARE(allowed->record().deviceKind, QStringLiteral("orin-nano"));
    }

    // Across devices the head re-weights each clock (docs/prediction.md, "Across devices"): on a
    // target whose CPU matters far more than on the reference device, the cross-device transfer
    // fits where the same data transferred as the reference's own device cannot; and the stored
    // model predicts exactly the same after a round trip.
    void crossDeviceTransferReweightsTheClocks()
    {
        const PowerModel reference = trainQuick();
        TrainingData nano = syntheticDataOf(QStringLiteral("orin-nano"), 300, 8);
        for (int i = 0; i < nano.size(); ++i)
            nano.timeMs[i] *= std::pow(1.5104e6 / nano.modes[i].cpuKHz, 0.6);
        QVector<int> profiled(60);
        std::iota(profiled.begin(), profiled.end(), 0);
        QVector<int> rest(nano.size() - 60);
        std::iota(rest.begin(), rest.end(), 60);
        const TrainingData sample = nano.subset(profiled);
        const TrainingData validation = nano.subset(rest);

        const Expected<PowerModel> across =
            reference.transfer(QStringLiteral("nano-1"), QStringLiteral("orin-nano"),
                               QStringLiteral("cpu-bound"), sample, 1, true);
        const Expected<PowerModel> sameKind =
            reference.transfer(QStringLiteral("lab"), QStringLiteral("orin-agx"),
                               QStringLiteral("cpu-bound"), sample, 1, false);
        QVERIFY(across.ok() && sameKind.ok());
        const double acrossError = meanAbsolutePercentageError(
            across->predict(validation.modes).timeMs, validation.timeMs);
        const double sameKindError = meanAbsolutePercentageError(
            sameKind->predict(validation.modes).timeMs, validation.timeMs);
        QVERIFY2(acrossError < 0.8 * sameKindError,
                 qPrintable(QStringLiteral("across devices %1 %, as the same kind %2 %")
                                .arg(acrossError)
                                .arg(sameKindError)));

        const Expected<PowerModel> loaded = PowerModel::fromRecord(across->toRecord());
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        const ModeSpace space(DeviceSpec::builtin(QStringLiteral("orin-nano")).value());
        const Expected<ModePredictions> original = across->predict(space);
        const Expected<ModePredictions> again = loaded->predict(space);
        QVERIFY(original.ok() && again.ok());
        QCOMPARE(again->timeMs.size(), 1800);
        QVERIFY(again->timeMs == original->timeMs);
        QVERIFY(again->timeStdMs == original->timeStdMs);
    }

    void tooFewModesIsBadInput()
    {
        const Expected<PowerModel> model = PowerModel::train(
            QStringLiteral("lab"), QStringLiteral("orin-agx"), QStringLiteral("tiny"),
            syntheticData(4, 1), QStringLiteral("nn"), QStringLiteral("default"), 1);
        QVERIFY(!model.ok());
        QCOMPARE(model.errorKind(), ErrorKind::BadInput);
        QCOMPARE(model.error(),
                 QStringLiteral("workload 'tiny': training needs at least 8 "
                                "profiled modes; got 4"));
        const Expected<PowerModel> unknown = PowerModel::train(
            QStringLiteral("lab"), QStringLiteral("orin-agx"), QStringLiteral("tiny"),
            syntheticData(10, 1), QStringLiteral("nn"), QStringLiteral("fancy"), 1);
        QVERIFY(!unknown.ok());
        QCOMPARE(unknown.error(),
                 QStringLiteral("unknown configuration 'fancy'; expected default or baseline"));
    }
};

QTEST_GUILESS_MAIN(TestPowerModel)
#include "test_powermodel.moc"
