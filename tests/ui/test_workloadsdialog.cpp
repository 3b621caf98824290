// The Workloads dialog against a real SQLite file and the real simulated Jetson: a workload is
// added by filling the editor's fields, tested on the device (the simulator's train.py printing
// marker lines), swept over 10 modes from the Sweep view, and the 10 modes are in Explore. Also:
// field errors disable Save, built-ins cannot be edited, Remove asks, removes and can be undone.
#include "explorepanel.h"
#include "optimize/tradeoffspace.h"
#include "simulatorlauncher.h"
#include "store/sqlite.h"
#include "sweeppanel.h"
#include "sweepresultsmodel.h"
#include "workloadeditor.h"
#include "workloadsdialog.h"
#include "workloadtestpane.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kWaitMs = 60000;

template<typename T>
T *child(QObject *parent, const char *name)
{
    T *found = parent->findChild<T *>(QString::fromLatin1(name));
    if (!found)
        qWarning("no %s named %s", T::staticMetaObject.className(), name);
    return found;
}

// Types into a line edit as a person would (textEdited and textChanged both fire).
void type(QLineEdit *edit, const QString &text)
{
    edit->selectAll();
    edit->del();
    QTest::keyClicks(edit, text);
}

qint64 queryInt(const QString &db, const QString &sql)
{
    auto connection = SqliteConnection::open(db, false);
    if (!connection)
        return -1;
    Expected<qint64> n = connection->queryInt(sql);
    return n ? *n : -1;
}

}  // namespace

