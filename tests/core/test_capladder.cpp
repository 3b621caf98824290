// The study's ladder for a power cap over batch sizes: order, the one step over the cap, a batch
// that does not fit, a refused clock, and the replay that makes a sweep resumable.
#include "modes/devicespec.h"
#include "sweep/capladder.h"

#include <QHash>
#include <QTest>

using namespace ptwb;

namespace {

using Outcome = CapLadder::Outcome;

// A made-up device response: the peak grows with the GPU clock's index and the batch.
struct FakeDevice
{
    QVector<qint64> gpu;
    QHash<QPair<qint64, int>, Outcome::Kind> special;  // (gpu Hz, batch) -> refused / OOM
    int oomFrom = 100000;  // batches from this size on run out of memory

    Outcome profile(const PowerMode &mode, int batch) const
    {
        if (batch >= oomFrom)
            return {Outcome::Kind::OutOfMemory, 0};
        if (special.contains({mode.gpuHz, batch}))
            return {special.value({mode.gpuHz, batch}), 0};
        return {Outcome::Kind::Measured, 15.0 + 2.0 * gpu.indexOf(mode.gpuHz) + batch / 16.0};
    }
};

// Runs the ladder to the end as a sweep would: the next step, its outcome stored, again.
QVector<CapLadder::Step> run(const CapLadder &ladder, const FakeDevice &device,
                             QHash<QPair<PowerMode, int>, Outcome> *stored)
{
    QVector<CapLadder::Step> steps;
    const auto lookup = [stored](const PowerMode &mode, int batch) -> std::optional<Outcome> {
        const auto it = stored->constFind({mode, batch});
        return it == stored->cend() ? std::nullopt : std::optional<Outcome>(*it);
    };
    while (const std::optional<CapLadder::Step> step = ladder.next(lookup)) {
        if (stored->contains({step->mode, step->batch}) || steps.size() > 200)
            return {};  // asked again: the replay is broken
        steps.append(*step);
        stored->insert({step->mode, step->batch}, device.profile(step->mode, step->batch));
    }
    return steps;
}

}  // namespace

class TestCapLadder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void capsParse()
    {
        QCOMPARE(CapLadder::capOf(QStringLiteral("cap:30"))->value(), 30.0);
        QVERIFY(!CapLadder::capOf(QStringLiteral("random:5"))->has_value());
        for (const char *bad : {"cap:", "cap:0", "cap:-3", "cap:x", "cap:5000"}) {
            const auto cap = CapLadder::capOf(QLatin1String(bad));
            QVERIFY2(!cap, bad);
            QCOMPARE(cap.field(), InputField::Modes);
        }
    }

    void largestFirstRaisedUntilTheCapThenTheNextFromThere()
    {
        const DeviceSpec orin = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        FakeDevice device;
        device.gpu = orin.values(Dimension::Gpu);
        device.oomFrom = 128;
        // 32 at the fifth clock is refused: the ladder goes on above it
        device.special.insert({device.gpu[4], 32}, Outcome::Kind::Failed);
        const CapLadder ladder(orin, {16, 128, 32}, 30);
        QHash<QPair<PowerMode, int>, Outcome> stored;
        const QVector<CapLadder::Step> steps = run(ladder, device, &stored);
        QVERIFY(!steps.isEmpty());
        // cores, CPU and memory at their highest throughout
        for (const CapLadder::Step &step : steps) {
            QCOMPARE(step.mode.cores, orin.maxCores());
            QCOMPARE(step.mode.cpuKHz, orin.maxMode().cpuKHz);
            QCOMPARE(step.mode.emcHz, orin.maxMode().emcHz);
        }
        // the largest batch first, at the lowest clock; out of memory: given up at once
        QCOMPARE(steps[0].batch, 128);
        QCOMPARE(steps[0].mode.gpuHz, device.gpu[0]);
        QCOMPARE(steps[1].batch, 32);
        QCOMPARE(steps[1].mode.gpuHz, device.gpu[0]);
        // batch 32: peak 17 + 2 i fits 30 W up to i = 6; i = 7 is the one step over
        // batch 16: 16 + 2 i fits up to i = 7; it starts at 32's highest fit, i = 6
        int over32 = 0;
        int over16 = 0;
        QVector<int> climbed16;
        for (const CapLadder::Step &step : steps) {
            const Outcome outcome = stored.value({step.mode, step.batch});
            if (outcome.kind == Outcome::Kind::Measured && outcome.peakW > 30)
                ++(step.batch == 32 ? over32 : over16);
            if (step.batch == 16)
                climbed16.append(int(device.gpu.indexOf(step.mode.gpuHz)));
        }
        QCOMPARE(over32, 1);
        QCOMPARE(over16, 1);
        QCOMPARE(climbed16, (QVector<int> {6, 7, 8}));
        QCOMPARE(steps.size(), 1 + 8 + 3);  // 128; 32 at 0..7; 16 at 6..8
        const auto lookup = [&stored](const PowerMode &mode, int batch) -> std::optional<Outcome> {
            const auto it = stored.constFind({mode, batch});
            return it == stored.cend() ? std::nullopt : std::optional<Outcome>(*it);
        };
        const QVector<QPair<int, qint64>> fits = ladder.highestFitting(lookup);
        QCOMPARE(fits.size(), 3);
        QCOMPARE(fits[0], qMakePair(128, qint64(0)));  // nothing: out of memory
        QCOMPARE(fits[1], qMakePair(32, device.gpu[6]));
        QCOMPARE(fits[2], qMakePair(16, device.gpu[7]));

        // Replayed from what is stored, a resumed sweep asks for nothing more...
        QVERIFY(!ladder.next(lookup));
        // ...and with the last result lost, for exactly that step again.
        stored.remove({steps.last().mode, steps.last().batch});
        const auto again = ladder.next(lookup);
        QVERIFY(again);
        QCOMPARE(again->mode, steps.last().mode);
        QCOMPARE(again->batch, steps.last().batch);
    }
};

QTEST_MAIN(TestCapLadder)
#include "test_capladder.moc"
