// Explore's batch size mode on a real store: one training workload measured at two batch sizes
// with a samples-to-accuracy relation, one without. The card's pick is what core's
// BatchChoice::choose picks from workflows::loadBatchSpace (the workflow behind ptwb recommend
// --objective time-to-accuracy), the chart has one front per batch size, a cap under every peak
// says nothing fits, a simulated relation is labelled SIMULATED, the workload without a relation
// is listed disabled, and the choices are remembered.
#include "batchcard.h"
#include "batchchart.h"
#include "batchchoice.h"
#include "batchcontrols.h"
#include "batchexplorer.h"
#include "explorepanel.h"
#include "store/convergencestore.h"
#include "store/store.h"
#include "viewexport.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSettings>
#include <QSlider>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

const QString kWorkload = QStringLiteral("trainer");
const QString kUnrelated = QStringLiteral("norelation");
const QString kDevice = QStringLiteral("bench-orin");
const QString kKind = QStringLiteral("orin-agx");
const QVector<int> kBatches {16, 64};

// Twelve modes per batch: three core counts by four GPU clocks. A larger batch takes longer per
// minibatch but less per sample, and draws more; the peak is 15 % above the median. With the
// relation below, batch 64 is the faster to accuracy where it fits, but it does not fit under
// 20 W.
QVector<Measurement> rowsOf(int batch)
{
    QVector<Measurement> rows;
    for (int cores : {4, 8, 12}) {
        for (qint64 gpuHz : {306000000LL, 612000000LL, 918000000LL, 1300500000LL}) {
            Measurement m;
            m.mode = PowerMode {cores, 2201600, gpuHz, 3199000000LL};
            const double ghz = gpuHz / 1e9;
            m.timeMs = (40.0 + batch * 1.5) / ghz * (1 + 2.0 / cores);
            m.powerW =
                8 + 18 * ghz * (batch == 64 ? 1.2 : 1.0) + (batch == 64 ? 2 : 0) + cores * 0.4;
            m.peakPowerW = m.powerW * 1.15;
            m.trainingBatch = batch;
            m.source = QStringLiteral("import");
            rows.append(m);
        }
    }
    return rows;
}

bool storeWorkload(Store &store, const QString &workload)
{
    QVector<Measurement> rows;
    for (int batch : kBatches)
        rows += rowsOf(batch);
    return store
        .addImport(kDevice, kKind, workload, workload + QStringLiteral(".csv"), workload, rows)
        .ok();
}

ConvergenceRelation relationOf(const QString &provenance)
{
    ConvergenceRelation r;
    r.workload = kWorkload;
    r.points = {{16, 160000}, {64, 200000}};
    r.targetAccuracy = 0.7;
    r.provenance = provenance;
    r.source = QStringLiteral("test_batchexplorer");
    return r;
}

workflows::BatchSpace loadDirectly(const QString &path)
{
    auto store = Store::open(path);
    return workflows::loadBatchSpace(**store, kWorkload, QString(), false).value();
}

}  // namespace

