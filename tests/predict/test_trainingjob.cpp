#include "predict/trainingjob.h"
#include "synthetic.h"

#include <QSignalSpy>
#include <QTest>

#include <atomic>

using namespace ptwb;

class TestTrainingJob : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void progressArrivesInOrderOffThread()
    {
        QVector<TrainingProgress> seen;
        QVector<bool> onMyThread;
        // Declared after what its slots touch, so it is destroyed (and waits) first; the lambda's
        // context is the job, so reports still queued when it goes are dropped with it.
        TrainingJob job;
        connect(&job, &TrainingJob::progress, &job, [&](const TrainingProgress &p) {
            seen.append(p);
            onMyThread.append(QThread::currentThread() == thread());
        });
        QSignalSpy finished(&job, &TrainingJob::finished);
        TrainingJob::TrainRequest request;
        request.deviceKind = QStringLiteral("orin-agx");
        request.workload = QStringLiteral("w");
        request.data = syntheticData(300, 1);
        request.config = quickConfig();
        request.config.epochs = 5;
        QVERIFY(job.start(request));
        QVERIFY(!job.start(request));  // one job at a time
        // QTRY, not wait(): the signal may come from the worker before wait() would start.
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);

        // time: 2 members x 5 epochs, then power: the same. Queued reports may trail finished().
        QTRY_COMPARE(seen.size(), 20);
        for (int i = 0; i < seen.size(); ++i) {
            const TrainingProgress &p = seen[i];
            QCOMPARE(p.target, i < 10 ? QStringLiteral("time") : QStringLiteral("power"));
            QCOMPARE(p.member, (i % 10) / 5);
            QCOMPARE(p.epoch, i % 5 + 1);
            QCOMPARE(p.epochs, 5);
            QVERIFY(std::isfinite(p.trainingLoss) && std::isfinite(p.validationLoss));
        }
        QVERIFY(!onMyThread.contains(false));
        const auto model = finished.first().first().value<std::shared_ptr<PowerModel>>();
        QVERIFY(model);
        QCOMPARE(model->record().workload, QStringLiteral("w"));
    }

    void cancelStopsWithinOneEpoch()
    {
        // Directly connected, so the count is of epochs the worker finished after cancel(),
        // not of queued reports that were already on their way.
        std::atomic<int> afterCancel = 0;
        std::atomic<bool> cancelRequested = false;
        TrainingJob job;
        connect(
            &job, &TrainingJob::progress, &job,
            [&](const TrainingProgress &) {
                if (cancelRequested) {
                    ++afterCancel;
                    return;
                }
                cancelRequested = true;
                job.cancel();
            },
            Qt::DirectConnection);
        QSignalSpy cancelled(&job, &TrainingJob::cancelled);
        QSignalSpy finished(&job, &TrainingJob::finished);
        TrainingJob::TrainRequest request;
        request.deviceKind = QStringLiteral("orin-agx");
        request.workload = QStringLiteral("w");
        request.data = syntheticData(2000, 1);
        request.config = quickConfig();
        request.config.epochs = 1000;  // minutes, were it not cancelled
        QVERIFY(job.start(request));
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 60000);
        QVERIFY(finished.isEmpty());
        // The epoch under way when cancel() ran may still report; no later one does.
        QVERIFY2(afterCancel <= 1, qPrintable(QString::number(afterCancel.load())));
        // The worker emits cancelled() as its last act; the future finishes right after.
        QTRY_VERIFY(!job.isRunning());
    }

    void failureIsReported()
    {
        TrainingJob job;
        QSignalSpy failed(&job, &TrainingJob::failed);
        TrainingJob::TrainRequest request;
        request.deviceKind = QStringLiteral("orin-agx");
        request.workload = QStringLiteral("few");
        request.data = syntheticData(3, 1);
        request.config = quickConfig();
        QVERIFY(job.start(request));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QCOMPARE(failed.first().first().toString(),
                 QStringLiteral("workload 'few': training needs at least 8 profiled modes; got 3"));
    }
};

QTEST_GUILESS_MAIN(TestTrainingJob)
#include "test_trainingjob.moc"
