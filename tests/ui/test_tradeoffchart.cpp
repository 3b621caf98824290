#include "syntheticmodes.h"
#include "tradeoffchart.h"

#include <QApplication>
#include <QChart>
#include <QFile>
#include <QLegendMarker>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include <memory>

using ptwb::ui::ChartPoint;
using ptwb::ui::TradeoffChart;
using Layer = ptwb::ui::TradeoffChart::Layer;

class TestTradeoffChart : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void clickSelectsTheModeUnderTheCursor();
    void hoverShowsTheProvidersTooltip();
    void legendMarkerTogglesItsLayer();
    void clickingTheLegendTogglesLayers();
    void zoomPanAndResetRestoreTheRanges();
    void rubberBandZoomsToTheRectangle();
    void frontsAndSelectionKeepTheZoom();
    void exportsPngAndSvg();
    void unusableValuesAreSkipped();
    void followsADarkPalette();
    void holdsEveryOrinMode();

private:
    std::unique_ptr<TradeoffChart> shownChart();
};

namespace {

// A 20 x 20 predicted grid (modes 0-399) over 10-50 W and 100-1000 ms, and 10 profiled modes
// (1000-1009) in between the grid's points so each can be told apart.
QVector<ChartPoint> grid()
{
    QVector<ChartPoint> out;
    for (int i = 0; i < 20; ++i) {
        for (int j = 0; j < 20; ++j)
            out.append({i * 20 + j, 10 + i * 2.0, 100 + j * 45.0});
    }
    return out;
}

QVector<ChartPoint> profiled()
{
    QVector<ChartPoint> out;
    for (int k = 0; k < 10; ++k)
        out.append({1000 + k, 11 + k * 4.0, 122.5 + k * 90.0});
    return out;
}

void moveMouse(QWidget *widget, const QPoint &pos, Qt::KeyboardModifiers modifiers = {})
{
    QMouseEvent event(QEvent::MouseMove, pos, widget->mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                      modifiers);
    QApplication::sendEvent(widget, &event);
}

void wheel(QWidget *widget, const QPoint &pos, int delta)
{
    QWheelEvent event(pos, widget->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}

}  // namespace

std::unique_ptr<TradeoffChart> TestTradeoffChart::shownChart()
{
    auto chart = std::make_unique<TradeoffChart>();
    chart->resize(1000, 640);
    chart->setPredicted(grid());
    chart->setObserved(profiled());
    chart->show();
    if (!QTest::qWaitForWindowExposed(chart.get()))
        return nullptr;
    QCoreApplication::processEvents();
    return chart;
}

void TestTradeoffChart::clickSelectsTheModeUnderTheCursor()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    QSignalSpy clicked(chart.get(), &TradeoffChart::modeClicked);
    for (const int mode : {1003, 0, 217, 399}) {
        const QPoint pos = chart->viewPosOf(mode);
        QVERIFY2(!pos.isNull(), qPrintable(QString::number(mode)));
        QCOMPARE(chart->modeAt(pos), mode);
        QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, pos + QPoint(3, -2));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.takeFirst().at(0).toInt(), mode);
        QCOMPARE(chart->selected(), mode);
    }
    // Between grid points, farther than the pick radius from any: nothing.
    const QPoint a = chart->viewPosOf(40), b = chart->viewPosOf(61);
    const QPoint empty = (a + b) / 2;
    QVERIFY(std::abs(a.x() - b.x()) > 30);
    QCOMPARE(chart->modeAt(empty), -1);
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, empty);
    QCOMPARE(clicked.count(), 0);
}

void TestTradeoffChart::hoverShowsTheProvidersTooltip()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    chart->setTooltipProvider([](int mode) { return QStringLiteral("mode %1 here").arg(mode); });
    QSignalSpy hovered(chart.get(), &TradeoffChart::modeHovered);
    moveMouse(chart->viewport(), chart->viewPosOf(1005) + QPoint(-2, 2));
    QCOMPARE(hovered.count(), 1);
    QCOMPARE(hovered.takeFirst().at(0).toInt(), 1005);
    QTRY_COMPARE(QToolTip::text(), QStringLiteral("mode 1005 here"));

    moveMouse(chart->viewport(), (chart->viewPosOf(40) + chart->viewPosOf(61)) / 2);
    QCOMPARE(hovered.count(), 1);
    QCOMPARE(hovered.takeFirst().at(0).toInt(), -1);
    QTRY_VERIFY(!QToolTip::isVisible());

    moveMouse(chart->viewport(), chart->viewPosOf(42));
    QCOMPARE(hovered.takeFirst().at(0).toInt(), 42);
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(chart->viewport(), &leave);
    QCOMPARE(hovered.takeFirst().at(0).toInt(), -1);
}

