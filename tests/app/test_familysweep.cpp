// The Jetson families added for issue 22 as simulated targets, through the real ptwb: a sweep of
// a few modes of each family's own table, its top mode included, measures exactly those modes and
// reaches its top clocks; a mode from another family's table is refused before the simulated
// device is even started, by `ptwb apply` and by `ptwb sweep`.
#include "clirunner.h"
#include "modes/devicereport.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "store/devicespecstore.h"
#include "store/sqlite.h"
#include "store/store.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

using ptwb::DeviceSpec;
using ptwb::Dimension;
using ptwb::ModeSpace;
using ptwb::PowerMode;

namespace {

// The modes a store holds, as measured.
QVector<PowerMode> measuredModes(const QString &db)
{
    QVector<PowerMode> modes;
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return modes;
    auto statement = connection->prepare(
        QStringLiteral("SELECT cores, cpu_khz, gpu_hz, emc_hz FROM measurements"));
    if (!statement)
        return modes;
    for (auto row = statement->step(); row && *row; row = statement->step()) {
        modes.append({static_cast<int>(statement->columnInt(0)), statement->columnInt(1),
                      statement->columnInt(2), statement->columnInt(3)});
    }
    return modes;
}

// The middle value of a dimension's table: a second, lower point beside the top one.
qint64 middle(const ModeSpace &space, Dimension dimension)
{
    const QVector<qint64> &values = space.values(dimension);
    return values.at(values.size() / 2);
}

}  // namespace

