#pragma once

// Timing helpers of the window's benchmarks (bench_explore, bench_tradeoffchart).

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QVector>
#include <QWidget>
#include <QWindow>

#include <algorithm>
#include <functional>

namespace ptwb::test {

struct Figures
{
    double median = 0, p95 = 0, max = 0;
    int n = 0;
};

inline Figures summarize(QVector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    Figures f;
    f.n = int(ms.size());
    if (!ms.isEmpty()) {
        f.median = ms[ms.size() / 2];
        f.p95 = ms[std::min<int>(int(ms.size()) - 1, int(ms.size() * 0.95))];
        f.max = ms.last();
    }
    return f;
}

// Milliseconds `work` took.
inline double timed(const std::function<void()> &work)
{
    QElapsedTimer timer;
    timer.start();
    work();
    return timer.nsecsElapsed() / 1e6;
}

// A repaint of a window that is not exposed yet paints nothing.
inline void waitExposed(QWidget *widget)
{
    QElapsedTimer timer;
    timer.start();
    while (!(widget->windowHandle() && widget->windowHandle()->isExposed()) &&
           timer.elapsed() < 5000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

}  // namespace ptwb::test