void TestTradeoffChart::legendMarkerTogglesItsLayer()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    QSignalSpy toggled(chart.get(), &TradeoffChart::layerVisibilityChanged);
    const QPoint onProfiled = chart->viewPosOf(1002);
    const QPoint onPredicted = chart->viewPosOf(5);
    QCOMPARE(chart->modeAt(onProfiled), 1002);

    QLegendMarker *marker = chart->legendMarker(Layer::Observed);
    QVERIFY(marker);
    const QColor shownLabel = marker->labelBrush().color();
    Q_EMIT marker->clicked();
    QVERIFY(!chart->isLayerVisible(Layer::Observed));
    QCOMPARE(toggled.count(), 1);
    QCOMPARE(chart->modeAt(onProfiled), -1);  // the grid has no point this close
    QVERIFY(marker->isVisible());  // still listed, dimmed
    QVERIFY(marker->labelBrush().color().alpha() < shownLabel.alpha());

    Q_EMIT chart->legendMarker(Layer::Predicted)->clicked();
    QCOMPARE(chart->modeAt(onPredicted), -1);
    Q_EMIT chart->legendMarker(Layer::Predicted)->clicked();
    QCOMPARE(chart->modeAt(onPredicted), 5);

    Q_EMIT marker->clicked();
    QVERIFY(chart->isLayerVisible(Layer::Observed));
    QCOMPARE(chart->modeAt(onProfiled), 1002);
    QCOMPARE(marker->labelBrush().color(), shownLabel);

    for (const Layer layer : {Layer::ObservedFront, Layer::PredictedFront, Layer::Selected}) {
        Q_EMIT chart->legendMarker(layer)->clicked();
        QVERIFY(!chart->isLayerVisible(layer));
        QVERIFY(!chart->legendMarker(layer)->series()->isVisible() || layer == Layer::Selected);
        QVERIFY(chart->legendMarker(layer)->isVisible());
        QVERIFY(chart->legendMarker(layer)->pen().color().alpha() < 100);  // dimmed
        chart->setLayerVisible(layer, true);
        QCOMPARE(chart->legendMarker(layer)->pen().color().alpha(), 255);
    }
}

void TestTradeoffChart::clickingTheLegendTogglesLayers()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    // Click along the legend's row with the mouse; each entry toggles its own layer.
    QSignalSpy toggled(chart.get(), &TradeoffChart::layerVisibilityChanged);
    QChart *qchart = chart->chart();
    const QRectF legend = qchart->legend()->geometry();
    QVERIFY(legend.width() > 100);
    const QRectF range = chart->visibleRange();
    QList<Layer> seen;
    for (qreal x = legend.left() + 2; x < legend.right(); x += 4) {
        const QPoint pos = chart->mapFromScene(qchart->mapToScene(QPointF(x, legend.center().y())));
        QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, pos);
        if (toggled.isEmpty())
            continue;
        const auto layer = toggled.takeFirst().at(0).value<Layer>();
        QVERIFY(!chart->isLayerVisible(layer));
        if (seen.isEmpty() || seen.last() != layer)
            seen.append(layer);
        chart->setLayerVisible(layer, true);
        toggled.clear();
    }
    QCOMPARE(seen,
             (QList<Layer> {Layer::Predicted, Layer::Observed, Layer::ObservedFront,
                            Layer::PredictedFront, Layer::Selected}));
    QCOMPARE(chart->visibleRange(), range);  // clicks on the legend neither pan nor zoom
}

