// The Explore view's figures of issue 7 (docs/benchmarks.md), offscreen, with all 18,096
// AGX Orin modes on the chart:
//   slider -> recommendation   moving the power budget slider: core's query, the card, the
//                              highlight and budget line, then a synchronous repaint of both
//   new model -> redraw        replacing the whole space (a new model's cloud), repainted
//   launch -> usable           powertrain-workbench started on a store with a model, until
//                              its Explore view shows the data (with --app PATH)
//   bench_explore [--app PATH/powertrain-workbench] [--runs N]
#include "budgetcontrols.h"
#include "explorepanel.h"
#include "recommendationcard.h"
#include "starterdata.h"
#include "tradeoffchart.h"
#include "ui/benchtiming.h"
#include "ui/syntheticspace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QProcess>
#include <QSlider>
#include <QTemporaryDir>
#include <QWindow>

#include <algorithm>
#include <cstdio>

using namespace ptwb;
using namespace ptwb::ui;

using ptwb::test::Figures;
using ptwb::test::summarize;
using ptwb::test::timed;
using ptwb::test::waitExposed;

namespace {

void print(const char *what, const Figures &f, double target)
{
    std::printf("%-28s median %7.2f ms, p95 %7.2f ms, max %7.2f ms (n=%d; target %.0f ms: %s)\n",
                what, f.median, f.p95, f.max, f.n, target, f.p95 <= target ? "met" : "MISSED");
    std::fflush(stdout);
}

void benchPanel()
{
    const auto a = test::syntheticSpace(1, 0);
    const auto b = test::syntheticSpace(2, 0.05);
    ExplorePanel panel;
    panel.resize(1200, 760);
    panel.show();
    waitExposed(&panel);
    panel.setSpace(a);
    QCoreApplication::processEvents();
    panel.repaint();
    std::printf("%d modes (%d profiled) on the chart, window %dx%d\n", a->size(),
                a->observedCount(), panel.width(), panel.height());

    // A person dragging the slider: one step at a time across the range and back.
    QSlider *slider = panel.budgets()->powerSlider();
    QVector<double> slide;
    for (int i = 0; i < 400; ++i) {
        const int position = 100 + (i % 200) * 4;
        slide.append(timed([&] {
            slider->setValue(position);
            QCoreApplication::sendPostedEvents();
            panel.card()->repaint();
            panel.budgets()->repaint();
            panel.chart()->viewport()->repaint();
        }));
    }
    print("slider -> recommendation", summarize(slide), 16);

    QVector<double> replace;
    for (int i = 0; i < 20; ++i) {
        replace.append(timed([&] {
            panel.setSpace(i % 2 ? a : b);
            QCoreApplication::sendPostedEvents();
            panel.repaint();
        }));
    }
    print("new model -> redraw", summarize(replace), 150);
}

// Launch to a usable window: the process starts, opens the store, loads the newest model's
// predictions of every mode and shows them (PTWB_REPORT_READY prints "ready" then).
void benchLaunch(const QString &app, int runs)
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("bench.sqlite"));
    std::printf("preparing a store with a simulated corpus and its reference model…\n");
    std::fflush(stdout);
    const Status prepared = StarterData::prepareWithModels(db, QStringLiteral("orin-agx"));
    if (!prepared) {
        std::printf("cannot prepare the store: %s\n", qPrintable(prepared.error()));
        return;
    }
    QVector<double> launches;
    for (int i = 0; i < runs; ++i) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PTWB_REPORT_READY"), QStringLiteral("exit"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        process.setProcessEnvironment(env);
        QElapsedTimer clock;
        clock.start();
        process.start(
            app,
            {QStringLiteral("--db"), db, QStringLiteral("--target"), QStringLiteral("offline")});
        bool ready = false;
        while (!ready && process.waitForReadyRead(20000)) {
            while (process.canReadLine()) {
                if (process.readLine().startsWith("ready"))
                    ready = true;
            }
        }
        const double ms = clock.nsecsElapsed() / 1e6;
        process.waitForFinished(10000);
        if (!ready) {
            std::printf("launch %d: never reported ready (%s)\n", i,
                        process.readAllStandardError().constData());
            return;
        }
        launches.append(ms);
    }
    print("launch -> usable", summarize(launches), 2000);
}

}  // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("app"),
                      QStringLiteral("powertrain-workbench to time from launch to usable."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Launches (default 5)."),
                      QStringLiteral("N"), QStringLiteral("5")});
    parser.addHelpOption();
    parser.process(app);
    benchPanel();
    if (parser.isSet(QStringLiteral("app")))
        benchLaunch(parser.value(QStringLiteral("app")),
                    parser.value(QStringLiteral("runs")).toInt());
    return 0;
}
