#include "synthetic.h"

#include <QTest>

using namespace ptwb;
using namespace ptwb::predict;

namespace {

double mape(const std::vector<double> &predicted, const std::vector<double> &observed)
{
    double sum = 0;
    for (size_t i = 0; i < observed.size(); ++i)
        sum += std::fabs(predicted[i] - observed[i]) / observed[i];
    return 100.0 * sum / observed.size();
}

}  // namespace

class TestRegressor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { Regressor::setThreadCount(2); }

    void learnsAKnownFunction_data()
    {
        QTest::addColumn<bool>("logSpace");
        QTest::newRow("log features and target") << true;
        QTest::newRow("raw features and target") << false;
    }

    void learnsAKnownFunction()
    {
        QFETCH(bool, logSpace);
        RegressorConfig config = quickConfig();
        config.logFeatures = config.logTarget = logSpace;
        config.epochs = 150;
        const TrainingData all = syntheticData(1600, 7);
        const TrainingData train = all.subset([] {
            QVector<int> rows;
            for (int i = 0; i < 1200; ++i)
                rows.append(i);
            return rows;
        }());
        QVector<int> heldOut;
        for (int i = 1200; i < 1600; ++i)
            heldOut.append(i);
        const TrainingData test = all.subset(heldOut);
        const Regressor model = Regressor::train(config, timeDataset(train), 3);
        const Prediction prediction = model.predict(featuresOf(test));
        const double error = mape(prediction.mean, timeDataset(test).y);
        QVERIFY2(error < 3.0, qPrintable(QStringLiteral("held-out MAPE %1 %").arg(error)));
        for (double s : prediction.stddev)
            QVERIFY(std::isfinite(s) && s >= 0);
    }

    void sameSeedSameModel()
    {
        const TrainingData data = syntheticData(300, 1);
        const Regressor a = Regressor::train(quickConfig(), timeDataset(data), 42);
        const Regressor b = Regressor::train(quickConfig(), timeDataset(data), 42);
        const Regressor c = Regressor::train(quickConfig(), timeDataset(data), 43);
        const std::vector<Features> x = featuresOf(syntheticData(200, 9));
        QVERIFY(a.predict(x).mean == b.predict(x).mean);
        QVERIFY(a.predict(x).mean != c.predict(x).mean);
    }

    void ridgeTransferKeepsEveryLayerAndAdapts()
    {
        const Regressor reference =
            Regressor::train(quickConfig(), timeDataset(syntheticData(1500, 2, 0.7)), 5);
        // A workload that leans more on the GPU: a different shape, 30 profiled modes.
        const TrainingData target = syntheticData(1200, 11, 0.95);
        QVector<int> firstThirty;
        for (int i = 0; i < 30; ++i)
            firstThirty.append(i);
        const Regressor transferred =
            reference.transfer(timeDataset(target.subset(firstThirty)), 8);
        for (int member = 0; member < 2; ++member)
            QVERIFY(transferred.parameters(member) == reference.parameters(member));

        QVector<int> rest;
        for (int i = 30; i < 1200; ++i)
            rest.append(i);
        const TrainingData validation = target.subset(rest);
        const double before =
            mape(reference.predict(featuresOf(validation)).mean, timeDataset(validation).y);
        const double after =
            mape(transferred.predict(featuresOf(validation)).mean, timeDataset(validation).y);
        QVERIFY2(after < before / 2 && after < 5.0,
                 qPrintable(QStringLiteral("before %1 %, after %2 %").arg(before).arg(after)));
    }

    void fineTuneTransferStartsFromTheReference()
    {
        RegressorConfig config = RegressorConfig::baseline();
        config.hidden = {32, 16, 8};
        config.epochs = 20;
        config.fineTuneEpochs = 5;
        const Regressor reference = Regressor::train(config, timeDataset(syntheticData(400, 3)), 1);
        const Regressor transferred = reference.transfer(timeDataset(syntheticData(20, 4)), 1);
        const auto before = reference.parameters(0);
        const auto after = transferred.parameters(0);
        QCOMPARE(after.size(), before.size());
        // Fine-tuning moves the weights a little from the reference's, not from a fresh start.
        double moved = 0, norm = 0;
        for (size_t p = 0; p + 2 < before.size(); ++p) {
            for (size_t i = 0; i < before[p].size(); ++i) {
                moved += std::pow(after[p][i] - before[p][i], 2);
                norm += std::pow(before[p][i], 2);
            }
        }
        QVERIFY(moved > 0);
        QVERIFY2(moved < 0.05 * norm, qPrintable(QStringLiteral("%1 of %2").arg(moved).arg(norm)));
    }

    void saveLoadGivesIdenticalPredictions()
    {
        const Regressor reference =
            Regressor::train(quickConfig(), timeDataset(syntheticData(400, 2)), 5);
        const Regressor transferred = reference.transfer(timeDataset(syntheticData(25, 6, 0.9)), 1);
        const std::vector<Features> x = featuresOf(syntheticData(500, 12));
        for (const Regressor *model : {&reference, &transferred}) {
            const Regressor loaded = Regressor::deserialize(model->serialize());
            QCOMPARE(loaded.config().name, std::string("quick"));
            QVERIFY(loaded.predict(x).mean == model->predict(x).mean);
            QVERIFY(loaded.predict(x).stddev == model->predict(x).stddev);
        }
    }

    void refusesBadInput_data()
    {
        QTest::addColumn<int>("samples");
        QTest::addColumn<bool>("poison");
        QTest::addColumn<bool>("transfer");
        QTest::addColumn<QString>("error");
        QTest::newRow("too few to train")
            << 5 << false << false << "training needs at least 8 profiled modes; got 5";
        QTest::newRow("too few to transfer")
            << 2 << false << true
            << "transfer needs at least 3 profiled modes of the target workload; got 2";
        QTest::newRow("nan target") << 20 << true << false
                                    << "training data: sample 4: target is not a finite positive "
                                       "number";
        QTest::newRow("nan target in transfer")
            << 20 << true << true
            << "target data: sample 4: target is not a finite positive number";
    }

    void refusesBadInput()
    {
        QFETCH(int, samples);
        QFETCH(bool, poison);
        QFETCH(bool, transfer);
        QFETCH(QString, error);
        Dataset data = timeDataset(syntheticData(samples, 1));
        if (poison)
            data.y[3] = std::nan("");
        try {
            if (transfer) {
                const Regressor reference =
                    Regressor::train(quickConfig(), timeDataset(syntheticData(50, 2)), 1);
                reference.transfer(data, 1);
            } else {
                Regressor::train(quickConfig(), data, 1);
            }
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(QString::fromStdString(e.what()), error);
        }
    }

    void refusesGarbageModel()
    {
        try {
            Regressor::deserialize("not a model at all");
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(
                QString::fromStdString(e.what()).startsWith(QStringLiteral("not a readable model")),
                e.what());
        }
    }

    void cancelStopsBeforeTheNextEpoch()
    {
        int epochs = 0;
        Callbacks callbacks;
        callbacks.epochDone = [&epochs](const EpochReport &) { ++epochs; };
        callbacks.cancelled = [&epochs] { return epochs >= 3; };
        try {
            Regressor::train(quickConfig(), timeDataset(syntheticData(200, 1)), 1, callbacks);
            QFAIL("not cancelled");
        } catch (const Cancelled &) {
        }
        QCOMPARE(epochs, 3);
    }
};

QTEST_GUILESS_MAIN(TestRegressor)
#include "test_regressor.moc"
