// Issue 22 in the window: the simulated Orin Nano with the Super clocks, chosen in the Devices
// list and connected, shows its own presets (7W, 15W, 25W, MAXN_SUPER) and mode count; the Sweep
// view profiles a few of its modes, the fastest among them; and Explore, for a power budget that
// allows it, recommends a mode whose GPU runs above 624.75 MHz, the top of the Orin Nano's table
// without the Super clocks. The real simulated device and a real SQLite file, no stand-ins.
#include "budgetcontrols.h"
#include "devicedetails.h"
#include "devicelist.h"
#include "devicespanel.h"
#include "devicetablesview.h"
#include "explorepanel.h"
#include "mainwindow.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "recommendationcard.h"
#include "simulatorlauncher.h"
#include "store/devicespecstore.h"
#include "store/store.h"
#include "storesession.h"
#include "sweeppanel.h"
#include "wire.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kWaitMs = 180000;
const QString kTarget = QStringLiteral("sim:orin-nano-super");
constexpr qint64 kNanoGpuTopHz = 624750000;  // the Orin Nano's table without the Super clocks

QString labelText(const QWidget &parent, const char *name)
{
    auto *label = parent.findChild<QLabel *>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

// The specs a device has reported, the newest first (read from the store file itself).
QStringList specHistory(const QString &db, const QString &device)
{
    QStringList ids;
    Expected<std::unique_ptr<Store>> store = Store::open(db);
    if (!store)
        return ids;
    const auto history = DeviceSpecStore(**store).history(device);
    if (!history)
        return ids;
    for (const DeviceSpecStore::Entry &entry : *history)
        ids.append(entry.specId);
    return ids;
}

// An Orin Nano's hello before and after the Super clocks (illustrative tables: its own spec).
DeviceInfo hello(bool super)
{
    QJsonArray gpu {306000000, 624750000};
    if (super)
        gpu.append(1020000000);
    const QJsonObject json {
        {QStringLiteral("agent_version"), QStringLiteral("1.0.0")},
        {QStringLiteral("model"), QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit")},
        {QStringLiteral("boot_id"), super ? QStringLiteral("after") : QStringLiteral("before")},
        {QStringLiteral("l4t"), super ? QStringLiteral("36.4.0") : QStringLiteral("35.4.1")},
        {QStringLiteral("tables"),
         QJsonObject {{QStringLiteral("cores"), QJsonArray {1, 2, 3, 4, 5, 6}},
                      {QStringLiteral("cpu_khz"), QJsonArray {115200, 1510400}},
                      {QStringLiteral("gpu_hz"), gpu},
                      {QStringLiteral("emc_hz"), QJsonArray {204000000, 2133000000}}}},
        {QStringLiteral("rails"), QJsonArray {QStringLiteral("VDD_IN")}},
        {QStringLiteral("mode"),
         QJsonObject {{QStringLiteral("cores"), 6},
                      {QStringLiteral("cpu_khz"), 1510400},
                      {QStringLiteral("gpu_hz"), 624750000},
                      {QStringLiteral("emc_hz"), 2133000000}}}};
    return DeviceInfo::fromJson(json).value();
}

}  // namespace

class TestFamilyWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("ptwb-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_familywindow"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        QSettings().clear();
    }

    void orinNanoSuperFromTheListToARecommendationAboveTheNanoClocks()
    {
        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-nano-super")).value();
        StoreSession session;
        MainWindow window(&session);
        window.resize(1400, 900);
        window.show();
        session.open(m_dir.filePath(QStringLiteral("super.sqlite")));

        // Chosen in the Devices list (every simulated family is listed there) and connected.
        DevicesPanel *devices = window.devices();
        QVERIFY(devices->setCurrentTarget(kTarget));
        devices->connectCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(devices->details()->state() == DeviceDetailsView::State::Connected,
                                 60000);
        const QString specText = labelText(*devices->details(), "deviceSpec");
        QVERIFY2(specText.startsWith(QStringLiteral("orin-nano-super · 4,224 modes")),
                 qPrintable(specText));
        for (const char *name : {"7W", "15W", "25W", "MAXN_SUPER"})
            QVERIFY2(specText.contains(QLatin1String(name)), qPrintable(specText));
        QVERIFY2(specText.contains(QLatin1String("the built-in table")), qPrintable(specText));
        // Its hello stored its spec (its tables, under a hash of them) under its address.
        const QString db = m_dir.filePath(QStringLiteral("super.sqlite"));
        QTRY_COMPARE_WITH_TIMEOUT(specHistory(db, kTarget).size(), 1, 10000);
        QVERIFY2(specHistory(db, kTarget).first().startsWith(QLatin1String("orin-nano-super-")),
                 qPrintable(specHistory(db, kTarget).first()));

        // The tables view follows the device: its presets, MAXN_SUPER with the Super GPU clock.
        QTRY_COMPARE(window.deviceTables()->currentDevice(), QStringLiteral("orin-nano-super"));
        auto *presets = window.deviceTables()->findChild<QTableWidget *>(QStringLiteral("presets"));
        QVERIFY(presets);
        QStringList names;
        for (int row = 0; row < presets->rowCount(); ++row)
            names.append(presets->item(row, 0)->text());
        names.sort();
        QCOMPARE(names,
                 (QStringList {QStringLiteral("15W"), QStringLiteral("25W"), QStringLiteral("7W"),
                               QStringLiteral("MAXN_SUPER")}));
        QVERIFY(spec.preset(QStringLiteral("MAXN_SUPER"))->gpuMaxHz > kNanoGpuTopHz);

        // A sweep from the Sweep view: two GPU clocks below and two above the Nano's top, at
        // all cores, the top CPU and memory clocks.
        const PowerMode top = spec.maxMode();
        const QVector<qint64> &gpu = spec.values(Dimension::Gpu);
        const int firstAbove =
            int(std::upper_bound(gpu.cbegin(), gpu.cend(), kNanoGpuTopHz) - gpu.cbegin());
        QVERIFY(firstAbove >= 2 && firstAbove < gpu.size());
        workflows::SweepRequest request;
        request.workload = QStringLiteral("resnet18");
        request.modeSet = QStringLiteral("grid:cores=%1;cpu=%2;gpu=%3,%4,%5,%6;emc=%7")
                              .arg(top.cores)
                              .arg(top.cpuKHz)
                              .arg(gpu.at(firstAbove - 2))
                              .arg(gpu.at(firstAbove - 1))
                              .arg(gpu.at(firstAbove))
                              .arg(top.gpuHz)
                              .arg(top.emcHz);
        request.minibatches = 30;
        SweepPanel *sweep = window.sweep();
        QTRY_COMPARE(sweep->deviceKind(), QStringLiteral("orin-nano-super"));
        sweep->setRequest(request);
        QSignalSpy finished(sweep, &SweepPanel::sweepFinished);
        sweep->start();
        QVERIFY2(finished.wait(kWaitMs), qPrintable(sweep->failureDetailsText()));
        QVERIFY2(sweep->failureDetailsText().isEmpty(), qPrintable(sweep->failureDetailsText()));

        // Explore shows the four measured modes, all of the Super's own mode space.
        ExplorePanel *explore = window.explore();
        explore->showWorkload(QStringLiteral("resnet18"));
        QTRY_VERIFY_WITH_TIMEOUT(explore->space() && explore->space()->observedCount() == 4 &&
                                     !explore->isLoading(),
                                 60000);
        QCOMPARE(explore->space()->deviceKind(), QStringLiteral("orin-nano-super"));
        for (int i = 0; i < explore->space()->size(); ++i)
            QVERIFY(ModeSpace(spec).contains(explore->space()->mode(i)));
        // A budget above every measured mode's power: the fastest, with a Super GPU clock.
        explore->budgets()->setActive(Budget::Kind::Power);
        explore->budgets()->setPowerBudget(60);
        const int chosen = explore->card()->index();
        QVERIFY(chosen >= 0);
        QVERIFY(explore->card()->fits());
        const PowerMode picked = explore->space()->mode(chosen);
        QVERIFY2(picked.gpuHz > kNanoGpuTopHz, qPrintable(picked.toCanonical()));
        // A budget below the Super modes' power picks a Nano clock: the choice follows it.
        double lowest = 1e9;
        for (int i = 0; i < explore->space()->size(); ++i) {
            if (explore->space()->isObserved(i))
                lowest = std::min(lowest, explore->space()->observedPowerW(i));
        }
        explore->budgets()->setPowerBudget(lowest + 0.01);
        const PowerMode cheap = explore->space()->mode(explore->card()->index());
        QVERIFY2(cheap.gpuHz <= kNanoGpuTopHz, qPrintable(cheap.toCanonical()));
    }

    // A device whose tables changed since the store last saw it (a JetPack upgrade gave an Orin
    // Nano the Super clocks): the Devices view and the status bar say so, naming both specs.
    void aChangeOfTablesIsSaidInTheDevicesView()
    {
        StoreSession session;
        MainWindow window(&session);
        const QString db = m_dir.filePath(QStringLiteral("upgrade.sqlite"));
        QSignalSpy opened(&session, &StoreSession::opened);
        session.open(db);
        QVERIFY(opened.wait(10000));
        QSignalSpy noted(&session, &StoreSession::deviceSpecNoted);
        const QString address = QStringLiteral("ssh://nvidia@lab-nano");
        session.recordDeviceSpec(address, hello(false));
        QTRY_COMPARE(specHistory(db, address).size(), 1);
        QCOMPARE(noted.count(), 0);  // first seen: nothing to say
        session.recordDeviceSpec(address, hello(true));
        QTRY_COMPARE_WITH_TIMEOUT(noted.count(), 1, 10000);
        const QStringList specs = specHistory(db, address);
        QCOMPARE(specs.size(), 2);
        const QString note = labelText(*window.devices()->details(), "deviceSpecNote");
        QVERIFY2(note.contains(QLatin1String("tables changed")) && note.contains(specs[0]) &&
                     note.contains(specs[1]),
                 qPrintable(note));
    }
};

QTEST_MAIN(TestFamilyWindow)
#include "test_familywindow.moc"
