// The Explore view: the sliders pick what core's budget query picks, a click selects a mode,
// and Apply against the simulated Jetson keeps a confirmed mode and restores a cancelled or
// unconfirmable one.
#include "budgetcontrols.h"
#include "explorepanel.h"
#include "recommendationcard.h"
#include "remote/simulateddevice.h"
#include "tradeoffchart.h"
#include "ui/syntheticspace.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

class TestExplorePanel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    std::shared_ptr<const TradeoffSpace> m_space;
    std::unique_ptr<test::SimulatedDevice> m_device;

    QString deviceMode() { return m_device->mode(); }

    // Clicks Apply, then Yes in the confirmation box.
    static void applyAndConfirm(ExplorePanel &panel)
    {
        QVERIFY(panel.card()->applyButton()->isEnabled());
        panel.card()->applyButton()->click();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = panel.findChild<QMessageBox *>(QStringLiteral("applyConfirmBox"))));
        box->button(QMessageBox::Yes)->click();
    }

    void prepareApply(ExplorePanel &panel, int keepAfter, const QStringList &faults = {})
    {
        static int instance = 0;
        m_device = std::make_unique<test::SimulatedDevice>(
            m_root.path() + QStringLiteral("/device-") + QString::number(++instance), faults);
        workflows::DeviceEndpoint device;
        device.name = QStringLiteral("Simulated Jetson AGX Orin (test)");
        device.kind = QStringLiteral("orin-agx");
        device.connect = m_device->connector();
        ModeApplier::Options options;
        options.keepAfterSeconds = keepAfter;
        options.revertMarginSeconds = 3;
        options.rebootWaitSeconds = 5;  // a simulated reboot is at once
        panel.setApplyDevice(device, options);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_space = test::syntheticSpace();
    }

    void powerSliderPicksWhatCoreQueryPicks()
    {
        ExplorePanel panel;
        panel.resize(1200, 760);
        panel.setSpace(m_space);
        QSlider *slider = panel.budgets()->powerSlider();
        for (int position : {1000, 900, 700, 500, 350, 200, 120}) {
            slider->setValue(position);
            const Budget budget = panel.budgets()->budget();
            QCOMPARE(budget.kind, Budget::Kind::Power);
            const std::optional<BudgetAnswer> expected = m_space->query(budget);
            QVERIFY(expected);
            QCOMPARE(panel.card()->index(), expected->point.mode);
            QCOMPARE(panel.card()->fits(), expected->fits);
            QCOMPARE(panel.chart()->selected(), expected->point.mode);
        }
        // The energy switch changes the objective, and the pick follows core's.
        panel.budgets()->energySwitch()->setChecked(true);
        const Budget energy = panel.budgets()->budget();
        QCOMPARE(energy.objective, Budget::Objective::Energy);
        QCOMPARE(panel.card()->index(), m_space->query(energy)->point.mode);
    }

    void timeSliderPicksWhatCoreQueryPicks()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        QSlider *slider = panel.budgets()->timeSlider();
        for (int position : {50, 150, 300, 600, 999}) {
            slider->setValue(position);
            const Budget budget = panel.budgets()->budget();
            QCOMPARE(budget.kind, Budget::Kind::Time);
            QCOMPARE(panel.card()->index(), m_space->query(budget)->point.mode);
        }
    }

    void budgetNoModeMeetsSaysSo()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        panel.budgets()->powerSlider()->setValue(0);  // below the cheapest mode
        QVERIFY(!panel.card()->fits());
        QVERIFY2(panel.card()->titleText().startsWith(QStringLiteral("No mode fits")),
                 qPrintable(panel.card()->titleText()));
        panel.budgets()->timeSlider()->setValue(0);  // faster than the fastest mode
        QVERIFY(!panel.card()->fits());
        QVERIFY(panel.card()->titleText().startsWith(QStringLiteral("No mode fits")));
        panel.budgets()->powerSlider()->setValue(BudgetControls::kSteps);
        QVERIFY(panel.card()->fits());
    }

    void clickingAPointSelectsIt()
    {
        ExplorePanel panel;
        panel.resize(1200, 760);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setSpace(m_space);
        // A profiled mode in the middle of the observed front (the first view stops short of
        // the slowest modes): drawn on top, so the click finds it.
        const QVector<TradeoffPoint> &front = m_space->observedFront().powerTime();
        const int mode = front.at(front.size() * 2 / 3).mode;
        QTRY_VERIFY(!panel.chart()->viewPosOf(mode).isNull());
        const QPoint at = panel.chart()->viewPosOf(mode);
        QTest::mouseClick(panel.chart()->viewport(), Qt::LeftButton, {}, at);
        const int picked = panel.card()->index();
        QVERIFY(picked >= 0);
        // Points may overlap at this scale; the click picks the one drawn there.
        QCOMPARE(panel.chart()->viewPosOf(picked), at);
        QCOMPARE(panel.card()->titleText(), QStringLiteral("Selected mode"));
        const QString body = panel.card()->bodyText();
        QVERIFY2(body.contains(m_space->mode(picked).toShort()), qPrintable(body));
        QVERIFY(body.contains(m_space->mode(picked).toCanonical()));
        if (m_space->isObserved(picked))
            QVERIFY(body.contains(
                QStringLiteral("%1 ms").arg(m_space->observedTimeMs(picked), 0, 'f', 1)));
        // The prediction with the model's spread.
        QVERIFY2(body.contains(QStringLiteral("%1 ± %2 ms")
                                   .arg(m_space->predictedTimeMs(picked), 0, 'f', 1)
                                   .arg(m_space->predictedTimeStdMs(picked), 0, 'f', 1)),
                 qPrintable(body));
        QVERIFY(body.contains(QStringLiteral("%1 ± %2 W")
                                  .arg(m_space->predictedPowerW(picked), 0, 'f', 1)
                                  .arg(m_space->predictedPowerStdW(picked), 0, 'f', 1)));
        QCOMPARE(panel.chart()->selected(), picked);
    }

    void safeSwitchRecommendsWithTheMarginAndSaysWhatItCosts()
    {
        // Every third grid mode measured: the fronts are mostly predictions.
        const auto space = test::syntheticSpace(3, 0, 3);
        ExplorePanel panel;
        panel.resize(1200, 760);
        panel.setSpace(space);
        BudgetControls *budgets = panel.budgets();
        budgets->safeSwitch()->setChecked(false);
        QVERIFY(!budgets->confidenceChoice()->isEnabled());
        budgets->setPowerBudget(30);
        const int plain = panel.card()->index();
        QCOMPARE(budgets->budget().safetySigmas, 0.0);
        budgets->confidenceChoice()->setCurrentIndex(2);  // 95 %
        budgets->safeSwitch()->setChecked(true);
        QVERIFY(budgets->confidenceChoice()->isEnabled());
        const Budget budget = budgets->budget();
        QCOMPARE(budget.safetySigmas, 1.645);
        const int safe = panel.card()->index();
        QCOMPARE(safe, space->query(budget)->point.mode);
        QVERIFY(safe != plain);
        const double margin = space->isObserved(safe) ? 0 : 1.645 * space->predictedPowerStdW(safe);
        QVERIFY(space->powerW(safe) + margin <= budget.value);
        QVERIFY(space->timeMs(safe) >= space->timeMs(plain));
        const QString body = panel.card()->bodyText();
        QVERIFY2(body.contains(QStringLiteral("Safe pick")) &&
                     body.contains(QStringLiteral("95 %")),
                 qPrintable(body));
        QVERIFY(body.contains(
            QStringLiteral("%1 %").arg(*space->recommend(budget)->safetyCostPercent, 0, 'f', 1)));
        // The switch and the confidence are remembered for the next window.
        BudgetControls again;
        QVERIFY(again.safeSwitch()->isChecked());
        QCOMPARE(again.budget().safetySigmas, 1.645);
        budgets->safeSwitch()->setChecked(false);
        QCOMPARE(panel.card()->index(), plain);
    }

    void applyConfirmedKeepsTheMode()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        prepareApply(panel, 1);
        const QString before = deviceMode();
        panel.budgets()->powerSlider()->setValue(300);
        const PowerMode chosen = m_space->mode(panel.card()->index());
        QVERIFY(chosen.toCanonical() != before);
        QSignalSpy finished(&panel, &ExplorePanel::applyFinished);
        applyAndConfirm(panel);
        QVERIFY(finished.wait(30000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(deviceMode(), chosen.toCanonical());
    }

    // The view may reload while the confirmation box is open (the first run's model arrives,
    // a sweep ends): Yes applies the mode the box named, not whatever mode now has its index.
    void applyAppliesTheModeTheBoxNamedAfterAReload()
    {
        TrainingData measured;
        for (int i = 0; i < m_space->size(); ++i) {
            if (m_space->isObserved(i)) {
                measured.modes.append(m_space->mode(i));
                measured.timeMs.append(m_space->observedTimeMs(i));
                measured.powerW.append(m_space->observedPowerW(i));
            }
        }
        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        const auto measuredOnly = std::make_shared<const TradeoffSpace>(
            TradeoffSpace::build(spec, measured, nullptr).value());
        ExplorePanel panel;
        panel.setSpace(measuredOnly);
        prepareApply(panel, 1);
        panel.budgets()->powerSlider()->setValue(300);
        const int index = panel.card()->index();
        const PowerMode named = measuredOnly->mode(index);
        panel.card()->applyButton()->click();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = panel.findChild<QMessageBox *>(QStringLiteral("applyConfirmBox"))));
        QVERIFY(box->text().contains(named.toShort()));
        panel.setSpace(m_space);  // every mode now: the same index names another mode
        QVERIFY(m_space->mode(index) != named);
        QSignalSpy finished(&panel, &ExplorePanel::applyFinished);
        box->button(QMessageBox::Yes)->click();
        QVERIFY(finished.wait(30000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(deviceMode(), named.toCanonical());
    }

    void applyCancelledGoesBack()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        prepareApply(panel, 30);
        const QString before = deviceMode();
        panel.budgets()->powerSlider()->setValue(400);
        QSignalSpy finished(&panel, &ExplorePanel::applyFinished);
        applyAndConfirm(panel);
        // The countdown shows, with a Cancel button.
        QTRY_VERIFY_WITH_TIMEOUT(panel.card()->keepNowButton()->isVisibleTo(&panel), 30000);
        QVERIFY(panel.findChild<QLabel *>(QStringLiteral("applyStatus"))
                    ->text()
                    .contains(QStringLiteral("unless you cancel")));
        panel.card()->cancelApplyButton()->click();
        QVERIFY(finished.wait(20000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QCOMPARE(deviceMode(), before);
    }

    void applyUnconfirmedRevertsByItself()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        prepareApply(panel, 1);
        const QString before = deviceMode();
        m_device->failAfter(1);  // the mode "cuts the device off": no second connection
        panel.budgets()->powerSlider()->setValue(500);
        QSignalSpy finished(&panel, &ExplorePanel::applyFinished);
        applyAndConfirm(panel);
        QVERIFY(finished.wait(30000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QCOMPARE(deviceMode(), before);
    }

    void applyOnADecreasingOnlyDeviceOffersAReboot()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        prepareApply(panel, 1, {QStringLiteral("decreasing-only")});
        {
            // The lowest mode first: every mode the card picks then raises a clock.
            Expected<Transport *> transport = m_device->connector()();
            QVERIFY(transport);
            DeviceClient client(*transport);
            QSignalSpy ready(&client, &DeviceClient::ready);
            client.connectToDevice();
            QVERIFY(ready.wait(20000));
            QSignalSpy applied(client.applyMode(test::orinMode(1, 0, 0, 0)), &DeviceCall::finished);
            QVERIFY(applied.wait(20000));
            QVERIFY(applied.at(0).at(0).value<DeviceReply>().ok);
        }
        panel.budgets()->powerSlider()->setValue(300);
        const PowerMode chosen = m_space->mode(panel.card()->index());
        QSignalSpy finished(&panel, &ExplorePanel::applyFinished);
        applyAndConfirm(panel);
        QVERIFY(finished.wait(30000));
        QVERIFY(!finished.at(0).at(0).toBool());  // nothing changed without a reboot
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = panel.findChild<QMessageBox *>(QStringLiteral("applyByRebootBox"))));
        QVERIFY(box->text().contains(chosen.toShort()));
        QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
        box->button(QMessageBox::Yes)->click();
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(finished.at(1).at(1).toString()));
        QCOMPARE(deviceMode(), chosen.toCanonical());
    }

    void applyNeedsADeviceOfTheSameKind()
    {
        ExplorePanel panel;
        panel.setSpace(m_space);
        panel.budgets()->powerSlider()->setValue(500);
        QVERIFY(!panel.card()->applyButton()->isEnabled());  // no device
        workflows::DeviceEndpoint xavier;
        xavier.name = QStringLiteral("xavier");
        xavier.kind = QStringLiteral("xavier-agx");
        xavier.connect = [] { return Expected<Transport *>::failure(QStringLiteral("unused")); };
        panel.setApplyDevice(xavier);
        QVERIFY(!panel.card()->applyButton()->isEnabled());
        QVERIFY(panel.card()->applyButton()->toolTip().contains(QStringLiteral("xavier-agx")));
    }
};

QTEST_MAIN(TestExplorePanel)
#include "test_explorepanel.moc"