void TestTradeoffChart::zoomPanAndResetRestoreTheRanges()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    const QRectF home = chart->visibleRange();
    QVERIFY(home.contains(QRectF(QPointF(10, 100), QPointF(48, 955))));
    QVERIFY(!chart->isZoomed());

    // Two notches in around a point: that point stays under the cursor.
    const QPoint at = chart->viewPosOf(1004);
    wheel(chart->viewport(), at, 240);
    const QRectF zoomed = chart->visibleRange();
    QVERIFY(zoomed.width() < home.width() * 0.8);
    QVERIFY(zoomed.height() < home.height() * 0.8);
    QVERIFY((chart->viewPosOf(1004) - at).manhattanLength() <= 2);
    QVERIFY(chart->isZoomed());

    // Drag pans: the point moves with the mouse.
    QTest::mousePress(chart->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseMove(chart->viewport(), at + QPoint(60, 40));
    QTest::mouseRelease(chart->viewport(), Qt::LeftButton, {}, at + QPoint(60, 40));
    QVERIFY((chart->viewPosOf(1004) - (at + QPoint(60, 40))).manhattanLength() <= 2);
    QCOMPARE(chart->visibleRange().width(), zoomed.width());

    chart->setFocus();
    QTest::keyClick(chart.get(), Qt::Key_0);
    QCOMPARE(chart->visibleRange(), home);
    QVERIFY(!chart->isZoomed());

    QTest::keyClick(chart.get(), Qt::Key_Plus);
    QVERIFY(chart->visibleRange().width() < home.width());
    QTest::keyClick(chart.get(), Qt::Key_Home);
    QCOMPARE(chart->visibleRange(), home);

    chart->zoomIn();
    chart->zoomIn();
    chart->resetZoom();
    QCOMPARE(chart->visibleRange(), home);
    // Zooming out past everything stops at the full view.
    for (int i = 0; i < 5; ++i)
        QTest::keyClick(chart.get(), Qt::Key_Minus);
    QCOMPARE(chart->visibleRange(), home);
}

void TestTradeoffChart::rubberBandZoomsToTheRectangle()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    const QPoint a = chart->viewPosOf(0) + QPoint(-5, 5);  // (10 W, 100 ms): bottom left
    const QPoint b = chart->viewPosOf(5 * 20 + 6) + QPoint(5, -5);  // (20 W, 370 ms)
    QSignalSpy clicked(chart.get(), &TradeoffChart::modeClicked);
    QTest::mousePress(chart->viewport(), Qt::LeftButton, Qt::ShiftModifier, a);
    QTest::mouseMove(chart->viewport(), b);
    QTest::mouseRelease(chart->viewport(), Qt::LeftButton, Qt::ShiftModifier, b);
    QCOMPARE(clicked.count(), 0);
    const QRectF range = chart->visibleRange();
    QVERIFY2(range.left() > 9 && range.left() < 10 && range.right() > 20 && range.right() < 21,
             qPrintable(QStringLiteral("%1..%2").arg(range.left()).arg(range.right())));
    QVERIFY(range.top() > 80 && range.top() < 100 && range.bottom() > 370 && range.bottom() < 390);
    QVERIFY(!chart->viewPosOf(0).isNull());
    QVERIFY(chart->viewPosOf(399).isNull());  // (48 W, 955 ms) is outside now
}

void TestTradeoffChart::frontsAndSelectionKeepTheZoom()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    chart->zoomIn();
    const QRectF zoomed = chart->visibleRange();
    chart->setFronts(profiled(), grid().mid(0, 20));
    chart->setSelected(1003);
    chart->setBudgets(30, 500);
    chart->setPredicted(grid());
    QCOMPARE(chart->visibleRange(), zoomed);
    QCOMPARE(chart->selected(), 1003);
}

