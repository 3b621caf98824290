// Timings of the Explore chart with every AGX Orin mode on it (docs/benchmarks.md):
//   select+repaint          setSelected + setBudgets, then a synchronous repaint
//   replace cloud+repaint   setPredicted with 18,096 new points, layout, repaint
// and, for comparison, the same with a plain QScatterSeries holding the cloud.
//   bench_tradeoffchart [--screenshot FILE.png] [--export FILE.svg|png]... [--dark] [--no-baseline]
// Runs offscreen unless QT_QPA_PLATFORM says otherwise.

#include "syntheticmodes.h"
#include "tradeoffchart.h"
#include "ui/benchtiming.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QScatterSeries>
#include <QTextStream>
#include <QValueAxis>
#include <QWindow>

#include <algorithm>
#include <cstdio>

using ptwb::ui::TradeoffChart;

using ptwb::test::Figures;
using ptwb::test::summarize;
using ptwb::test::timed;
using ptwb::test::waitExposed;

namespace {

void print(const char *what, const Figures &f)
{
    std::printf("%-32s median %8.3f ms, p95 %8.3f ms (n=%d)\n", what, f.median, f.p95, f.n);
    std::fflush(stdout);
}

// Layout requests are posted events: a real frame handles them before painting.
void settle(QWidget *view)
{
    QCoreApplication::sendPostedEvents();
    view->repaint();
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x24, 0x27, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Base, QColor(0x1b, 0x1d, 0x20));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    return p;
}

QString timeTooltip(const ptwb::test::SyntheticWorkload &data, int mode)
{
    const ptwb::ui::ChartPoint &p = data.predicted[mode];
    return QStringLiteral("Mode %1\npredicted %2 ms, %3 W")
        .arg(mode)
        .arg(p.time, 0, 'f', 1)
        .arg(p.powerW, 0, 'f', 1);
}

void benchTradeoffChart(const QString &screenshot, const QStringList &exports, bool dark)
{
    const ptwb::test::SyntheticWorkload a = ptwb::test::syntheticWorkload(1, 0);
    const ptwb::test::SyntheticWorkload b = ptwb::test::syntheticWorkload(2, 0.05);
    TradeoffChart chart;
    if (dark)
        chart.setPalette(darkPalette());
    chart.resize(1200, 760);
    chart.show();
    waitExposed(&chart);
    chart.setPredicted(a.predicted);
    chart.setObserved(a.observed);
    chart.setFronts(a.observedFront, a.predictedFront);
    chart.setTooltipProvider([&a](int mode) { return timeTooltip(a, mode); });
    chart.setSelected(a.observedFront[a.observedFront.size() / 2].mode);
    chart.setBudgets(30, 400);
    for (int i = 0; i < 3; ++i)
        settle(chart.viewport());
    std::printf("%d predicted, %d observed points, view %dx%d\n", int(a.predicted.size()),
                int(a.observed.size()), chart.width(), chart.height());

    if (!screenshot.isEmpty()) {
        chart.grab().save(screenshot);
        std::printf("screenshot: %s\n", qPrintable(screenshot));
    }

    for (const QString &path : exports) {
        QString error;
        bool ok = false;
        const double ms = timed([&] { ok = chart.exportTo(path, &error); });
        std::printf("export %s: %.1f ms%s\n", qPrintable(path), ms,
                    ok ? "" : qPrintable(QStringLiteral(" FAILED: ") + error));
    }

    QRandomGenerator random(42);
    QVector<double> select;
    for (int i = 0; i < 200; ++i) {
        const int mode = int(random.bounded(a.predicted.size()));
        const double budget = 15 + random.bounded(35.0);
        select.append(timed([&] {
            chart.setSelected(mode);
            chart.setBudgets(budget, 200 + budget * 10);
            chart.viewport()->repaint();
        }));
    }
    print("select+repaint:", summarize(select));

    QVector<double> grab;
    for (int i = 0; i < 50; ++i) {
        const int mode = int(random.bounded(a.predicted.size()));
        grab.append(timed([&] {
            chart.setSelected(mode);
            chart.setBudgets(20 + i * 0.3, 300 + i);
            (void)chart.grab();
        }));
    }
    print("select+grab:", summarize(grab));

    QVector<double> replace;
    for (int i = 0; i < 30; ++i) {
        const ptwb::test::SyntheticWorkload &next = i % 2 ? a : b;
        replace.append(timed([&] {
            chart.setPredicted(next.predicted);
            chart.setFronts(next.observedFront, next.predictedFront);
            settle(chart.viewport());
        }));
    }
    print("replace cloud+repaint:", summarize(replace));

    QVector<double> pick;
    for (int i = 0; i < 2000; ++i) {
        const QPoint pos(int(random.bounded(1200)), int(random.bounded(700)));
        pick.append(timed([&] { (void)chart.modeAt(pos); }));
    }
    print("modeAt (hover pick):", summarize(pick));

    QVector<double> zoom;
    for (int i = 0; i < 30; ++i) {
        zoom.append(timed([&] {
            if (i % 2)
                chart.resetZoom();
            else
                chart.zoomIn();
            settle(chart.viewport());
        }));
    }
    print("zoom step+repaint:", summarize(zoom));
}

// The baseline the chart replaces: the cloud as a QScatterSeries (one QGraphicsItem per point).
void benchPlainScatter()
{
    const ptwb::test::SyntheticWorkload a = ptwb::test::syntheticWorkload(1, 0);
    const ptwb::test::SyntheticWorkload b = ptwb::test::syntheticWorkload(2, 0.05);
    const auto points = [](const ptwb::test::SyntheticWorkload &w) {
        QList<QPointF> out;
        for (const ptwb::ui::ChartPoint &p : w.predicted)
            out.append(QPointF(p.powerW, p.time));
        return out;
    };
    const QList<QPointF> pa = points(a), pb = points(b);
    QChartView view;
    auto *series = new QScatterSeries;
    series->setMarkerSize(5);
    view.chart()->addSeries(series);
    view.chart()->createDefaultAxes();
    view.chart()->axes(Qt::Horizontal).first()->setRange(0, 60);
    view.chart()->axes(Qt::Vertical).first()->setRange(0, 1500);
    view.chart()->setAnimationOptions(QChart::NoAnimation);
    view.resize(1200, 760);
    view.show();
    waitExposed(&view);
    QVector<double> replace;
    for (int i = 0; i < 4; ++i) {
        replace.append(timed([&] {
            series->replace(i % 2 ? pa : pb);
            settle(view.viewport());
        }));
    }
    print("QScatterSeries replace+repaint:", summarize(replace));
    QVector<double> repaint;
    for (int i = 0; i < 10; ++i)
        repaint.append(timed([&] { view.viewport()->repaint(); }));
    print("QScatterSeries repaint:", summarize(repaint));
}

}  // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save the chart to FILE first."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use a dark palette."));
    const QCommandLineOption noBaseline(QStringLiteral("no-baseline"),
                                        QStringLiteral("Skip the QScatterSeries comparison."));
    const QCommandLineOption exportTo(QStringLiteral("export"),
                                      QStringLiteral("Export the chart to FILE (.png or .svg)."),
                                      QStringLiteral("FILE"));
    parser.addOptions({screenshot, dark, noBaseline, exportTo});
    parser.process(app);
    benchTradeoffChart(parser.value(screenshot), parser.values(exportTo), parser.isSet(dark));
    if (!parser.isSet(noBaseline))
        benchPlainScatter();
    return 0;
}
