// Device text is never read as HTML (issue 21, finding 2): a stand-in agent whose hello names
// the model, boot id, agent, L4T release, power rail and thermal zone `<img src="FIFO"><b>x</b>`,
// whose every other reply is an error of the same text and whose last stderr line (the reason
// it is gone) is that text too. The Devices view and the window's status label show it verbatim
// (plain-text labels, escaped tooltips), and rendering them never opens the FIFO, which would
// freeze the window on the GUI thread.

#include "deviceclient.h"
#include "devicedetails.h"
#include "devicespanel.h"
#include "devicestatuslabel.h"
#include "localprocesstransport.h"
#include "plaintext.h"

#include <QLabel>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

// Notices when anything opens a FIFO for reading: tries to open its write end without blocking
// (which succeeds only while a reader has it open), then closes it, so a reader blocked in
// open() or read() gets end-of-file and the test goes on instead of hanging.
class FifoWatch
{
public:
    explicit FifoWatch(const QByteArray &path)
        : m_thread([this, path] {
            while (!m_stop) {
                const int fd = ::open(path.constData(), O_WRONLY | O_NONBLOCK);
                if (fd >= 0) {
                    m_opened = true;
                    ::close(fd);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        })
    {
    }
    ~FifoWatch()
    {
        m_stop = true;
        m_thread.join();
    }
    bool opened() const { return m_opened; }

private:
    std::atomic<bool> m_stop {false};
    std::atomic<bool> m_opened {false};
    std::thread m_thread;
};

// What a tooltip shows: Qt reads it as rich text when it looks like it.
QString shownTip(const QString &tip)
{
    if (!Qt::mightBeRichText(tip))
        return tip;
    QTextDocument document;
    document.setHtml(tip);
    return document.toPlainText();
}

const char *const kAgent = R"(import json, sys
text = sys.argv[1]
answered = 0
for line in sys.stdin:
    request = json.loads(line)
    if request.get('op') == 'hello':
        result = {'agent_version': text, 'model': text, 'boot_id': text, 'l4t': text,
                  'device': 'orin-agx', 'rails': [text],
                  'thermal': [{'zone': text, 'temp_c': 51.5}],
                  'tables': {'cores': [2, 4], 'cpu_khz': [1000000], 'gpu_hz': [500000000],
                             'emc_hz': [2000000000]},
                  'mode': {'cores': 4, 'cpu_khz': 1000000, 'gpu_hz': 500000000,
                           'emc_hz': 2000000000}}
        print(json.dumps({'id': request['id'], 'ok': True, 'result': result}), flush=True)
    else:
        print(json.dumps({'id': request['id'], 'ok': False,
                          'error': {'code': 'failed', 'message': text}}), flush=True)
    answered += 1
    if answered >= 3:
        sys.stderr.write(text + '\n')
        sys.stderr.flush()
        sys.exit(3)
)";

}  // namespace