void TestTradeoffChart::exportsPngAndSvg()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    chart->setFronts(profiled(), grid().mid(0, 20));
    chart->setSelected(1003);
    chart->setBudgets(30, 500);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    const QString png = dir.filePath(QStringLiteral("chart.png"));
    QString error;
    QVERIFY2(chart->exportTo(png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), chart->viewport()->size() * chart->devicePixelRatio());
    // Not a blank picture: the profiled points' colour is in it.
    const QPoint onPoint = chart->viewPosOf(1003);
    QVERIFY(image.pixelColor(onPoint) != image.pixelColor(QPoint(2, 2)));

    const QString svg = dir.filePath(QStringLiteral("chart.svg"));
    QVERIFY2(chart->exportTo(svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Power (W)"));
    QVERIFY(text.count("<circle") + text.count("<ellipse") + text.count("<path") > 400);

    QVERIFY(!chart->exportTo(dir.filePath(QStringLiteral("chart.bmpx")), &error));
    QVERIFY(error.contains(QLatin1String("png")));
    QVERIFY(!chart->exportTo(dir.filePath(QStringLiteral("missing/dir/chart.png")), &error));
}

void TestTradeoffChart::unusableValuesAreSkipped()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    const double nan = std::nan("");
    const double inf = std::numeric_limits<double>::infinity();
    QVector<ChartPoint> points = grid();
    points.append({500, nan, 200});
    points.append({501, 20, nan});
    points.append({502, -3, 200});
    points.append({503, 20, -1});
    points.append({504, inf, 300});
    chart->setPredicted(points);
    chart->setObserved({{600, nan, nan}, {1000, 11, 122.5}});
    chart->setFronts({{600, nan, nan}, {1000, 11, 122.5}}, {{503, 20, -1}});
    chart->setSelected(500);
    chart->setBudgets(nan, inf);
    chart->viewport()->repaint();
    const QRectF range = chart->visibleRange();
    QVERIFY(std::isfinite(range.width()) && std::isfinite(range.height()));
    QVERIFY(range.left() >= 0 && range.top() >= 0 && range.right() < 100);
    for (int mode = 500; mode <= 504; ++mode)
        QVERIFY(chart->viewPosOf(mode).isNull());
    QCOMPARE(chart->modeAt(chart->viewPosOf(1000)), 1000);
    // One point: a range around it, not a degenerate one.
    chart->setPredicted({{7, 20, 300}});
    chart->setObserved({});
    chart->setFronts({}, {});
    QVERIFY(chart->visibleRange().contains(QPointF(20, 300)));
    QVERIFY(chart->visibleRange().width() > 1 && chart->visibleRange().height() > 1);
    QCOMPARE(chart->modeAt(chart->viewPosOf(7)), 7);
    // Everything unusable: an empty chart, still usable.
    chart->setPredicted({{1, nan, nan}});
    chart->setObserved({});
    chart->setFronts({}, {});
    chart->viewport()->repaint();
    QCOMPARE(chart->modeAt(QPoint(300, 300)), -1);
}

void TestTradeoffChart::followsADarkPalette()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    QVERIFY(chart->chart()->backgroundBrush().color().lightness() >= 128);
    QPalette dark = chart->palette();
    dark.setColor(QPalette::Window, QColor(0x24, 0x27, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x1b, 0x1d, 0x20));
    dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    chart->setPalette(dark);
    QCOMPARE(chart->chart()->theme(), QChart::ChartThemeDark);
    QVERIFY(chart->chart()->backgroundBrush().color().lightness() < 128);
    // A hidden layer stays dimmed across a theme change.
    chart->setLayerVisible(Layer::PredictedFront, false);
    chart->setPalette(QPalette());
    QCOMPARE(chart->chart()->theme(), QChart::ChartThemeLight);
    QVERIFY(chart->legendMarker(Layer::PredictedFront)->labelBrush().color().alpha() < 255);
}

void TestTradeoffChart::holdsEveryOrinMode()
{
    const auto chart = shownChart();
    QVERIFY(chart);
    const ptwb::test::SyntheticWorkload data = ptwb::test::syntheticWorkload();
    QCOMPARE(data.predicted.size(), 18096);
    QCOMPARE(data.observed.size(), 4368);
    chart->setPredicted(data.predicted);
    chart->setObserved(data.observed);
    chart->setFronts(data.observedFront, data.predictedFront);
    chart->viewport()->repaint();
    // Every front mode is found where it is drawn (front points are not hidden by neighbours:
    // nothing is both faster and cheaper).
    int found = 0;
    for (const ChartPoint &p : data.observedFront) {
        const int at = chart->modeAt(chart->viewPosOf(p.mode));
        found += at == p.mode;
    }
    QVERIFY2(found >= data.observedFront.size() * 9 / 10,
             qPrintable(QStringLiteral("%1 of %2").arg(found).arg(data.observedFront.size())));
    QSignalSpy clicked(chart.get(), &TradeoffChart::modeClicked);
    const int cheapest = data.observedFront.first().mode;
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, chart->viewPosOf(cheapest));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().at(0).toInt(), cheapest);
}

QTEST_MAIN(TestTradeoffChart)
#include "test_tradeoffchart.moc"
