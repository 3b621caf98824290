// "Measure by proxy run…" (issue 17): Explore's batch mode opens the dialog for its workload;
// the dialog runs the simulated Jetson's proxy_train.py with each batch size (through
// workflows::startProxyConvergence), shows each outcome, stores the relation with provenance
// proxy, remembers its fields, refuses a bad field naming it, and Cancel stores nothing.
#include "batchexplorer.h"
#include "proxyrundialog.h"
#include "store/convergencestore.h"
#include "store/store.h"

#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

class TestProxyRunDialog : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString freshDb() { return m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs)); }

    workflows::DeviceEndpoint simulated()
    {
        workflows::ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(m_runs));
        options.simulatorSpeed = 5000;
        return workflows::endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    void fill(ProxyRunDialog &dialog, const QString &command, const QString &sizes)
    {
        dialog.commandEdit()->setText(command);
        dialog.batchSizesEdit()->setText(sizes);
        dialog.targetAccuracyBox()->setValue(0.6);
        dialog.baseLearningRateBox()->setValue(0.1);
        dialog.baseBatchBox()->setValue(256);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // QSettings of its own
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    void explorerOpensTheDialogForItsWorkload()
    {
        BatchExplorer explorer;
        explorer.setDatabasePath(freshDb());
        QVERIFY(!explorer.proxyRunButton()->toolTip().isEmpty());
        QVERIFY(explorer.proxyRunButton()->isEnabled());
        ProxyRunDialog *dialog = explorer.openProxyRun();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        QVERIFY(!dialog->commandEdit()->toolTip().isEmpty());
        dialog->close();
    }

    void storesAProxyRelationAndRemembersTheFields()
    {
        const QString db = freshDb();
        ProxyRunDialog dialog(db, QStringLiteral("resnet18"));
        dialog.setDevice(simulated());
        fill(dialog, QStringLiteral("python3 proxy_train.py --model resnet18"),
             QStringLiteral("16,64"));
        QSignalSpy stored(&dialog, &ProxyRunDialog::stored);
        QSignalSpy finished(&dialog, &ProxyRunDialog::runFinished);
        QTest::mouseClick(dialog.startButton(), Qt::LeftButton);
        QVERIFY(dialog.isRunning());
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(stored.size(), 1);
        QCOMPARE(stored.first().first().toString(), QStringLiteral("resnet18"));
        QVERIFY2(dialog.statusText().contains(QStringLiteral("provenance proxy")),
                 qPrintable(dialog.statusText()));
        QVERIFY2(
            dialog.resultText().contains(QStringLiteral("batch 16 (lr 0.00625): reached at")) &&
                dialog.resultText().contains(QStringLiteral("batch 64 (lr 0.025): reached")),
            qPrintable(dialog.resultText()));
        auto store = Store::open(db);
        QVERIFY(store);
        const auto relation = ConvergenceStore(**store).load(QStringLiteral("resnet18"));
        QVERIFY(relation && relation->has_value());
        QCOMPARE((*relation)->provenance, QStringLiteral("proxy"));
        QCOMPARE((*relation)->points.size(), 2);

        ProxyRunDialog again(db, QStringLiteral("resnet18"));
        QCOMPARE(again.commandEdit()->text(),
                 QStringLiteral("python3 proxy_train.py --model resnet18"));
        QCOMPARE(again.batchSizesEdit()->text(), QStringLiteral("16,64"));
        QCOMPARE(again.baseBatchBox()->value(), 256);
    }

    void shortOfTheTargetStoresNothing()
    {
        const QString db = freshDb();
        ProxyRunDialog dialog(db, QStringLiteral("resnet18"));
        dialog.setDevice(simulated());
        fill(dialog, QStringLiteral("python3 proxy_train.py --model resnet18 --max-epochs 2"),
             QStringLiteral("16,1024"));
        QSignalSpy finished(&dialog, &ProxyRunDialog::runFinished);
        dialog.start();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY2(dialog.statusText().contains(QStringLiteral("nothing was stored")),
                 qPrintable(dialog.statusText()));
        QVERIFY2(dialog.resultText().contains(QStringLiteral("did not reach the target")) &&
                     dialog.resultText().contains(QStringLiteral("out of memory")),
                 qPrintable(dialog.resultText()));
        auto store = Store::open(db);
        QVERIFY(store);
        const auto relation = ConvergenceStore(**store).load(QStringLiteral("resnet18"));
        QVERIFY(relation && !relation->has_value());
    }

    void badFieldIsNamedAndCancelStoresNothing()
    {
        const QString db = freshDb();
        ProxyRunDialog dialog(db, QStringLiteral("resnet18"));
        dialog.setDevice(simulated());
        fill(dialog, QStringLiteral("python3 proxy_train.py"), QStringLiteral("16"));
        dialog.start();
        QVERIFY(!dialog.isRunning());
        QVERIFY2(dialog.statusText().startsWith(QStringLiteral("Batch sizes: ")),
                 qPrintable(dialog.statusText()));

        // the whole dataset as the proxy: many seconds per batch size even at this speed
        fill(dialog, QStringLiteral("python3 proxy_train.py --model resnet18 --proxy-fraction 1"),
             QStringLiteral("16,64,256"));
        QSignalSpy finished(&dialog, &ProxyRunDialog::runFinished);
        dialog.start();
        QVERIFY(dialog.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("samples")), 60000);
        dialog.cancelRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.first().first().toBool(), false);
        QCOMPARE(dialog.statusText(), QStringLiteral("Cancelled: nothing was stored."));
        auto store = Store::open(db);
        QVERIFY(store);
        const auto relation = ConvergenceStore(**store).load(QStringLiteral("resnet18"));
        QVERIFY(relation && !relation->has_value());
        QVERIFY(dialog.startButton()->isEnabled());
    }
};

QTEST_MAIN(TestProxyRunDialog)
#include "test_proxyrundialog.moc"