class TestBatchExplorer : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_db;

    // A panel on the store, switched to the batch size mode, once the workload's space is shown.
    // The load runs on a worker: chooseWorkload returns before the space is there.
    void open(ExplorePanel &panel)
    {
        panel.resize(1400, 860);
        panel.setDatabasePath(m_db);
        panel.setMode(ExplorePanel::Mode::Batch);
        BatchExplorer *b = panel.batch();
        QTRY_VERIFY_WITH_TIMEOUT(!b->isLoading() && b->workloadCombo()->count() == 2, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!b->isLoading(), 20000);
        QVERIFY(b->chooseWorkload(kWorkload));
        QVERIFY(b->isLoading());  // the GUI thread was not blocked on SQLite
        QTRY_VERIFY_WITH_TIMEOUT(!b->isLoading() && b->space(), 20000);
        QCOMPARE(b->space()->workload, kWorkload);
    }

    void setRelation(const QString &provenance)
    {
        auto store = Store::open(m_db);
        QVERIFY(store);
        QVERIFY(ConvergenceStore(**store).replace(relationOf(provenance)).ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_root.isValid());
        m_db = m_root.filePath(QStringLiteral("batch.sqlite"));
        auto store = Store::open(m_db);
        QVERIFY(store);
        QVERIFY(storeWorkload(**store, kWorkload));
        QVERIFY(storeWorkload(**store, kUnrelated));
        QVERIFY(ConvergenceStore(**store).replace(relationOf(QStringLiteral("user"))).ok());
    }

    void pickIsWhatCoreChooses_data()
    {
        QTest::addColumn<double>("cap");
        QTest::addColumn<bool>("energy");
        for (double cap : {20.0, 28.0, 36.0, 45.0}) {
            QTest::addRow("time, %g W", cap) << cap << false;
            QTest::addRow("energy, %g W", cap) << cap << true;
        }
    }

    void pickIsWhatCoreChooses()
    {
        QFETCH(double, cap);
        QFETCH(bool, energy);
        ExplorePanel panel;
        open(panel);
        BatchExplorer *b = panel.batch();
        const AccuracyObjective objective =
            energy ? AccuracyObjective::Energy : AccuracyObjective::Time;
        b->controls()->setObjective(objective);
        b->controls()->setCap(cap);
        QCOMPARE(b->controls()->capW(), cap);

        const workflows::BatchSpace direct = loadDirectly(m_db);
        const std::optional<BatchPick> expected =
            BatchChoice::choose(direct.batches, direct.relation, cap, objective);
        QVERIFY(expected);
        QCOMPARE(b->card()->batch(), expected->batch);
        QCOMPARE(b->card()->mode().toCanonical(), expected->mode.toCanonical());
        const QString body = b->card()->bodyText();
        QVERIFY2(body.contains(expected->mode.toShort()), qPrintable(body));
        QVERIFY2(body.contains(expected->mode.toCanonical()), qPrintable(body));
        QVERIFY2(body.contains(BatchCard::durationText(expected->seconds)), qPrintable(body));
        QVERIFY2(body.contains(BatchCard::energyText(expected->joules)), qPrintable(body));
        QVERIFY2(b->card()->titleText().contains(QString::number(expected->batch)),
                 qPrintable(b->card()->titleText()));

        // One front per batch size, the pick marked where it is, the cap drawn.
        QCOMPARE(b->chart()->batches(), kBatches);
        QCOMPARE(b->chart()->frontSeriesCount(), 2);
        QCOMPARE(b->chart()->pickSeries()->count(), 1);
        QCOMPARE(b->chart()->pickSeries()->at(0).x(), expected->peakW);
        QVERIFY(b->chart()->capSeries()->isVisible());
        QCOMPARE(b->chart()->capSeries()->at(0).x(), cap);

        // The table: bestPerBatch's rows.
        const QVector<BatchPick> perBatch =
            BatchChoice::bestPerBatch(direct.batches, direct.relation, cap, objective);
        const QTableWidget *table = b->card()->perBatchTable();
        QCOMPARE(table->rowCount(), perBatch.size());
        for (int i = 0; i < perBatch.size(); ++i) {
            QCOMPARE(table->item(i, 0)->text(), QString::number(perBatch[i].batch));
            QCOMPARE(table->item(i, 1)->text(), perBatch[i].mode.toShort());
        }
    }

    // The synthetic workload has a crossover: under a low cap only batch 16 fits, under a high
    // one batch 64 is faster; the view follows core on both sides.
    void pickCrossesOverWithTheCap()
    {
        ExplorePanel panel;
        open(panel);
        BatchExplorer *b = panel.batch();
        b->controls()->setObjective(AccuracyObjective::Time);
        b->controls()->setCap(20);
        QCOMPARE(b->card()->batch(), 16);
        const QList<QAbstractSeries *> drawn = b->chart()->chart()->series();
        b->controls()->setCap(45);
        QCOMPARE(b->card()->batch(), 64);
        QCOMPARE(b->chart()->pickSeries()->count(), 1);
        // Moving the cap redraws the cap and the pick only; the objective redraws the fronts.
        QCOMPARE(b->chart()->chart()->series(), drawn);
        const auto firstOfBatch16 = [b] {
            for (QAbstractSeries *s : b->chart()->chart()->series()) {
                if (s->name() == QLatin1String("batch 16"))
                    return static_cast<QLineSeries *>(s)->at(0);
            }
            return QPointF();
        };
        const QPointF hours = firstOfBatch16();
        b->controls()->setObjective(AccuracyObjective::Energy);
        QCOMPARE(b->chart()->frontSeriesCount(), 2);
        const QPointF kilojoules = firstOfBatch16();
        QVERIFY(hours != kilojoules);
        QVERIFY(kilojoules.y() > 0);
    }

    void nothingFitsUnderTheLowestPeak()
    {
        ExplorePanel panel;
        open(panel);
        BatchExplorer *b = panel.batch();
        const workflows::BatchSpace direct = loadDirectly(m_db);
        double lowest = qInf();
        for (const BatchCandidates &c : direct.batches)
            for (int row = 0; row < c.modes.size(); ++row)
                lowest = std::min(lowest, c.peakAt(row));
        b->controls()->capSlider()->setValue(b->controls()->capSlider()->minimum());
        QVERIFY(b->controls()->capW() < lowest);
        QVERIFY(!BatchChoice::choose(direct.batches, direct.relation, b->controls()->capW(),
                                     b->controls()->objective()));
        QVERIFY2(b->card()->titleText().contains(QStringLiteral("Nothing fits")),
                 qPrintable(b->card()->titleText()));
        QCOMPARE(b->card()->batch(), 0);
        QCOMPARE(b->chart()->pickSeries()->count(), 0);
        QCOMPARE(b->chart()->frontSeriesCount(), 2);
    }

    void workloadWithoutRelationIsDisabled()
    {
        ExplorePanel panel;
        panel.setDatabasePath(m_db);
        panel.setMode(ExplorePanel::Mode::Batch);
        QComboBox *combo = panel.batch()->workloadCombo();
        QTRY_VERIFY_WITH_TIMEOUT(combo->count() == 2, 20000);
        const int i = combo->findData(kUnrelated);
        QVERIFY(i >= 0);
        const auto *model = qobject_cast<const QStandardItemModel *>(combo->model());
        QVERIFY(model);
        QVERIFY(!model->item(i)->isEnabled());
        const QString tip = combo->itemData(i, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("ptwb convergence --workload %1").arg(kUnrelated)),
                 qPrintable(tip));
        QVERIFY(model->item(combo->findData(kWorkload))->isEnabled());
        QVERIFY(!panel.batch()->chooseWorkload(kUnrelated));
        // The batch views (NAME@B) are not listed.
        for (int row = 0; row < combo->count(); ++row)
            QVERIFY(!combo->itemData(row).toString().contains(QLatin1Char('@')));
    }

    void simulatedRelationIsLabelled()
    {
        setRelation(QStringLiteral("simulated"));
        {
            ExplorePanel panel;
            open(panel);
            panel.batch()->controls()->setCap(40);
            const QString text = panel.batch()->card()->provenanceText();
            QVERIFY2(text.contains(QStringLiteral("SIMULATED")), qPrintable(text));
        }
        setRelation(QStringLiteral("user"));
        ExplorePanel panel;
        open(panel);
        panel.batch()->controls()->setCap(40);
        QVERIFY(!panel.batch()->card()->provenanceText().contains(QStringLiteral("SIMULATED")));
    }

    void choicesAreRemembered()
    {
        {
            ExplorePanel panel;
            panel.setMode(ExplorePanel::Mode::Training);
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            panel.activateWindow();
            panel.setFocus();
            QTest::keyClick(&panel, Qt::Key_M, Qt::ControlModifier);
            QTest::keyClick(&panel, Qt::Key_M, Qt::ControlModifier);
            QCOMPARE(panel.mode(), ExplorePanel::Mode::Batch);
        }
        {
            ExplorePanel panel;
            open(panel);
            panel.batch()->controls()->setObjective(AccuracyObjective::Energy);
            panel.batch()->controls()->setCap(33.3);
        }
        ExplorePanel panel;
        QCOMPARE(panel.mode(), ExplorePanel::Mode::Batch);
        panel.setDatabasePath(m_db);
        BatchExplorer *b = panel.batch();
        QTRY_VERIFY_WITH_TIMEOUT(!b->isLoading() && b->space(), 20000);
        QCOMPARE(b->workload(), kWorkload);
        QCOMPARE(b->controls()->objective(), AccuracyObjective::Energy);
        QCOMPARE(b->controls()->capW(), 33.3);
    }

    void exportsTheChart_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::newRow("png") << QStringLiteral("png");
        QTest::newRow("svg") << QStringLiteral("svg");
    }

    void exportsTheChart()
    {
        QFETCH(QString, suffix);
        ExplorePanel panel;
        open(panel);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QString path = m_root.filePath(QStringLiteral("batch.") + suffix);
        QString error;
        QVERIFY2(panel.exportChart(path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 1000);
        // File > Export table takes the table on screen: the best mode per batch size.
        QCOMPARE(ViewExport::visibleTable(&panel), panel.batch()->card()->perBatchTable());
    }

    // The hover text names the mode, batch, hours, kJ and peak power, as plain text.
    void hoverTextIsPlain()
    {
        const workflows::BatchSpace direct = loadDirectly(m_db);
        const BatchPick p = BatchChoice::pickOf(direct.batches.back(), 3, direct.relation);
        const QString text = BatchChart::hoverText(p);
        for (const QString &part :
             {p.mode.toShort(), p.mode.toCanonical(), QStringLiteral("batch 64"),
              QStringLiteral("%1 h").arg(p.seconds / 3600, 0, 'f', 2),
              QStringLiteral("%1 kJ").arg(p.joules / 1e3, 0, 'f', 1),
              QStringLiteral("peak %1 W").arg(p.peakW, 0, 'f', 1)})
            QVERIFY2(text.contains(part), qPrintable(text));
        QVERIFY(!text.contains(QLatin1Char('<')));
    }
};

QTEST_MAIN(TestBatchExplorer)
#include "test_batchexplorer.moc"