class TestWorkloadsDialog : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString freshDatabase() { return m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs)); }

    workflows::DeviceEndpoint simulatedTarget(double speed = 200)
    {
        workflows::ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(++m_runs));
        options.simulatorSpeed = speed;
        return workflows::endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    // A dialog on a fresh store with its list loaded.
    std::unique_ptr<WorkloadsDialog> openDialog(const QString &db,
                                                const workflows::DeviceEndpoint &device = {})
    {
        auto dialog = std::make_unique<WorkloadsDialog>(db, device);
        dialog->show();
        dialog->activateWindow();  // its shortcuts act in the active window
        if (!QTest::qWaitForWindowActive(dialog.get()))
            qWarning("the dialog did not become active");
        if (!QTest::qWaitFor([&] { return !dialog->isBusy() && !dialog->names().isEmpty(); },
                             kWaitMs))
            qWarning("the workload list did not load");
        return dialog;
    }

    // Fills the editor of a new workload by its fields' object names, as a person would.
    static void fillMarkerWorkload(WorkloadsDialog &dialog, const QString &name)
    {
        dialog.addWorkload();
        type(child<QLineEdit>(&dialog, "nameEdit"), name);
        type(child<QLineEdit>(&dialog, "commandEdit"),
             QStringLiteral("python3 train.py --log marker"));
        child<QComboBox>(&dialog, "recogniserCombo")->setCurrentIndex(0);  // marker line
        child<QSpinBox>(&dialog, "skipSpin")->setValue(2);
        child<QSpinBox>(&dialog, "keepSpin")->setValue(10);
        child<QSpinBox>(&dialog, "timeoutSpin")->setValue(60);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // QSettings of its own
        QSettings().remove(QStringLiteral("workloads"));  // what an earlier run left
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QVERIFY2(SimulatorLauncher::scriptDirectory().ok(),
                 qPrintable(SimulatorLauncher::scriptDirectory().error()));
    }

    void commandLineRoundTrips()
    {
        const QStringList argv = {QStringLiteral("python3"), QStringLiteral("my train.py"),
                                  QStringLiteral("--note"), QStringLiteral("say \"hi\""),
                                  QStringLiteral("a|b")};
        QCOMPARE(QProcess::splitCommand(WorkloadEditor::commandText(argv)), argv);
    }

    void sampleLineCheck()
    {
        // In the editor: the live check follows the pattern, the unit and the sample.
        WorkloadEditor editor;
        editor.show();
        child<QComboBox>(&editor, "recogniserCombo")->setCurrentIndex(1);  // regex
        QVERIFY(child<QLineEdit>(&editor, "patternEdit")->isVisible());
        type(child<QLineEdit>(&editor, "patternEdit"), QStringLiteral("(?P<rate>[0-9.]+)it/s"));
        auto *unit = child<QComboBox>(&editor, "unitCombo");
        unit->setCurrentIndex(unit->findData(int(WorkloadDefinition::RateUnit::PerSecond)));
        editor.setSampleLine(QStringLiteral(" 50%|#####     | 20/40 [00:01<00:01, 20.0it/s]"));
        QVERIFY2(editor.sampleResult().contains(QLatin1String("50.0 ms")),
                 qPrintable(editor.sampleResult()));
        unit->setCurrentIndex(unit->findData(int(WorkloadDefinition::RateUnit::Milliseconds)));
        QVERIFY2(editor.sampleResult().contains(QLatin1String("20.0 ms")),
                 qPrintable(editor.sampleResult()));
        editor.setSampleLine(QStringLiteral("loading data"));
        QVERIFY(editor.sampleResult().contains(QLatin1String("no match")));
        // Launcher and marker need no pattern: its fields go away.
        child<QComboBox>(&editor, "recogniserCombo")->setCurrentIndex(2);
        QVERIFY(!child<QLineEdit>(&editor, "patternEdit")->isVisible());
    }

    void fieldErrorsDisableSave()
    {
        const QString db = freshDatabase();
        auto dialog = openDialog(db);
        QVERIFY(dialog);
        auto *save = child<QPushButton>(dialog.get(), "saveButton");
        WorkloadEditor *editor = dialog->editor();
        fillMarkerWorkload(*dialog, QStringLiteral("my train!"));
        QVERIFY(!editor->fieldError(QStringLiteral("name")).isEmpty());
        QVERIFY(!save->isEnabled());
        QVERIFY(save->toolTip().contains(QLatin1String("name")));

        type(child<QLineEdit>(dialog.get(), "nameEdit"), QStringLiteral("resnet18"));
        QVERIFY(editor->fieldError(QStringLiteral("name")).contains(QLatin1String("built-in")));
        QVERIFY(!save->isEnabled());

        type(child<QLineEdit>(dialog.get(), "nameEdit"), QStringLiteral("my-train"));
        QVERIFY(editor->fieldError(QStringLiteral("name")).isEmpty());
        QVERIFY(save->isEnabled());

        // The command: shown back as the exact argument list, no shell.
        type(child<QLineEdit>(dialog.get(), "commandEdit"),
             QStringLiteral("python3 \"my train.py\" | tee log"));
        const QString argv = child<QLabel>(dialog.get(), "argvLabel")->text();
        QVERIFY2(argv.contains(QStringLiteral("\u201cmy train.py\u201d")), qPrintable(argv));
        QVERIFY2(argv.contains(QLatin1String("No shell")), qPrintable(argv));
        type(child<QLineEdit>(dialog.get(), "commandEdit"), QString());
        QVERIFY(!editor->fieldError(QStringLiteral("argv")).isEmpty());
        QVERIFY(!save->isEnabled());
        type(child<QLineEdit>(dialog.get(), "commandEdit"),
             QStringLiteral("python3 train.py --log marker"));

        type(child<QLineEdit>(dialog.get(), "cwdEdit"), QStringLiteral("run/here"));
        QVERIFY(!editor->fieldError(QStringLiteral("cwd")).isEmpty());
        QVERIFY(!save->isEnabled());
        type(child<QLineEdit>(dialog.get(), "cwdEdit"), QStringLiteral("~/run"));
        QVERIFY(save->isEnabled());

        // A secret in the environment is refused, naming its row.
        child<QPushButton>(dialog.get(), "envAddButton")->click();
        auto *env = child<QTableWidget>(dialog.get(), "envTable");
        env->item(0, 0)->setText(QStringLiteral("WANDB_API_KEY"));
        env->item(0, 1)->setText(QStringLiteral("abc"));
        const QString envError = editor->fieldError(QStringLiteral("env"));
        QVERIFY2(envError.startsWith(QLatin1String("Row 1")) &&
                     envError.contains(QLatin1String("secret")),
                 qPrintable(envError));
        QVERIFY(!save->isEnabled());
        env->item(0, 0)->setText(QStringLiteral("CUDA_VISIBLE_DEVICES"));
        env->item(0, 1)->setText(QStringLiteral("0"));
        QVERIFY(editor->fieldError(QStringLiteral("env")).isEmpty());

        // A regex with two named groups.
        child<QComboBox>(dialog.get(), "recogniserCombo")->setCurrentIndex(1);
        type(child<QLineEdit>(dialog.get(), "patternEdit"),
             QStringLiteral("(?P<a>[0-9]+)/(?P<b>[0-9]+)"));
        QVERIFY(!editor->fieldError(QStringLiteral("pattern")).isEmpty());
        QVERIFY(!save->isEnabled());
        type(child<QLineEdit>(dialog.get(), "patternEdit"),
             QStringLiteral("(?P<rate>[0-9.]+)it/s"));
        QVERIFY(editor->fieldError(QStringLiteral("pattern")).isEmpty());

        child<QSpinBox>(dialog.get(), "keepSpin")->setValue(1);
        child<QSpinBox>(dialog.get(), "skipSpin")->setValue(0);
        QVERIFY(!editor->fieldError(QStringLiteral("keep")).isEmpty());
        QVERIFY(!save->isEnabled());
        child<QSpinBox>(dialog.get(), "keepSpin")->setValue(20);
        QVERIFY(save->isEnabled());

        // Saved: in the list, and in the store as typed.
        save->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->names().contains(QStringLiteral("my-train")), kWaitMs);
        QTRY_VERIFY(!dialog->isBusy());
        QCOMPARE(dialog->currentName(), QStringLiteral("my-train"));
        QVERIFY(!dialog->isModified());
        QVERIFY(!save->isEnabled());  // nothing changed since
        const WorkloadDefinition stored = dialog->editor()->definition();
        QCOMPARE(stored.argv,
                 (QStringList {QStringLiteral("python3"), QStringLiteral("train.py"),
                               QStringLiteral("--log"), QStringLiteral("marker")}));
        QCOMPARE(stored.workingDirectory, QStringLiteral("~/run"));
        QCOMPARE(stored.environment.size(), 1);
        QCOMPARE(stored.pattern, QStringLiteral("(?P<rate>[0-9.]+)it/s"));
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM workload_definitions WHERE "
                                         "name = 'my-train'")),
                 1);
    }

    void testSecondsPersist()
    {
        const QString db = freshDatabase();
        auto dialog = openDialog(db);
        QCOMPARE(dialog->testPane()->seconds(), 30);  // the default
        dialog->testPane()->setSeconds(45);
        dialog->close();
        auto again = openDialog(db);
        QCOMPARE(again->testPane()->seconds(), 45);
        again->testPane()->setSeconds(30);
        again->close();
    }

    void builtinsCannotBeEdited()
    {
        auto dialog = openDialog(freshDatabase());
        QVERIFY(dialog->selectWorkload(QStringLiteral("resnet18")));
        QVERIFY(dialog->editor()->isBuiltin());
        QVERIFY(!child<QLineEdit>(dialog.get(), "nameEdit")->isEnabled());
        QVERIFY(!child<QLineEdit>(dialog.get(), "commandEdit")->isEnabled());
        QVERIFY(!child<QPushButton>(dialog.get(), "saveButton")->isEnabled());
        QVERIFY(!child<QPushButton>(dialog.get(), "removeButton")->isEnabled());
        QVERIFY(!child<QPushButton>(dialog.get(), "duplicateButton")->isEnabled());
        QVERIFY(!child<QLabel>(dialog.get(), "builtinNote")->isHidden());
        QVERIFY(!dialog->testPane()->testButton()->isEnabled());
        auto *list = child<QListWidget>(dialog.get(), "workloadList");
        QVERIFY(list->currentItem()->toolTip().contains(QLatin1String("read-only")));
        QVERIFY(list->currentItem()->foreground().color() ==
                dialog->palette().color(QPalette::PlaceholderText));
        // F2 says why instead of editing.
        list->setFocus();
        QTest::keyClick(list, Qt::Key_F2);
        QVERIFY2(dialog->messageText().contains(QLatin1String("cannot be edited")),
                 qPrintable(dialog->messageText()));
        // Del does nothing to a built-in: no question, still listed.
        QTest::keyClick(list, Qt::Key_Delete);
        QVERIFY(!dialog->findChild<QMessageBox *>(QStringLiteral("removeConfirmBox")));
        QVERIFY(dialog->names().contains(QStringLiteral("resnet18")));
    }

    void removeAsksRemovesAndUndoes()
    {
        const QString db = freshDatabase();
        auto dialog = openDialog(db);
        fillMarkerWorkload(*dialog, QStringLiteral("to-remove"));
        child<QPushButton>(dialog.get(), "saveButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->names().contains(QStringLiteral("to-remove")), kWaitMs);
        QTRY_VERIFY(!dialog->isBusy());
        // Ctrl+D: a copy, under a new name.
        QTest::keyClick(dialog.get(), Qt::Key_D, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->names().contains(QStringLiteral("to-remove-copy")),
                                 kWaitMs);
        QTRY_VERIFY(!dialog->isBusy());
        QCOMPARE(dialog->currentName(), QStringLiteral("to-remove-copy"));
        QVERIFY(dialog->selectWorkload(QStringLiteral("to-remove")));

        // Del asks; Cancel keeps it.
        auto *list = child<QListWidget>(dialog.get(), "workloadList");
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Delete);
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = dialog->findChild<QMessageBox *>(QStringLiteral("removeConfirmBox"))));
        QVERIFY(box->informativeText().contains(QLatin1String("measurements")));
        box->button(QMessageBox::Cancel)->click();
        QTest::qWait(50);
        QVERIFY(!dialog->isBusy());
        QVERIFY(dialog->names().contains(QStringLiteral("to-remove")));

        // Yes removes it from the store.
        child<QPushButton>(dialog.get(), "removeButton")->click();
        QTRY_VERIFY((box = dialog->findChild<QMessageBox *>(QStringLiteral("removeConfirmBox"))));
        box->button(QMessageBox::Yes)->click();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->names().contains(QStringLiteral("to-remove")), kWaitMs);
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM workload_definitions WHERE "
                                         "name = 'to-remove'")),
                 0);
        QVERIFY(dialog->messageText().contains(QLatin1String("measurements stay")));
        auto *undo = child<QPushButton>(dialog.get(), "undoButton");
        QVERIFY(!undo->isHidden());
        undo->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->names().contains(QStringLiteral("to-remove")), kWaitMs);
        QTRY_VERIFY(!dialog->isBusy());
        QCOMPARE(dialog->currentName(), QStringLiteral("to-remove"));
        QCOMPARE(dialog->editor()->definition().argv.value(3), QStringLiteral("marker"));
    }

    void testReportsWhyAndCancels()
    {
        // A marker workload whose script prints no marker: the test says why, in the error
        // style; a long one is cancelled, and says so.
        // (At 10 device seconds per wall second: the script's own start-up stays short.)
        auto dialog = openDialog(freshDatabase(), simulatedTarget(10));
        fillMarkerWorkload(*dialog, QStringLiteral("silent"));
        type(child<QLineEdit>(dialog.get(), "commandEdit"),
             QStringLiteral("python3 train.py --log steps"));
        child<QSpinBox>(dialog.get(), "timeoutSpin")->setValue(5);
        WorkloadTestPane *test = dialog->testPane();
        QVERIFY(test->testButton()->isEnabled());  // an unsaved definition can be tested
        test->setSeconds(10);
        QSignalSpy finished(test, &WorkloadTestPane::testFinished);
        test->testButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kWaitMs);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(test->summaryText().contains(QLatin1String("Nothing recognised")) &&
                     test->summaryText().contains(QLatin1String("PTWB_MINIBATCH")),
                 qPrintable(test->summaryText()));
        QVERIFY2(test->outputText().contains(QLatin1String("step ")),
                 qPrintable(test->outputText() + QLatin1Char('\n') + test->summaryText() +
                            QLatin1Char('\n') + test->statusText()));
        QCOMPARE(test->highlightedLines(), 0);

        // In real time, with no timeout before the 600 s: it runs until cancelled.
        dialog = openDialog(freshDatabase(), simulatedTarget(1));
        fillMarkerWorkload(*dialog, QStringLiteral("long"));
        type(child<QLineEdit>(dialog.get(), "commandEdit"),
             QStringLiteral("python3 train.py --log steps"));
        child<QSpinBox>(dialog.get(), "timeoutSpin")->setValue(600);
        test = dialog->testPane();
        QSignalSpy again(test, &WorkloadTestPane::testFinished);
        test->setSeconds(600);
        test->testButton()->click();
        QVERIFY(test->isRunning());
        QTest::qWait(1500);
        QVERIFY(test->isRunning());
        auto *cancel = child<QPushButton>(dialog.get(), "cancelTestButton");
        QVERIFY(cancel->isEnabled());
        QElapsedTimer clock;
        clock.start();
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(again.count() == 1, kWaitMs);
        QVERIFY(clock.elapsed() < 20000);
        QVERIFY(!test->isRunning());
        QVERIFY2(test->statusText().contains(QLatin1String("Cancelled")),
                 qPrintable(test->statusText()));
        QVERIFY(test->testButton()->isEnabled());
    }

    void failedModesShowTheirOutputAndStopTheSweep()
    {
        const QString db = freshDatabase();
        SweepPanel panel;
        panel.resize(1100, 760);
        panel.show();
        panel.setDatabasePath(db);
        panel.setDevice(simulatedTarget());
        QTRY_VERIFY_WITH_TIMEOUT(panel.workloadsLoaded(), kWaitMs);
        auto *dialog = qobject_cast<WorkloadsDialog *>(panel.openWorkloads());
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isBusy() && !dialog->names().isEmpty(), kWaitMs);
        fillMarkerWorkload(*dialog, QStringLiteral("fails"));
        type(child<QLineEdit>(dialog, "commandEdit"),
             QStringLiteral("python3 train.py --log marker --fail-after 2"));
        child<QPushButton>(dialog, "saveButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->names().contains(QStringLiteral("fails")), kWaitMs);
        QTRY_VERIFY(!dialog->isBusy());
        dialog->close();
        QTRY_VERIFY_WITH_TIMEOUT(panel.workloadNames().contains(QStringLiteral("fails")), kWaitMs);
        auto *combo = child<QComboBox>(&panel, "workloadCombo");
        combo->setCurrentIndex(combo->findText(QStringLiteral("fails")));
        child<QSpinBox>(&panel, "stopAfterSpin")->setValue(2);
        workflows::SweepRequest request = panel.request();
        QCOMPARE(request.stopAfterFailures, 2);
        request.modeSet = QStringLiteral("random:6");
        panel.setRequest(request);
        panel.start();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), 2 * kWaitMs);

        // Two modes failed in a row: the sweep stopped, resumable, and says why.
        QCOMPARE(panel.results()->rowCount(), 2);
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = "
                                         "'failed'")),
                 2);
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = "
                                         "'pending'")),
                 4);
        const QString message = child<QLabel>(&panel, "messageLabel")->text();
        QVERIFY2(message.contains(QLatin1String("2 consecutive failures")), qPrintable(message));
        QVERIFY(child<QPushButton>(&panel, "resumeButton")->isEnabled());

        // A failed mode shows its reason and the script's last lines, as plain text.
        QCOMPARE(panel.failureDetailsText(), QString());
        auto *table = panel.findChild<QTableView *>();
        table->setCurrentIndex(panel.results()->index(0, SweepResultsModel::StatusColumn));
        const QString details = panel.failureDetailsText();
        QVERIFY2(details.contains(QLatin1String("failed: ")) &&
                     details.contains(QLatin1String("status 1")) &&
                     details.contains(QLatin1String("PTWB_MINIBATCH")),
                 qPrintable(details));
        QVERIFY(child<QPlainTextEdit>(&panel, "failureDetails")->isReadOnly());
        const QString tip =
            panel.results()
                ->data(panel.results()->index(0, SweepResultsModel::StatusColumn), Qt::ToolTipRole)
                .toString();
        QVERIFY2(tip.startsWith(QLatin1String("<pre>")) && tip.contains(QLatin1String("err")),
                 qPrintable(tip));
    }

    void addTestSweepAndExplore()
    {
        const QString db = freshDatabase();
        const workflows::DeviceEndpoint device = simulatedTarget();
        SweepPanel panel;
        panel.resize(1100, 760);
        panel.show();
        panel.setDatabasePath(db);
        panel.setDevice(device);
        QTRY_VERIFY_WITH_TIMEOUT(panel.workloadsLoaded(), kWaitMs);

        // The Sweep view's Workloads… button opens the dialog on this device.
        child<QPushButton>(&panel, "workloadsButton")->click();
        auto *dialog = panel.findChild<WorkloadsDialog *>();
        QVERIFY(dialog);
        dialog->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(dialog));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isBusy() && !dialog->names().isEmpty(), kWaitMs);
        fillMarkerWorkload(*dialog, QStringLiteral("sim-marker"));
        child<QPushButton>(dialog, "saveButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->names().contains(QStringLiteral("sim-marker")), kWaitMs);
        QTRY_VERIFY(!dialog->isBusy());

        // Test on device: the simulator's train.py prints marker lines.
        WorkloadTestPane *test = dialog->testPane();
        QVERIFY(test->testButton()->isEnabled());
        test->setSeconds(120);  // it stops once 20 minibatches past the skipped ones are in
        QSignalSpy finished(test, &WorkloadTestPane::testFinished);
        QTest::keyClick(dialog, Qt::Key_T, Qt::ControlModifier);
        QVERIFY(test->isRunning());
        QVERIFY(child<QPushButton>(dialog, "cancelTestButton")->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kWaitMs);
        QVERIFY2(finished.at(0).at(0).toBool(),
                 qPrintable(test->summaryText() + QLatin1Char('\n') + test->outputText()));
        QVERIFY2(test->outputText().contains(QLatin1String("PTWB_MINIBATCH")),
                 qPrintable(test->outputText()));
        QVERIFY(test->highlightedLines() > 0);
        // The two skipped (warm-up) minibatches are shown as such, not highlighted as measured.
        QCOMPARE(test->outputText().count(QLatin1String("skipped")), 2);
        QVERIFY2(test->summaryText().contains(QLatin1String("median")),
                 qPrintable(test->summaryText()));
        QVERIFY(child<QPlainTextEdit>(dialog, "testOutput")->isReadOnly());
        dialog->close();

        // The chooser lists it; choosing it fixes the minibatches at skip + keep.
        QTRY_VERIFY_WITH_TIMEOUT(panel.workloadNames().contains(QStringLiteral("sim-marker")),
                                 kWaitMs);
        auto *combo = child<QComboBox>(&panel, "workloadCombo");
        QVERIFY(panel.workloadNames().indexOf(QStringLiteral("resnet18")) <
                panel.workloadNames().indexOf(QStringLiteral("sim-marker")));
        // Inference is the Inference box's: no built-in's inference name is a workload choice.
        QVERIFY2(!panel.workloadNames().contains(QStringLiteral("resnet18-inference")),
                 qPrintable(panel.workloadNames().join(QLatin1Char(','))));
        combo->setCurrentIndex(combo->findText(QStringLiteral("sim-marker")));
        auto *minibatches = child<QSpinBox>(&panel, "minibatchesSpin");
        QCOMPARE(minibatches->value(), 12);
        QVERIFY(!minibatches->isEnabled());
        QCOMPARE(child<QSpinBox>(&panel, "stopAfterSpin")->value(), 3);

        workflows::SweepRequest request = panel.request();
        QCOMPARE(request.workload, QStringLiteral("sim-marker"));
        QCOMPARE(request.stopAfterFailures, 3);
        request.modeSet = QStringLiteral("random:10");
        panel.setRequest(request);
        QSignalSpy swept(&panel, &SweepPanel::sweepFinished);
        panel.start();
        QTRY_VERIFY_WITH_TIMEOUT(swept.count() == 1, 4 * kWaitMs);
        const qint64 sweepId = swept.at(0).at(0).toLongLong();
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM sweep_modes WHERE sweep_id = "
                                         "%1 AND state = 'done'")
                              .arg(sweepId)),
                 10);
        QCOMPARE(panel.results()->rowCount(), 10);

        // Explore shows the 10 measured modes of the workload.
        ExplorePanel explore;
        explore.resize(1100, 760);
        explore.show();
        QSignalSpy loaded(&explore, &ExplorePanel::loaded);
        explore.setDeviceKind(QStringLiteral("orin-agx"));
        explore.setDatabasePath(db);
        explore.showWorkload(QStringLiteral("sim-marker"));
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const QList<QVariant> &args : loaded)
                    if (args.at(0).toString() == QLatin1String("sim-marker"))
                        return true;
                return false;
            }(),
            kWaitMs);
        QTRY_VERIFY(!explore.isLoading());
        QCOMPARE(explore.currentWorkload(), QStringLiteral("sim-marker"));
        QVERIFY(explore.space());
        QCOMPARE(explore.space()->observedCount(), 10);
    }
};

QTEST_MAIN(TestWorkloadsDialog)
#include "test_workloadsdialog.moc"
