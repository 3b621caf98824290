#include "modes/modespace.h"
#include "shareddata.h"
#include "store/measurementcsv.h"

#include <QFile>
#include <QTest>

#include <algorithm>

using namespace ptwb;

namespace {

const QByteArray kHeader = "cores,cpu,gpu,mem,observed_time,observed_power\n";
const QByteArray kRow1 = "2,268800,1300500000,204000000,1105.0670776367188,17.7045\n";
const QByteArray kRow2 = "12,2201600,1300500000,3199000000,120.5,45.25\n";

ModeSpace orin()
{
    return ModeSpace(DeviceSpec::builtin(QStringLiteral("orin-agx")).value());
}

}  // namespace

class TestMeasurementCsv : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void accepts_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<int>("rows");
        QTest::newRow("plain") << kHeader + kRow1 + kRow2 << 2;
        QTest::newRow("crlf") << QByteArray(kHeader + kRow1 + kRow2).replace("\n", "\r\n") << 2;
        QTest::newRow("trailing blank lines") << kHeader + kRow1 + kRow2 + "\n\n\r\n  \n" << 2;
        QTest::newRow("bom") << "\xEF\xBB\xBF" + kHeader + kRow1 << 1;
        QTest::newRow("no final newline") << kHeader + kRow1 + kRow2.chopped(1) << 2;
        QTest::newRow("columns reordered")
            << QByteArray("observed_power,observed_time,mem,gpu,cpu,cores\n"
                          "17.7045,1105.0670776367188,204000000,1300500000,268800,2\n")
            << 1;
        QTest::newRow("quoted and spaced")
            << QByteArray("\"cores\", cpu ,gpu,mem,observed_time,observed_power\n"
                          "\"2\", 268800 ,1300500000,204000000,1105.0670776367188,17.7045\n")
            << 1;
        QTest::newRow("integral floats") << kHeader + "2,268800.0,1300500000,204000000,5,6\n" << 1;
    }

    void accepts()
    {
        QFETCH(QByteArray, data);
        QFETCH(int, rows);
        const Expected<MeasurementCsv::Parsed> parsed =
            MeasurementCsv::parse(data, QStringLiteral("m.csv"), orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), rows);
        const Measurement &first = parsed->rows.first();
        QCOMPARE(first.mode.cores, 2);
        QCOMPARE(first.mode.cpuKHz, qint64(268800));
        QCOMPARE(first.mode.gpuHz, qint64(1300500000));
        QCOMPARE(first.mode.emcHz, qint64(204000000));
    }

    void rejects_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("error");
        const QString expected =
            QStringLiteral("expected rows of cores,cpu,gpu,mem,observed_time,observed_power");
        QTest::newRow("empty file") << QByteArray()
                                    << "m.csv:1: the file is empty; expected the header line "
                                       "'cores,cpu,gpu,mem,observed_time,observed_power'";
        QTest::newRow("blank lines only") << QByteArray("\n\r\n\n")
                                          << "m.csv:1: the file is empty; expected the header "
                                             "line 'cores,cpu,gpu,mem,observed_time,"
                                             "observed_power'";
        QTest::newRow("header only")
            << kHeader << "m.csv:2: no measurements after the header; " + expected;
        QTest::newRow("missing column")
            << QByteArray("cores,cpu,gpu,mem,observed_time\n2,268800,1300500000,204000000,5\n")
            << "m.csv:1: column 'observed_power': missing from the header; expected "
               "cores,cpu,gpu,mem,observed_time,observed_power";
        QTest::newRow("extra column")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,fan\n")
            << "m.csv:1: column 'fan': not a column of the PowerTrain layout; expected "
               "cores,cpu,gpu,mem,observed_time,observed_power (training) or "
               "cores,cpu,gpu,mem,observed_time,bs,observed_power (inference), optionally with "
               "batch_size (training) and peak_power";
        QTest::newRow("duplicate column")
            << QByteArray("cores,cpu,gpu,gpu,observed_time,observed_power\n")
            << "m.csv:1: column 'gpu': appears twice in the header";
        QTest::newRow("extra field in a row")
            << kHeader + kRow1 + "2,268800,1300500000,204000000,5,6,7\n" + kRow2
            << "m.csv:3: 7 fields, expected 6 (cores,cpu,gpu,mem,observed_time,observed_power)";
        QTest::newRow("short row in the middle")
            << kHeader + "2,268800,1300500000\n" + kRow2
            << "m.csv:2: 3 fields, expected 6 (cores,cpu,gpu,mem,observed_time,observed_power)";
        QTest::newRow("non-numeric gpu") << kHeader + kRow1 + "2,268800,13e,204000000,5,6\n"
                                         << "m.csv:3: column 'gpu': '13e' is not a frequency in Hz";
        QTest::newRow("non-numeric cpu")
            << kHeader + "2,fast,1300500000,204000000,5,6\n"
            << "m.csv:2: column 'cpu': 'fast' is not a frequency in kHz";
        QTest::newRow("non-numeric cores")
            << kHeader + "two,268800,1300500000,204000000,5,6\n"
            << "m.csv:2: column 'cores': 'two' is not a whole number of cores";
        QTest::newRow("non-numeric time")
            << kHeader + "2,268800,1300500000,204000000,slow,6\n"
            << "m.csv:2: column 'observed_time': 'slow' is not a number; expected a time in "
               "milliseconds";
        QTest::newRow("nan power")
            << kHeader + "2,268800,1300500000,204000000,5,nan\n"
            << "m.csv:2: column 'observed_power': 'nan' is not a number; expected a power in "
               "watts";
        QTest::newRow("negative time")
            << kHeader + "2,268800,1300500000,204000000,-3.5,6\n"
            << "m.csv:2: column 'observed_time': '-3.5' must be a positive time in milliseconds";
        QTest::newRow("zero time")
            << kHeader + "2,268800,1300500000,204000000,0,6\n"
            << "m.csv:2: column 'observed_time': '0' must be a positive time in milliseconds";
        QTest::newRow("zero power")
            << kHeader + "2,268800,1300500000,204000000,5,0\n"
            << "m.csv:2: column 'observed_power': '0' must be a positive power in watts";
        QTest::newRow("negative power")
            << kHeader + "2,268800,1300500000,204000000,5,-1\n"
            << "m.csv:2: column 'observed_power': '-1' must be a positive power in watts";
        // Finite, positive and absurd (issue 21, finding 8): one such row stretched Explore's
        // axis to 1e300. Refused with the value and the device's plausible range.
        QTest::newRow("time 1e300")
            << kHeader + kRow1 + "2,268800,1300500000,204000000,1e300,6\n"
            << "m.csv:3: column 'observed_time': 1e+300 ms, expected 0.001 to 3.6e+06 ms on "
               "orin-agx";
        QTest::newRow("power 1e300")
            << kHeader + "2,268800,1300500000,204000000,5,1e300\n"
            << "m.csv:2: column 'observed_power': 1e+300 W, expected 0.1 to 150 W on orin-agx";
        QTest::newRow("power above the module's")
            << kHeader + "2,268800,1300500000,204000000,5,900\n"
            << "m.csv:2: column 'observed_power': 900 W, expected 0.1 to 150 W on orin-agx";
        QTest::newRow("time below a microsecond")
            << kHeader + "2,268800,1300500000,204000000,1e-9,6\n"
            << "m.csv:2: column 'observed_time': 1e-09 ms, expected 0.001 to 3.6e+06 ms on "
               "orin-agx";
        QTest::newRow("inf time")
            << kHeader + "2,268800,1300500000,204000000,inf,6\n"
            << "m.csv:2: column 'observed_time': 'inf' is not a number; expected a time in "
               "milliseconds";
        QTest::newRow("frequency not on device")
            << kHeader + kRow1 + kRow2 + "12,2201600,1300000000,3199000000,5,6\n"
            << "m.csv:4: column 'gpu': 1300000000 Hz is not a GPU frequency of orin-agx; "
               "nearest allowed: 1236750000, 1300500000";
        QTest::newRow("memory not on device")
            << kHeader + "12,2201600,1300500000,1600000000,5,6\n"
            << "m.csv:2: column 'mem': 1600000000 Hz is not a memory frequency of orin-agx; "
               "nearest allowed: 665600000, 2133000000";
        QTest::newRow("cores out of range")
            << kHeader + "13,2201600,1300500000,3199000000,5,6\n"
            << "m.csv:2: column 'cores': 13 is out of range; orin-agx has 1..12 cores";
        QTest::newRow("zero cores")
            << kHeader + "0,2201600,1300500000,3199000000,5,6\n"
            << "m.csv:2: column 'cores': 0 is out of range; orin-agx has 1..12 cores";
        QTest::newRow("truncated last line")
            << kHeader + kRow1 + "12,2201600,13"
            << "m.csv:3: the last line is cut short (3 of 6 fields, no final newline); the file "
               "looks truncated";
        QTest::newRow("truncated last line crlf file")
            << QByteArray(kHeader + kRow1).replace("\n", "\r\n") + "12,2201600,1300500000,31"
            << "m.csv:3: the last line is cut short (4 of 6 fields, no final newline); the file "
               "looks truncated";
    }

    void rejects()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, error);
        const Expected<MeasurementCsv::Parsed> parsed =
            MeasurementCsv::parse(data, QStringLiteral("m.csv"), orin());
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error(), error);
        QCOMPARE(parsed.errorKind(), ErrorKind::BadInput);
    }

    void repeatedModesAreKept()
    {
        const QByteArray data =
            kHeader + kRow1 + kRow2 + "2,268800,1300500000,204000000,1100.5,17.9\n" + kRow1;
        const Expected<MeasurementCsv::Parsed> parsed =
            MeasurementCsv::parse(data, QStringLiteral("m.csv"), orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), 4);
        QCOMPARE(parsed->distinctModes, qint64(2));
        QCOMPARE(parsed->repeatedModes, qint64(1));
        QCOMPARE(parsed->rows[2].timeMs, 1100.5);
    }

    void writeParsesBackExactly()
    {
        // Values that print badly with a fixed precision must still come back bit for bit (the
        // smallest and largest within the plausible minibatch times, docs/data-format.md).
        QVector<Measurement> rows;
        const double times[] = {0.1 + 0.2, 0.0012345678912345678, 3599999.123456789,
                                1105.0670776367188, 20.0};
        const ModeSpace space = orin();
        for (int i = 0; i < 5; ++i) {
            Measurement m;
            m.mode = space.mode(i * 997);
            m.timeMs = times[i];
            m.powerW = 1.0 / (i + 3);
            rows.append(m);
        }
        const QByteArray csv = MeasurementCsv::write(rows);
        const Expected<MeasurementCsv::Parsed> parsed =
            MeasurementCsv::parse(csv, QStringLiteral("w.csv"), space);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), rows.size());
        for (int i = 0; i < rows.size(); ++i) {
            QCOMPARE(parsed->rows[i].mode, rows[i].mode);
            QVERIFY(parsed->rows[i].timeMs == rows[i].timeMs);
            QVERIFY(parsed->rows[i].powerW == rows[i].powerW);
        }
    }

    void inferenceBatchSizes_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QVector<int>>("batches");
        const QByteArray header = "cores,cpu,gpu,mem,observed_time,bs,observed_power\n";
        QTest::newRow("whole") << header + "2,268800,1300500000,204000000,77.5,64,13.0\n"
                               << QVector<int> {64};
        QTest::newRow("as the public files write it") << header +
                "2,268800,1300500000,204000000,77.5,64.0,13.0\n"
                "2,268800,1300500000,204000000,7.5,1.0,12.5\n"
                                                      << QVector<int> {64, 1};
        QTest::newRow("bs first, quoted") << QByteArray("\"bs\",cores,cpu,gpu,mem,observed_time,"
                                                        "observed_power\n"
                                                        "\"4096\",2,268800,1300500000,204000000,"
                                                        "77.5,13.0\n")
                                          << QVector<int> {4096};
    }

    void inferenceBatchSizes()
    {
        QFETCH(QByteArray, data);
        QFETCH(QVector<int>, batches);
        const Expected<MeasurementCsv::Parsed> parsed =
            MeasurementCsv::parse(data, QStringLiteral("i.csv"), orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), batches.size());
        for (int i = 0; i < batches.size(); ++i)
            QCOMPARE(parsed->rows[i].inferenceBatch, batches[i]);
        QCOMPARE(parsed->rows[0].timeMs, 77.5);
        QCOMPARE(parsed->rows[0].powerW, 13.0);
        QVector<int> sorted = batches;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(parsed->inferenceBatches, sorted);
    }

    void trainingRowsHaveNoBatch()
    {
        const auto parsed = MeasurementCsv::parse(kHeader + kRow1, QStringLiteral("m.csv"), orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows[0].inferenceBatch, 0);
        QVERIFY(parsed->inferenceBatches.isEmpty());
        // the public files' training batch, without a batch_size column
        QCOMPARE(parsed->rows[0].trainingBatch, MeasurementCsv::kPublicTrainingBatch);
        QVERIFY(!parsed->rows[0].peakPowerW);
    }

    // The optional columns: the training batch makes the same mode at two batches two
    // measurements, not a repeat; the peak is the largest sample, never below the median.
    void trainingBatchAndPeakColumns()
    {
        const QByteArray data = "cores,cpu,gpu,mem,observed_time,observed_power,batch_size,"
                                "peak_power\n"
                                "2,268800,1300500000,204000000,600,17.5,8,19.25\n"
                                "2,268800,1300500000,204000000,1100,17.75,16,21\n"
                                "2,268800,1300500000,204000000,1120,17.5,16,20.5\n";
        const auto parsed = MeasurementCsv::parse(data, QStringLiteral("b.csv"), orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), 3);
        QCOMPARE(parsed->rows[0].trainingBatch, 8);
        QCOMPARE(parsed->rows[1].trainingBatch, 16);
        QCOMPARE(parsed->rows[0].peakPowerW, std::optional<double>(19.25));
        QCOMPARE(parsed->repeatedModes, qint64(1));  // (mode, 16) twice; (mode, 8) once
        QCOMPARE(parsed->distinctModes, qint64(1));

        const QByteArray written = MeasurementCsv::write(parsed->rows);
        QVERIFY2(written.startsWith("cores,cpu,gpu,mem,observed_time,observed_power,batch_size,"
                                    "peak_power\n"),
                 written.constData());
        const auto again = MeasurementCsv::parse(written, QStringLiteral("w.csv"), orin());
        QVERIFY2(again.ok(), qPrintable(again.error()));
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(again->rows[i].trainingBatch, parsed->rows[i].trainingBatch);
            QCOMPARE(again->rows[i].peakPowerW, parsed->rows[i].peakPowerW);
        }
    }

    void rejectsBadOptionalColumns_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("error");
        QTest::newRow("batch 0")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,batch_size\n"
                          "2,268800,1300500000,204000000,600,17.5,0\n")
            << "b.csv:2: column 'batch_size': '0' is out of range; expected a training "
               "minibatch size (1 to 4096)";
        QTest::newRow("batch text")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,batch_size\n"
                          "2,268800,1300500000,204000000,600,17.5,big\n")
            << "b.csv:2: column 'batch_size': 'big' is not a whole number; expected a training "
               "minibatch size (1 to 4096)";
        QTest::newRow("peak below median")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,peak_power\n"
                          "2,268800,1300500000,204000000,600,17.5,12\n")
            << "b.csv:2: column 'peak_power': 12 W is below the row's median power 17.5 W; "
               "expected the largest power sample";
        QTest::newRow("peak not a number")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,peak_power\n"
                          "2,268800,1300500000,204000000,600,17.5,hot\n")
            << "b.csv:2: column 'peak_power': 'hot' is not a number; expected a peak power in "
               "watts";
        QTest::newRow("peak 1e300")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,peak_power\n"
                          "2,268800,1300500000,204000000,600,17.5,1e300\n")
            << "b.csv:2: column 'peak_power': 1e+300 W, expected 0.1 to 150 W on orin-agx";
        QTest::newRow("both batches")
            << QByteArray("cores,cpu,gpu,mem,observed_time,bs,observed_power,batch_size\n"
                          "2,268800,1300500000,204000000,600,4,17.5,16\n")
            << "b.csv:1: column 'batch_size': a training minibatch size in an inference file "
               "(it has 'bs'); a file is one or the other";
        QTest::newRow("short row")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,batch_size\n"
                          "2,268800,1300500000,204000000,600,17.5\n"
                          "2,268800,1300500000,204000000,600,17.5,16\n")
            << "b.csv:2: 6 fields, expected 7 (cores,cpu,gpu,mem,observed_time,observed_power,"
               "batch_size)";
    }

    void rejectsBadOptionalColumns()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, error);
        const auto parsed = MeasurementCsv::parse(data, QStringLiteral("b.csv"), orin());
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error(), error);
        QCOMPARE(parsed.errorKind(), ErrorKind::BadInput);
    }

    void rejectsBadBatchSizes_data()
    {
        QTest::addColumn<QByteArray>("bs");
        QTest::addColumn<QString>("error");
        const QString range =
            QStringLiteral("expected an inference minibatch size in requests (1 to 4096)");
        // (the wording is shared with batch_size, see trainingBatchAndPeakColumns)
        QTest::newRow("zero") << QByteArray("0") << "'0' is out of range; " + range;
        QTest::newRow("negative") << QByteArray("-1") << "'-1' is out of range; " + range;
        QTest::newRow("fraction") << QByteArray("1.5") << "'1.5' is not a whole number; " + range;
        QTest::newRow("text") << QByteArray("abc") << "'abc' is not a whole number; " + range;
        QTest::newRow("empty") << QByteArray("") << "empty; " + range;
        QTest::newRow("too large") << QByteArray("4097") << "'4097' is out of range; " + range;
        QTest::newRow("too large float")
            << QByteArray("8192.0") << "'8192.0' is out of range; " + range;
    }

    void rejectsBadBatchSizes()
    {
        QFETCH(QByteArray, bs);
        QFETCH(QString, error);
        const QByteArray data = "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                                "2,268800,1300500000,204000000,77.5,16,13.0\n"
                                "2,268800,1300500000,204000000,77.5," +
            bs + ",13.0\n";
        const Expected<MeasurementCsv::Parsed> parsed =
            MeasurementCsv::parse(data, QStringLiteral("i.csv"), orin());
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error(), QStringLiteral("i.csv:3: column 'bs': ") + error);
        QCOMPARE(parsed.errorKind(), ErrorKind::BadInput);
    }

    // A bs column makes every row an inference row: a training-shaped row is a short row.
    void inferenceRowsNeedEveryField()
    {
        const QByteArray data = "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                                "2,268800,1300500000,204000000,77.5,16,13.0\n" +
            kRow2;
        const auto parsed = MeasurementCsv::parse(data, QStringLiteral("i.csv"), orin());
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error(),
                 QStringLiteral("i.csv:3: 6 fields, expected 7 "
                                "(cores,cpu,gpu,mem,observed_time,bs,observed_power)"));
    }

    // A repeat is the same mode at the same batch size; other batch sizes are other measurements.
    void repeatsAreCountedPerModeAndBatch()
    {
        const QByteArray data = "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                                "2,268800,1300500000,204000000,7.5,1,13.0\n"
                                "2,268800,1300500000,204000000,70.5,16,14.0\n"
                                "2,268800,1300500000,204000000,200.5,64,15.0\n"
                                "12,2201600,1300500000,3199000000,20.5,64,40.0\n"
                                "2,268800,1300500000,204000000,71.5,16,14.5\n";
        const auto parsed = MeasurementCsv::parse(data, QStringLiteral("i.csv"), orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), 5);
        QCOMPARE(parsed->distinctModes, qint64(2));
        QCOMPARE(parsed->repeatedModes, qint64(1));
        QCOMPARE(parsed->inferenceBatches, (QVector<int> {1, 16, 64}));
    }

    void inferenceWriteParsesBack()
    {
        QVector<Measurement> rows;
        const ModeSpace space = orin();
        const int batches[] = {1, 4, 16, 32, 64};
        for (int i = 0; i < 5; ++i) {
            Measurement m;
            m.mode = space.mode(i * 997);
            m.timeMs = 0.1 + 0.2 + i;
            m.powerW = 1.0 / (i + 3);
            m.inferenceBatch = batches[i];
            rows.append(m);
        }
        const QByteArray csv = MeasurementCsv::write(rows);
        QVERIFY2(csv.startsWith("cores,cpu,gpu,mem,observed_time,bs,observed_power\n"),
                 csv.constData());
        const auto parsed = MeasurementCsv::parse(csv, QStringLiteral("w.csv"), space);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), rows.size());
        for (int i = 0; i < rows.size(); ++i) {
            QCOMPARE(parsed->rows[i].mode, rows[i].mode);
            QCOMPARE(parsed->rows[i].inferenceBatch, rows[i].inferenceBatch);
            QVERIFY(parsed->rows[i].timeMs == rows[i].timeMs);
            QVERIFY(parsed->rows[i].powerW == rows[i].powerW);
        }
        // Training rows keep the training layout.
        for (Measurement &m : rows)
            m.inferenceBatch = 0;
        QVERIFY(MeasurementCsv::write(rows).startsWith(
            "cores,cpu,gpu,mem,observed_time,observed_power\n"));
    }

    void sharedInferenceFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("resnet18") << "resnet18_infer.csv";
        QTest::newRow("mobilenetv3") << "mobilenetv3_infer.csv";
    }

    void sharedInferenceFiles()
    {
        QFETCH(QString, file);
        const QString path = sharedDataFile(file);
        PTWB_REQUIRE_SHARED_DATA(path);
        QFile in(path);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray data = in.readAll();
        const auto parsed = MeasurementCsv::parse(data, file, orin());
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), 2205);
        QCOMPARE(parsed->distinctModes, qint64(441));
        QCOMPARE(parsed->repeatedModes, qint64(0));
        QCOMPARE(parsed->inferenceBatches, (QVector<int> {1, 4, 16, 32, 64}));
        // Written back ("64" where the file has "64.0") it reads back to the same values.
        const auto again = MeasurementCsv::parse(MeasurementCsv::write(parsed->rows), file, orin());
        QVERIFY2(again.ok(), qPrintable(again.error()));
        QCOMPARE(again->rows.size(), parsed->rows.size());
        for (int i = 0; i < parsed->rows.size(); ++i) {
            QCOMPARE(again->rows[i].mode, parsed->rows[i].mode);
            QCOMPARE(again->rows[i].inferenceBatch, parsed->rows[i].inferenceBatch);
            QVERIFY(again->rows[i].timeMs == parsed->rows[i].timeMs);
            QVERIFY(again->rows[i].powerW == parsed->rows[i].powerW);
        }
    }

    void sharedFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("resnet18") << "resnet18_imagenet_train.csv";
        QTest::newRow("mobilenetv3") << "mobilenetv3_gld23k_train.csv";
    }

    void sharedFiles()
    {
        QFETCH(QString, file);
        const QString path = sharedDataFile(file);
        PTWB_REQUIRE_SHARED_DATA(path);
        QFile in(path);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray data = in.readAll();
        const Expected<ModeSpace> grid =
            ModeSpace::subGrid(DeviceSpec::builtin(QStringLiteral("orin-agx")).value(),
                               QStringLiteral("cores=even;cpu=every:2:2"));
        // Every measured mode lies on the PowerTrain grid, and the grid is covered once.
        const Expected<MeasurementCsv::Parsed> parsed = MeasurementCsv::parse(data, file, *grid);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->rows.size(), 4368);
        QCOMPARE(parsed->distinctModes, qint64(4368));
        // The writer reproduces the published file byte for byte.
        QCOMPARE(MeasurementCsv::write(parsed->rows), data);
    }
};

QTEST_GUILESS_MAIN(TestMeasurementCsv)
#include "test_measurementcsv.moc"
