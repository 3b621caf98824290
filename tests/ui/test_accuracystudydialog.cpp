#include "accuracychart.h"
#include "accuracystudydialog.h"
#include "modelspanel.h"
#include "predict/studyconfigs.h"
#include "predict/syntheticstore.h"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 120000;

// The study dialog of a Models view on `path`, its lists loaded.
AccuracyStudyDialog *openStudy(ModelsPanel &panel, const QString &path)
{
    panel.setDeviceKind(QStringLiteral("orin-agx"));
    panel.setDatabasePath(path);
    panel.openAccuracyStudy();
    AccuracyStudyDialog *study = panel.accuracyStudy();
    if (!study)
        return nullptr;
    QSignalSpy loaded(study, &AccuracyStudyDialog::listsLoaded);
    if (!loaded.wait(kTimeout))
        return nullptr;
    study->setConfigOverrides(studyConfigs());
    return study;
}

AccuracyBenchOptions options(QVector<int> samples, int repeats)
{
    AccuracyBenchOptions o;
    o.samples = std::move(samples);
    o.repeats = repeats;
    return o;
}

}  // namespace

class TestAccuracyStudyDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runsPlotsAndExports()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        ModelsPanel panel;
        AccuracyStudyDialog *study = openStudy(panel, path);
        QVERIFY(study);
        QVERIFY(study->isVisible());
        QVERIFY(study->setWorkloads(QStringLiteral("resnet"), QStringLiteral("mobilenet")));
        study->setOptions(options({10, 20}, 2));
        QSignalSpy finished(study, &AccuracyStudyDialog::finished);
        QSignalSpy failed(study, &AccuracyStudyDialog::failed);
        study->run();
        QVERIFY(study->isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(finished.first().first().toBool(), true);

        const QVector<AccuracyRow> &rows = study->rows();
        QCOMPARE(rows.size(), 8);  // 2 sample sizes x (PT, NN) x (default, published)
        QCOMPARE(study->table()->topLevelItemCount(), 8);
        QStringList methods = study->timeChart()->methods();
        methods.sort();
        QCOMPARE(methods, (QStringList {"nn", "nn-baseline", "pt", "pt-baseline"}));
        for (const QString &method : methods) {
            QVector<QPointF> time;
            QVector<QPointF> power;
            for (const AccuracyRow &row : rows) {
                if (row.method == method) {
                    time.append({double(row.samples), row.timeMape.median});
                    power.append({double(row.samples), row.powerMape.median});
                }
            }
            QCOMPARE(time.size(), 2);
            QCOMPARE(study->timeChart()->medians(method), time);
            QCOMPARE(study->powerChart()->medians(method), power);
        }

        // For looking at the dialog by eye (docs screenshots): PTWB_STUDY_RENDER=FILE.png.
        if (const QString render = qEnvironmentVariable("PTWB_STUDY_RENDER"); !render.isEmpty())
            QVERIFY(study->grab().save(render));

        const QString csvPath = dir.filePath(QStringLiteral("accuracy.csv"));
        QSignalSpy exported(study, &AccuracyStudyDialog::exported);
        study->exportCsv(csvPath);
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, kTimeout);
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 9);
        QCOMPARE(lines[0],
                 QByteArray("method,config,samples,repeats,time_mape_median,time_mape_q1,"
                            "time_mape_q3,power_mape_median,power_mape_q1,power_mape_q3,seconds"));
        for (int i = 0; i < rows.size(); ++i) {
            const QList<QByteArray> cells = lines[i + 1].split(',');
            QCOMPARE(cells.size(), 11);
            QCOMPARE(QString::fromUtf8(cells[0]), rows[i].method);
            QCOMPARE(cells[2].toInt(), rows[i].samples);
            QCOMPARE(cells[4].toDouble(), rows[i].timeMape.median);
            QCOMPARE(cells[7].toDouble(), rows[i].powerMape.median);
        }

        for (const QString &name :
             {QStringLiteral("accuracy.png"), QStringLiteral("accuracy.svg")}) {
            QString error;
            QVERIFY2(study->exportCharts(dir.filePath(name), &error), qPrintable(error));
            QFile image(dir.filePath(name));
            QVERIFY(image.open(QIODevice::ReadOnly));
            const QByteArray head = image.read(512);
            QVERIFY(name.endsWith(QLatin1String("png")) ? head.startsWith("\x89PNG")
                                                        : head.contains("<svg"));
        }
    }

    void escCancelsWithoutAHalfRow()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        ModelsPanel panel;
        AccuracyStudyDialog *study = openStudy(panel, path);
        QVERIFY(study);
        QVERIFY(study->setWorkloads(QStringLiteral("resnet"), QStringLiteral("mobilenet")));
        study->setOptions(options({10, 20, 30, 40}, 3));
        QSignalSpy rowAdded(study, &AccuracyStudyDialog::rowAdded);
        QSignalSpy finished(study, &AccuracyStudyDialog::finished);
        study->run();
        QTRY_VERIFY_WITH_TIMEOUT(rowAdded.count() >= 1, kTimeout);
        QTest::keyClick(study, Qt::Key_Escape);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(study->isVisible());  // Esc cancelled the study, it did not close the dialog
        QVERIFY(!study->isRunning());
        const QVector<AccuracyRow> &rows = study->rows();
        QVERIFY2(rows.size() < 16, qPrintable(QString::number(rows.size())));
        QCOMPARE(study->table()->topLevelItemCount(), rows.size());
        int points = 0;
        for (const QString &method : study->timeChart()->methods())
            points += study->timeChart()->medians(method).size();
        QCOMPARE(points, rows.size());
        for (const AccuracyRow &row : rows)
            QCOMPARE(row.repeats, 3);
        bool saysCancelled = false;
        for (const QLabel *label : study->findChildren<QLabel *>())
            saysCancelled = saysCancelled || label->text().startsWith(QStringLiteral("Cancelled"));
        QVERIFY(saysCancelled);

        // Esc again, idle: now it closes.
        QTest::keyClick(study, Qt::Key_Escape);
        QVERIFY(!study->isVisible());
    }

    void badSamplesNameTheField()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        ModelsPanel panel;
        AccuracyStudyDialog *study = openStudy(panel, path);
        QVERIFY(study);
        QVERIFY(study->setWorkloads(QStringLiteral("resnet"), QStringLiteral("mobilenet")));
        QSignalSpy failed(study, &AccuracyStudyDialog::failed);
        study->findChild<QLineEdit *>(QStringLiteral("studySamples"))->setText("10, x");
        study->run();
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.first().first().toString().startsWith(
                     QStringLiteral("Profiled modes: 'x' is not a whole number")),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(!study->isRunning());

        study->setOptions(options({10, 60}, 1));  // 60 leaves nothing of the target to validate
        study->run();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, kTimeout);
        QVERIFY2(failed.last().first().toString().startsWith(QStringLiteral("Profiled modes: 60")),
                 qPrintable(failed.last().first().toString()));
        QVERIFY(study->rows().isEmpty());
    }
};

QTEST_MAIN(TestAccuracyStudyDialog)
#include "test_accuracystudydialog.moc"