class TestPlainText : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_fifo;
    QString m_hostile;

    // Every label under `root` showing the hostile text shows it as plain text; every tooltip
    // that carries it shows it verbatim. Returns how many labels carried it.
    int checkWidgets(QWidget *root)
    {
        int labels = 0;
        for (QLabel *label : root->findChildren<QLabel *>()) {
            if (!label->text().contains(m_hostile))
                continue;
            ++labels;
            if (label->textFormat() != Qt::PlainText)
                qWarning("label %s: text format %d", qPrintable(label->objectName()),
                         int(label->textFormat()));
            [&] { QCOMPARE(label->textFormat(), Qt::PlainText); }();
        }
        QList<QWidget *> widgets = root->findChildren<QWidget *>();
        widgets.append(root);
        for (QWidget *widget : std::as_const(widgets)) {
            const QString tip = widget->toolTip();
            if (tip.contains(QLatin1String("src=")) || tip.contains(QLatin1String("src&quot;")))
                [&] { QVERIFY2(shownTip(tip).contains(m_hostile), qPrintable(tip)); }();
        }
        return labels;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_fifo = m_dir.filePath(QStringLiteral("fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
        m_hostile = QStringLiteral("<img src=\"%1\"><b>x</b>").arg(m_fifo);
    }

    void helpersShowTextVerbatim()
    {
        QWidget parent;
        QLabel *label = plainLabel(m_hostile, &parent);
        QCOMPARE(label->textFormat(), Qt::PlainText);
        QCOMPARE(label->text(), m_hostile);
        QCOMPARE(shownTip(plainTip(m_hostile)), m_hostile);
        QCOMPARE(shownTip(plainTip(QStringLiteral("a\n<b>b</b>"))), QStringLiteral("a\n<b>b</b>"));
        QCOMPARE(plainTip(QStringLiteral("no markup")), QStringLiteral("no markup"));
        auto *box = new QMessageBox(QMessageBox::Warning, QStringLiteral("t"), m_hostile,
                                    QMessageBox::Ok, &parent);
        box->setInformativeText(m_hostile);
        makePlain(box);
        QCOMPARE(box->textFormat(), Qt::PlainText);
        auto *informative = box->findChild<QLabel *>(QStringLiteral("qt_msgbox_informativelabel"));
        QVERIFY(informative);
        QCOMPARE(informative->textFormat(), Qt::PlainText);
    }

    void deviceTextIsShownVerbatimAndNeverLoaded()
    {
        FifoWatch watch(QFile::encodeName(m_fifo));
        DevicesPanel panel;
        panel.resize(900, 600);
        panel.show();
        DeviceStatusLabel status;
        status.show();
        DeviceClient client(new LocalProcessTransport(
            QStringLiteral("python3"), {QStringLiteral("-c"), QString::fromUtf8(kAgent), m_hostile},
            QStringLiteral("stand-in agent")));
        panel.setClient(&client);
        status.setClient(&client);
        QSignalSpy ready(&client, &DeviceClient::ready);
        QSignalSpy gone(&client, &DeviceClient::disconnected);
        client.connectToDevice();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);

        DeviceDetailsView *details = panel.details();
        for (const char *name : {"deviceModel", "deviceL4t", "deviceBootId", "deviceAgent"}) {
            auto *label = details->findChild<QLabel *>(QLatin1String(name));
            QVERIFY2(label, name);
            QCOMPARE(label->text(), m_hostile);
            QCOMPARE(label->textFormat(), Qt::PlainText);
        }
        auto *thermal = details->findChild<QLabel *>(QStringLiteral("deviceThermal"));
        QVERIFY(thermal->text().contains(m_hostile));
        QCOMPARE(thermal->textFormat(), Qt::PlainText);
        QVERIFY2(status.text().contains(m_hostile), qPrintable(status.text()));
        QCOMPARE(status.textFormat(), Qt::PlainText);
        QVERIFY2(shownTip(status.toolTip()).contains(QStringLiteral("Model: ") + m_hostile),
                 qPrintable(status.toolTip()));
        QVERIFY(checkWidgets(&panel) >= 5);
        // Rendering is what would read an <img>: lay out and paint everything now.
        panel.grab();
        status.grab();
        QVERIFY(!watch.opened());

        QTRY_COMPARE_WITH_TIMEOUT(gone.count(), 1, 30000);
        const QString reason = gone.at(0).at(0).toString();
        QVERIFY2(reason.contains(m_hostile), qPrintable(reason));
        QVERIFY2(details->stateText().contains(m_hostile), qPrintable(details->stateText()));
        QVERIFY2(status.text().contains(m_hostile), qPrintable(status.text()));
        QCOMPARE(status.textFormat(), Qt::PlainText);
        checkWidgets(&panel);
        panel.grab();
        status.grab();
        QVERIFY(!watch.opened());
        panel.setClient(nullptr);
        status.setClient(nullptr);
    }
};

QTEST_MAIN(TestPlainText)
#include "test_plaintext.moc"