class TestFamilySweep : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(name).arg(++m_runs));
    }

    // Each new family and a sibling whose top mode is not on it: the closest mistake a lab
    // could make (the Orin Nano's 15 W table on an Orin Nano with the Super clocks, ...).
    static void addFamilies()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("sibling");
        QTest::newRow("orin-nano-super")
            << QStringLiteral("orin-nano-super") << QStringLiteral("orin-nano");
        QTest::newRow("orin-nx") << QStringLiteral("orin-nx") << QStringLiteral("orin-agx");
        QTest::newRow("xavier-nx") << QStringLiteral("xavier-nx") << QStringLiteral("xavier-agx");
        QTest::newRow("agx-thor") << QStringLiteral("agx-thor") << QStringLiteral("orin-agx");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    void tablesArePrinted_data() { addFamilies(); }
    void tablesArePrinted()
    {
        QFETCH(QString, kind);
        const CliResult r = runCli({QStringLiteral("modes"), QStringLiteral("--device"), kind,
                                    QStringLiteral("--presets")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto spec = DeviceSpec::builtin(kind);
        QVERIFY2(spec, qPrintable(spec.error()));
        for (const ptwb::Preset &preset : spec->presets())
            QVERIFY2(r.out.contains(preset.name), qPrintable(preset.name + r.out));
    }

    void sweepReachesTheTopOfItsOwnTable_data() { addFamilies(); }
    void sweepReachesTheTopOfItsOwnTable()
    {
        QFETCH(QString, kind);
        const auto spec = DeviceSpec::builtin(kind);
        QVERIFY2(spec, qPrintable(spec.error()));
        const ModeSpace space(*spec);
        const PowerMode top = spec->maxMode();
        // 2 x 2 modes: half and all cores, a middle and the top CPU clock, the top GPU and EMC.
        const QString grid = QStringLiteral("grid:cores=%1,%2;cpu=%3,%4;gpu=%5;emc=%6")
                                 .arg(top.cores / 2)
                                 .arg(top.cores)
                                 .arg(middle(space, Dimension::Cpu))
                                 .arg(top.cpuKHz)
                                 .arg(top.gpuHz)
                                 .arg(top.emcHz);
        const QString db = fresh(QStringLiteral("sweep.sqlite"));
        const CliResult r = runCli(
            {QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--target"),
             QStringLiteral("sim:") + kind, QStringLiteral("--workload"),
             QStringLiteral("resnet18"), QStringLiteral("--modes"), grid,
             QStringLiteral("--minibatches"), QStringLiteral("30"), QStringLiteral("--sim-speed"),
             QStringLiteral("400"), QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
             QStringLiteral("--json")},
            120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(summary.value(QLatin1String("done")).toInt(), 4);
        QCOMPARE(summary.value(QLatin1String("failed")).toInt(), 0);
        const QVector<PowerMode> measured = measuredModes(db);
        QCOMPARE(measured.size(), 4);
        for (const PowerMode &mode : measured)
            QVERIFY2(space.contains(mode), qPrintable(mode.toCanonical()));
        QVERIFY2(measured.contains(top), qPrintable(top.toCanonical()));
    }

    void anotherFamilysModeIsRefusedBeforeTheDevice_data() { addFamilies(); }
    void anotherFamilysModeIsRefusedBeforeTheDevice()
    {
        QFETCH(QString, kind);
        QFETCH(QString, sibling);
        const auto other = DeviceSpec::builtin(sibling);
        QVERIFY2(other, qPrintable(other.error()));
        const PowerMode foreign = other->maxMode();
        const auto spec = DeviceSpec::builtin(kind);
        QVERIFY2(spec, qPrintable(spec.error()));
        QVERIFY2(!ModeSpace(*spec).contains(foreign), qPrintable(foreign.toCanonical()));

        const QString applyState = fresh(QStringLiteral("sim"));
        const CliResult apply =
            runCli({QStringLiteral("apply"), QStringLiteral("--target"),
                    QStringLiteral("sim:") + kind, QStringLiteral("--mode"), foreign.toCanonical(),
                    QStringLiteral("--sim-state"), applyState});
        QVERIFY2(apply.exitCode == 2, qPrintable(apply.err));
        QVERIFY2(apply.err.contains(QLatin1String("--mode")), qPrintable(apply.err));
        // Refused before the simulated device started: it never built its tree.
        QVERIFY2(!QFileInfo::exists(applyState + QStringLiteral("/root")), qPrintable(applyState));

        const QString db = fresh(QStringLiteral("refused.sqlite"));
        const QString sweepState = fresh(QStringLiteral("sim"));
        const CliResult sweep =
            runCli({QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--target"),
                    QStringLiteral("sim:") + kind, QStringLiteral("--workload"),
                    QStringLiteral("resnet18"), QStringLiteral("--modes"),
                    QStringLiteral("grid:cores=%1;cpu=%2;gpu=%3;emc=%4")
                        .arg(foreign.cores)
                        .arg(foreign.cpuKHz)
                        .arg(foreign.gpuHz)
                        .arg(foreign.emcHz),
                    QStringLiteral("--sim-speed"), QStringLiteral("400"),
                    QStringLiteral("--sim-state"), sweepState});
        QVERIFY2(sweep.exitCode == 2, qPrintable(sweep.err));
        QVERIFY2(measuredModes(db).isEmpty(), qPrintable(db));
        QVERIFY2(!QFileInfo::exists(sweepState + QStringLiteral("/root")), qPrintable(sweepState));
    }

    // A device's own tables, stored when it connected, are printed by `ptwb modes --db`: by the
    // spec's id or by the device's name in the store; without the store the id is unknown.
    void aDevicesOwnTablesArePrintedFromTheStore()
    {
        ptwb::DeviceReport report;
        report.model = QStringLiteral("NVIDIA Jetson Orin NX Engineering Reference Developer Kit");
        report.maxCores = 8;
        report.cpuKHz = {115200, 1190400, 1984000};
        report.gpuHz = {306000000, 612000000, 918000000};
        report.emcHz = {204000000, 3199000000};
        const auto spec = ptwb::deviceSpecFromReport(report);
        QVERIFY2(spec, qPrintable(spec.error()));
        const QString db = fresh(QStringLiteral("own.sqlite"));
        {
            auto store = ptwb::Store::open(db);
            QVERIFY2(store, qPrintable(store.error()));
            QVERIFY(ptwb::DeviceSpecStore(**store).recordSeen(
                QStringLiteral("ssh://nvidia@nx"), *spec, spec->family(), report.model, {}));
            QVERIFY((*store)->ensureDevice(QStringLiteral("lab-nx"), spec->id()));
        }
        for (const QString &device : {spec->id(), QStringLiteral("lab-nx")}) {
            const CliResult r =
                runCli({QStringLiteral("modes"), QStringLiteral("--db"), db,
                        QStringLiteral("--device"), device, QStringLiteral("--list")});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(r.out.trimmed().split(QLatin1Char('\n')).size(), 8 * 3 * 3 * 2);
            QVERIFY2(r.out.contains(QLatin1String("8/1984000/918000000/3199000000")),
                     qPrintable(r.out));
        }
        const CliResult unknown =
            runCli({QStringLiteral("modes"), QStringLiteral("--device"), spec->id()});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains(spec->id()), qPrintable(unknown.err));
    }
};

QTEST_GUILESS_MAIN(TestFamilySweep)
#include "test_familysweep.moc"
