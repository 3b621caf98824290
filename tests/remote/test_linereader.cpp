// LineReader (remote/client/linereader.h): the bounded line splitter both transports share, and
// the terminal-safe text of core/util/printable.h that the CLI prints device text through.
#include "linereader.h"
#include "util/printable.h"
#include "warninglimiter.h"

#include <QTest>

using namespace ptwb;

class TestLineReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void splitsLinesAcrossChunks()
    {
        LineReader reader;
        reader.append(QByteArray("{\"id\":1}\n{\"id\""));
        QVERIFY(reader.hasLine());
        QCOMPARE(reader.takeLine(), QByteArray("{\"id\":1}"));
        QVERIFY(!reader.hasLine());
        reader.append(QByteArray(":2}\r\n\n  \n"));
        QCOMPARE(reader.takeLine(), QByteArray("{\"id\":2}"));
        QVERIFY(!reader.hasLine());  // empty lines are not queued
        reader.append(QByteArray("{\"id\":3,\"ok\":tr"));
        reader.finish();
        QVERIFY2(!reader.hasLine(), "a reply cut off by the end of the stream is no reply");
    }

    void aLogKeepsItsLastLineWithoutNewline()
    {
        LineReader reader(LineReader::OverLong::Truncate, 100);
        reader.append(QByteArray("Traceback: last words"));
        QVERIFY(!reader.hasLine());
        reader.finish();
        QCOMPARE(reader.takeLine(), QByteArray("Traceback: last words"));
    }

    void overLongLineIsDiscardedThroughItsNewline()
    {
        LineReader reader(LineReader::OverLong::Discard, 100);
        reader.append(QByteArray(60, 'a'));
        reader.append(QByteArray(60, 'b'));  // over the cap
        QVERIFY(!reader.hasLine());
        QVERIFY(reader.hasProblem());
        const LineReader::Problem problem = reader.takeProblem();
        QVERIFY(problem.bytes >= 100);
        QVERIFY(problem.prefix.startsWith(QLatin1String("aaaa")));
        QVERIFY(problem.prefix.size() <= LineReader::kPrefixChars);
        QVERIFY(reader.pendingBytes() == 0);
        // the rest of that line, then a good one: the rest is never a line of its own
        reader.append(QByteArray(50, 'c') + "\n{\"ok\":1}\n");
        QCOMPARE(reader.takeLine(), QByteArray("{\"ok\":1}"));
        QVERIFY(!reader.hasLine());
        QVERIFY(!reader.hasProblem());  // one over-long line, one problem
        // exactly at the cap is fine
        reader.append(QByteArray(100, 'd') + "\n");
        QCOMPARE(reader.takeLine(), QByteArray(100, 'd'));
    }

    void endlessLineKeepsCountingAndStaysSmall()
    {
        LineReader reader(LineReader::OverLong::Discard, 1000);
        const QByteArray chunk(4096, 'x');
        for (int i = 0; i < 1000; ++i)
            reader.append(chunk);  // 4 MB without a newline
        QVERIFY(reader.pendingBytes() <= 1000);
        int problems = 0;
        qsizetype lastBytes = 0;
        while (reader.hasProblem()) {
            const LineReader::Problem problem = reader.takeProblem();
            QVERIFY(problem.bytes > lastBytes);
            lastBytes = problem.bytes;
            ++problems;
        }
        // one per 1000 bytes, bounded by the queue limit
        QCOMPARE(problems, LineReader::kMaxQueuedLines);
        QVERIFY(!reader.hasLine());
    }

    void truncateModeKeepsTheStart()
    {
        LineReader reader(LineReader::OverLong::Truncate, 10);
        reader.append(QByteArray("0123456789abcdef\nnext\n"));
        QCOMPARE(reader.takeLine(), QByteArray("0123456789"));
        QCOMPARE(reader.takeLine(), QByteArray("next"));
    }

    void backpressure()
    {
        LineReader reader(LineReader::OverLong::Discard, 100, 4);
        QVERIFY(reader.wantsInput());
        QVERIFY(reader.room() > 0);
        reader.append(QByteArray("a\nb\nc\nd\n"));
        QVERIFY(!reader.wantsInput());
        QCOMPARE(reader.room(), qsizetype(0));
        reader.takeLine();
        QVERIFY(reader.wantsInput());
    }

    void warningsAreRateLimited()
    {
        WarningLimiter limiter;
        int shown = 0;
        for (int i = 0; i < 100000; ++i)
            shown += limiter.count() ? 1 : 0;
        QCOMPARE(shown, 8);  // the 1st, 2nd, 3rd, 10th, 100th, ... 100000th
    }

    void terminalSafeEscapesWhatATerminalActsOn_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("osc52") << QStringLiteral("\x1b]52;c;cHduZWQ=\x07")
                               << QStringLiteral("\\x1b]52;c;cHduZWQ=\\x07");
        QTest::newRow("title") << QStringLiteral("\x1b]0;t\x07")
                               << QStringLiteral("\\x1b]0;t\\x07");
        QTest::newRow("erase") << QStringLiteral("a\x1b[2K\rb")
                               << QStringLiteral("a\\x1b[2K\\x0db");
        QTest::newRow("c1 csi") << QString(QChar(0x9b)) + QStringLiteral("2K")
                                << QStringLiteral("\\x9b2K");
        QTest::newRow("del") << QStringLiteral("a\x7f") << QStringLiteral("a\\x7f");
        QTest::newRow("bidi") << QString(QChar(0x202e)) + QStringLiteral("evil")
                              << QStringLiteral("\\u{202E}evil");
        QTest::newRow("isolate") << QString(QChar(0x2066)) << QStringLiteral("\\u{2066}");
        QTest::newRow("newline") << QStringLiteral("a\nb\tc") << QStringLiteral("a\\x0ab\\x09c");
        QTest::newRow("plain") << QStringLiteral("NVIDIA Jetson AGX Orin (simulated) \u00fc\u20ac")
                               << QStringLiteral("NVIDIA Jetson AGX Orin (simulated) \u00fc\u20ac");
        QTest::newRow("lone surrogate") << QString(QChar(0xd800)) << QString(QChar(0xfffd));
        QTest::newRow("emoji") << QStringLiteral("\U0001F600") << QStringLiteral("\U0001F600");
    }

    void terminalSafeEscapesWhatATerminalActsOn()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(terminalSafe(text), expected);
    }

    void terminalSafeLinesKeepsNewlines()
    {
        QCOMPARE(terminalSafeLines(QStringLiteral("one\n\x1b]0;t\x07two\t")),
                 QStringLiteral("one\n\\x1b]0;t\\x07two\t"));
    }
};

QTEST_GUILESS_MAIN(TestLineReader)
#include "test_linereader.moc"
