#include "screenshotdirector.h"

#include "budgetcontrols.h"
#include "comparepanel.h"
#include "deviceconnection.h"
#include "explorepanel.h"
#include "firstrunguide.h"
#include "lossplot.h"
#include "mainwindow.h"
#include "modelspanel.h"
#include "starterdata.h"
#include "storesession.h"
#include "sweeppanel.h"
#include "sweepresultsmodel.h"

#include <QApplication>
#include <QTimer>
#include <QtConcurrent>

#include <cstdio>

namespace ptwb::ui {

namespace {

constexpr int kDeadlineMs = 240000;
constexpr int kNoFirstRunMs = 8000;  // when no first run has begun by then, none will
constexpr int kSettleMs = 600;  // let the last paint and animations finish
constexpr int kSweepRowsShown = 6;
constexpr int kLossPointsShown = 60;  // of a reference model training live

}  // namespace

ScreenshotDirector::ScreenshotDirector(MainWindow *window, QString view, QString file,
                                       QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_view(std::move(view))
    , m_file(std::move(file))
{
}

void ScreenshotDirector::start()
{
    m_clock.start();
    QTimer::singleShot(kDeadlineMs, this, [this] {
        std::fprintf(stderr, "screenshot: not ready after %d s; saving what is there\n",
                     kDeadlineMs / 1000);
        save(false);
    });
    // A store without models (and no first run to make them): show what there is.
    QTimer::singleShot(kNoFirstRunMs, this, [this] {
        if (!m_window->firstRun()->isRunning())
            onFirstRunDone();
    });
    connect(m_window->firstRun(), &FirstRunGuide::finished, this,
            &ScreenshotDirector::onFirstRunDone);
    // A store with data already: no first run comes; the views' own loads stage the shot.
    connect(m_window->explore(), &ExplorePanel::loaded, this, [this](const QString &, int modes) {
        if (!m_window->firstRun()->isRunning() && modes > 0 && m_window->explore()->space() &&
            m_window->explore()->space()->hasPredictions())
            onFirstRunDone();
    });
}

void ScreenshotDirector::onFirstRunDone()
{
    if (m_staged)
        return;
    m_staged = true;
    if (m_view == QLatin1String("sweep"))
        stageSweep();
    else if (m_view == QLatin1String("models"))
        stageModels();
    else if (m_view == QLatin1String("compare"))
        stageCompare();
    else
        stageExplore();
}

void ScreenshotDirector::stageExplore()
{
    // A 30 W budget, as in the demo: the card then shows a recommendation and its gains.
    QTimer::singleShot(300, this, [this] {
        m_window->explore()->budgets()->setPowerBudget(30);
        QTimer::singleShot(kSettleMs, this, [this] { save(true); });
    });
}

void ScreenshotDirector::stageSweep()
{
    SweepPanel *sweep = m_window->sweep();
    SweepRequest request = sweep->request();
    request.workload = QString::fromLatin1(StarterData::kNewWorkload);
    request.modeSet = QStringLiteral("random:24");
    request.minibatches = 40;
    sweep->setRequest(request);
    connect(sweep->results(), &QAbstractItemModel::rowsInserted, this, [this, sweep] {
        if (sweep->results()->rowCount() >= kSweepRowsShown)
            QTimer::singleShot(kSettleMs, this, [this] { save(true); });
    });
    sweep->start();
}

void ScreenshotDirector::stageModels()
{
    // The transfer's fit beside a reference model training live: its loss curves part-way.
    ModelsPanel *models = m_window->models();
    if (models->models().isEmpty() || !models->selectModel(models->models().first().id) ||
        !models->setTrainingWorkload(QString::fromLatin1(StarterData::kReferenceWorkload))) {
        save(false);
        return;
    }
    connect(
        models, &ModelsPanel::fitShown, this,
        [this, models] {
            models->trainReference();
            auto *poll = new QTimer(this);
            connect(poll, &QTimer::timeout, this, [this, models, poll] {
                if (models->timeLoss()->pointCount() >= kLossPointsShown) {
                    poll->stop();
                    QTimer::singleShot(kSettleMs, this, [this] { save(true); });
                }
            });
            poll->start(100);
        },
        Qt::SingleShotConnection);
}

void ScreenshotDirector::stageCompare()
{
    // A fully measured target to evaluate the strategies against (simulated, like the rest).
    ComparePanel *compare = m_window->compare();
    const QString target = QStringLiteral("yolo_detect");
    const QString kind = m_window->connection()->deviceKind();
    const QString store = m_window->session()->path();
    auto *watcher = new QFutureWatcher<Status>(this);
    connect(watcher, &QFutureWatcher<Status>::finished, this, [this, watcher, compare, target] {
        if (!watcher->result()) {
            std::fprintf(stderr, "screenshot: %s\n", qPrintable(watcher->result().error()));
            save(false);
            return;
        }
        connect(
            compare, &ComparePanel::listsLoaded, this,
            [this, compare, target] {
                if (!compare->setReferenceWorkload(
                        QString::fromLatin1(StarterData::kReferenceWorkload)) ||
                    !compare->setTargetWorkload(target)) {
                    save(false);
                    return;
                }
                compare->setBudgets(17, 50, 1);
                compare->setRepeats(2);
                compare->setStrategies({QStringLiteral("maxn"), QStringLiteral("nvp"),
                                        QStringLiteral("rnd"), QStringLiteral("nn"),
                                        QStringLiteral("pt"), QStringLiteral("optimal")});
                connect(compare, &ComparePanel::finished, this,
                        [this] { QTimer::singleShot(kSettleMs, this, [this] { save(true); }); });
                compare->run();
            },
            Qt::SingleShotConnection);
        compare->reload();
    });
    watcher->setFuture(QtConcurrent::run(
        [store, kind, target] { return StarterData::importCorpus(store, kind, target, 0); }));
}

void ScreenshotDirector::save(bool complete)
{
    if (m_saved)
        return;
    m_saved = true;
    const bool ok = m_window->grab().save(m_file);
    if (!ok)
        std::fprintf(stderr, "cannot write %s\n", qPrintable(m_file));
    else
        std::fprintf(stderr, "screenshot: %s (%s view, %.1f s)\n", qPrintable(m_file),
                     qPrintable(m_view), m_clock.elapsed() / 1000.0);
    m_window->sweep()->cancel();
    m_window->models()->cancel();
    QTimer::singleShot(200, qApp, [ok, complete] { QApplication::exit(ok && complete ? 0 : 1); });
}

}  // namespace ptwb::ui
