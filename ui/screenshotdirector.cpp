#include "screenshotdirector.h"

#include "adddevicedialog.h"
#include "backgroundtasks.h"
#include "batchcompare.h"
#include "batchcompareform.h"
#include "batchcontrols.h"
#include "batchexplorer.h"
#include "budgetcontrols.h"
#include "comparepanel.h"
#include "concurrentcard.h"
#include "concurrentcompare.h"
#include "concurrentcomparedemo.h"
#include "concurrentcompareform.h"
#include "concurrentcontrols.h"
#include "concurrentexplorer.h"
#include "concurrentverifydialog.h"
#include "concurrentverifytable.h"
#include "deviceconnection.h"
#include "devicesetupdialog.h"
#include "devicespanel.h"
#include "explorepanel.h"
#include "firstrunguide.h"
#include "lossplot.h"
#include "mainwindow.h"
#include "modelspanel.h"
#include "recommendationcard.h"
#include "starterdata.h"
#include "storesession.h"
#include "sweeppanel.h"
#include "sweepresultsmodel.h"
#include "workloadeditor.h"
#include "workloadsdialog.h"
#include "workloadtestpane.h"

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace ptwb::ui {

namespace {

constexpr int kDeadlineMs = 240000;
constexpr int kNoFirstRunMs = 8000;  // when no first run has begun by then, none will
constexpr int kSettleMs = 600;  // let the last paint and animations finish
constexpr int kSweepRowsShown = 6;
constexpr int kLossPointsShown = 60;  // of a reference model training live
constexpr int kApplyCancelMs = 20000;  // an apply cancelled on the way out puts the mode back

const QLatin1String kAddDevice("add-device");
const QLatin1String kDeviceSetup("device-setup");
const QLatin1String kApply("apply");
const QLatin1String kExploreConcurrent("explore-concurrent");
const QLatin1String kExploreBatch("explore-batch");
const QLatin1String kCompareConcurrent("compare-concurrent");
const QLatin1String kCompareBatch("compare-batch");
const QLatin1String kVerifyConcurrent("verify-concurrent");
const QLatin1String kWorkloads("workloads");
const QLatin1String kWorkloadTest("workload-test");
constexpr int kVerifyRowsShownS = 8;  // device seconds of the run before the picture

// A dialog drawn over the window as a desktop would show it (the offscreen platform draws no
// window frames): centred near the top third, with a title bar, a frame and a soft shadow.
void drawDialog(QPixmap &shot, QWidget *dialog)
{
    const QPixmap body = dialog->grab();
    const qreal ratio = shot.devicePixelRatio();
    const QSize area = shot.size() / ratio;
    const int titleHeight = 30;
    const QSize size(body.width() / body.devicePixelRatio(),
                     body.height() / body.devicePixelRatio() + titleHeight);
    // Near the top third; a tall dialog higher, so that it fits.
    const int top = std::max(8, std::min(area.height() / 4, area.height() - size.height() - 16));
    const QRect frame(QPoint((area.width() - size.width()) / 2, top), size);

    QPainter painter(&shot);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(QRect(QPoint(0, 0), area), QColor(0, 0, 0, 40));  // window-modal dimming
    for (int i = 12; i > 0; --i)
        painter.fillRect(frame.adjusted(-i, -i + 4, i, i + 4), QColor(0, 0, 0, 5));
    const QPalette palette = dialog->palette();
    const QRect title(frame.topLeft(), QSize(frame.width(), titleHeight));
    painter.fillRect(title, palette.color(QPalette::Window).darker(112));
    QFont font = dialog->font();
    font.setBold(true);
    painter.setFont(font);
    painter.setPen(palette.color(QPalette::WindowText));
    painter.drawText(title, Qt::AlignCenter, dialog->windowTitle());
    painter.drawPixmap(
        QRect(frame.left(), frame.top() + titleHeight, size.width(), size.height() - titleHeight),
        body);
    painter.setPen(palette.color(QPalette::Dark));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(frame).adjusted(-0.5, -0.5, 0.5, 0.5));
}

}  // namespace

QStringList ScreenshotDirector::viewNames()
{
    return MainWindow::viewNames()
        << kAddDevice << kDeviceSetup << kApply << kExploreConcurrent << kExploreBatch
        << kCompareConcurrent << kCompareBatch << kVerifyConcurrent << kWorkloads << kWorkloadTest;
}

bool ScreenshotDirector::isScreenshotOnly(const QString &view)
{
    return view == kAddDevice || view == kDeviceSetup || view == kApply ||
        view == kExploreConcurrent || view == kExploreBatch || view == kCompareConcurrent ||
        view == kCompareBatch || view == kVerifyConcurrent || view == kWorkloads ||
        view == kWorkloadTest;
}

MainWindow::View ScreenshotDirector::windowView(const QString &view)
{
    if (view == kAddDevice || view == kDeviceSetup)
        return MainWindow::View::Devices;
    if (view == kApply || view == kExploreConcurrent || view == kExploreBatch ||
        view == kVerifyConcurrent)
        return MainWindow::View::Explore;
    if (view == kCompareConcurrent || view == kCompareBatch)
        return MainWindow::View::Compare;
    if (view == kWorkloads || view == kWorkloadTest)
        return MainWindow::View::Sweep;
    return MainWindow::View(std::max(0, int(MainWindow::viewNames().indexOf(view))));
}

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
    else if (m_view == kCompareConcurrent)
        stageCompareConcurrent();
    else if (m_view == kCompareBatch)
        stageCompareBatch();
    else if (m_view == kAddDevice)
        stageAddDevice();
    else if (m_view == kDeviceSetup)
        stageDeviceSetup();
    else if (m_view == kApply)
        stageApply();
    else if (m_view == kExploreConcurrent)
        stageExploreConcurrent();
    else if (m_view == kVerifyConcurrent)
        stageExploreConcurrent(true);
    else if (m_view == kExploreBatch)
        stageExploreBatch();
    else if (m_view == kWorkloads)
        stageWorkloads(false);
    else if (m_view == kWorkloadTest)
        stageWorkloads(true);
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

void ScreenshotDirector::stageExploreConcurrent(bool verify)
{
    // The problem of ptwb recommend-concurrent's example: 60 requests/s, 1 s, 25 W, with the
    // workloads the store holds (the ones remembered, else the first of each list).
    ExplorePanel *explore = m_window->explore();
    ConcurrentExplorer *concurrent = explore->concurrent();
    concurrent->controls()->setArrivalRate(60);
    concurrent->controls()->setLatencyBudget(1.0);
    concurrent->controls()->setPowerBudget(25);
    explore->setMode(ExplorePanel::Mode::Concurrent);
    when([concurrent] { return !concurrent->isLoading(); },
         [this, concurrent, verify] {
             concurrent->controls()->setPowerBudget(25);
             const bool shown = concurrent->space() != nullptr;
             if (!shown)
                 std::fprintf(stderr,
                              "screenshot: no training and inference pair in the store "
                              "(import an inference workload first)\n");
             if (shown && verify)
                 stageVerifyConcurrent();
             else
                 QTimer::singleShot(kSettleMs, this, [this, shown] { save(shown); });
         });
}

void ScreenshotDirector::stageExploreBatch()
{
    // The example of ptwb recommend --objective time-to-accuracy: a 30 W cap on the peak, with
    // the workload the store holds (the one remembered, else the first with a relation).
    ExplorePanel *explore = m_window->explore();
    BatchExplorer *batch = explore->batch();
    batch->controls()->setObjective(AccuracyObjective::Time);
    batch->controls()->setCap(30);
    explore->setMode(ExplorePanel::Mode::Batch);
    when([batch] { return !batch->isLoading() && batch->workloadCombo()->count() > 0; },
         [this, batch] {
             when([batch] { return !batch->isLoading(); },
                  [this, batch] {
                      batch->controls()->setCap(30);
                      const bool shown = batch->space() != nullptr;
                      if (!shown)
                          std::fprintf(stderr,
                                       "screenshot: no workload measured at several batch sizes "
                                       "with a convergence relation in the store\n");
                      QTimer::singleShot(kSettleMs, this, [this, shown] { save(shown); });
                  });
         });
}

void ScreenshotDirector::stageVerifyConcurrent()
{
    // Verify on device with the pick on the simulated Jetson: the picture is taken a few device
    // seconds into the run; closing the dialog then cancels it and puts the mode back.
    ConcurrentCard *card = m_window->explore()->concurrent()->card();
    when([card] { return card->verifyButton()->isEnabled(); },
         [this, card] {
             card->verifyButton()->click();
             auto *dialog = m_window->explore()->findChild<ConcurrentVerifyDialog *>();
             if (!dialog) {
                 save(false);
                 return;
             }
             m_dialog = dialog;
             dialog->startButton()->click();
             when(
                 [dialog] {
                     return dialog->table()
                                ->text(ConcurrentVerifyTable::LatencyP99,
                                       ConcurrentVerifyTable::Measured)
                                .size() > 0 &&
                         dialog->progressSeconds() >= kVerifyRowsShownS;
                 },
                 [this] { QTimer::singleShot(kSettleMs, this, [this] { save(true); }); });
         });
}

void ScreenshotDirector::stageSweep()
{
    SweepPanel *sweep = m_window->sweep();
    workflows::SweepRequest request = sweep->request();
    request.workload = QString::fromLatin1(StarterData::kNewWorkload);
    request.modeSet = QStringLiteral("random:12");
    request.batchSizes = {16, 32};  // each mode at two batch sizes: the Batch column shows
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
    auto *tasks = new BackgroundTasks(this);
    tasks->run(
        QStringLiteral("corpus"),
        [store, kind, target](const TaskContext &) {
            return StarterData::importCorpus(store, kind, target, 0);
        },
        [this, compare, target](const Expected<qint64> &imported) {
            if (!imported) {
                std::fprintf(stderr, "screenshot: %s\n", qPrintable(imported.error()));
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
                    connect(compare, &ComparePanel::finished, this, [this] {
                        QTimer::singleShot(kSettleMs, this, [this] { save(true); });
                    });
                    compare->run();
                },
                Qt::SingleShotConnection);
            compare->reload();
        });
}

void ScreenshotDirector::stageCompareBatch()
{
    // ptwb evaluate --objective time-to-accuracy on the store's workload measured at several
    // batch sizes (resnet18 if there, with mobilenet_v3@16 as pt's reference if there), caps 20,
    // 30 and 40 W, every strategy, 2 repeats.
    ComparePanel *compare = m_window->compare();
    connect(
        compare, &ComparePanel::listsLoaded, this,
        [this, compare] {
            compare->setProblem(ComparePanel::Problem::Batch);
            BatchComparePanel *panel = compare->batch();
            BatchCompareForm *form = panel->form();
            if (!form->hasWorkload()) {
                std::fprintf(stderr,
                             "screenshot: no workload measured at several batch sizes "
                             "with a convergence relation in the store\n");
                save(false);
                return;
            }
            form->setWorkload(QStringLiteral("resnet18"));
            const bool reference = form->setReference(QStringLiteral("mobilenet_v3@16"));
            QStringList strategies = BatchEvaluator::strategyNames();
            if (!reference)
                strategies.removeAll(QStringLiteral("pt"));
            form->setStrategies(strategies);
            form->setCaps(QStringLiteral("20,30,40"));
            form->setObjective(AccuracyObjective::Time);
            form->setSamples(20);
            form->setRepeats(2);
            connect(panel, &BatchComparePanel::finished, this,
                    [this] { QTimer::singleShot(kSettleMs, this, [this] { save(true); }); });
            connect(panel, &BatchComparePanel::failed, this, [this](const QString &message) {
                std::fprintf(stderr, "screenshot: %s\n", qPrintable(message));
                save(false);
            });
            panel->run();
        },
        Qt::SingleShotConnection);
    compare->reload();
}

void ScreenshotDirector::stageCompareConcurrent()
{
    // The public ResNet-18 training + MobileNet v3 inference pair (else a simulated one) with
    // their references, every strategy on a small grid: about 30 s, most of it pt's models.
    ComparePanel *compare = m_window->compare();
    const QString kind = m_window->connection()->deviceKind();
    const QString store = m_window->session()->path();
    auto *tasks = new BackgroundTasks(this);
    tasks->run(
        QStringLiteral("pair"),
        [store, kind](const TaskContext &) { return ConcurrentDemo::import(store, kind); },
        [this, compare](const Expected<ConcurrentDemo> &demo) {
            if (!demo) {
                std::fprintf(stderr, "screenshot: %s\n", qPrintable(demo.error()));
                save(false);
                return;
            }
            connect(
                compare, &ComparePanel::listsLoaded, this,
                [this, compare, demo = *demo] {
                    compare->setProblem(ComparePanel::Problem::Concurrent);
                    ConcurrentComparePanel *panel = compare->concurrent();
                    ConcurrentCompareForm *form = panel->form();
                    if (!form->setTrainingWorkload(demo.training) ||
                        !form->setInferenceWorkload(demo.inference)) {
                        save(false);
                        return;
                    }
                    form->setTrainingReference(demo.trainingReference);
                    form->setInferenceReference(demo.inferenceReference);
                    form->setGrid(QStringLiteral("30:120:30"), QStringLiteral("0.5:2.0:0.5"),
                                  QStringLiteral("15:50:5"));
                    form->setRepeats(2);
                    form->setStrategies(ConcurrentStrategy::names());
                    connect(panel, &ConcurrentComparePanel::finished, this, [this] {
                        QTimer::singleShot(kSettleMs, this, [this] { save(true); });
                    });
                    connect(panel, &ConcurrentComparePanel::failed, this, [this] { save(false); });
                    panel->run();
                },
                Qt::SingleShotConnection);
            compare->reload();
        });
}

AddDeviceDialog *ScreenshotDirector::openExampleDevice(const QString &keyFile)
{
    DevicesPanel *devices = m_window->devices();
    devices->addDevice();
    auto *dialog = devices->findChild<AddDeviceDialog *>();
    if (dialog) {
        DeviceFields fields;
        fields.name = QStringLiteral("Lab Orin");
        fields.host = QStringLiteral("orin.lab");
        fields.port = QStringLiteral("22");
        fields.user = QStringLiteral("nvidia");
        fields.keyFile = keyFile;
        dialog->setFields(fields);
    }
    return dialog;
}

void ScreenshotDirector::stageAddDevice()
{
    // The dialog of Devices > Add device…, filled in as the user guide's example.
    AddDeviceDialog *dialog = openExampleDevice(QStringLiteral("~/.ssh/id_ed25519"));
    if (!dialog) {
        save(false);
        return;
    }
    m_dialog = dialog;
    // Let the live power sparkline gather a few seconds, as in the Devices picture.
    QTimer::singleShot(4000, this, [this] { save(true); });
}

void ScreenshotDirector::stageDeviceSetup()
{
    // Devices > Set up… for the user guide's example device, the password typed (shown masked)
    // and not yet sent: nothing connects anywhere.
    DevicesPanel *devices = m_window->devices();
    AddDeviceDialog *add = openExampleDevice({});
    if (!add) {
        save(false);
        return;
    }
    add->accept();
    devices->setupCurrent();
    auto *dialog = devices->findChild<DeviceSetupDialog *>();
    if (!dialog) {
        save(false);
        return;
    }
    if (auto *password = dialog->findChild<QLineEdit *>(QStringLiteral("sudoPassword")))
        password->setText(QStringLiteral("example password"));
    m_dialog = dialog;
    QTimer::singleShot(kSettleMs, this, [this] { save(true); });
}

void ScreenshotDirector::stageApply()
{
    // Explore at 30 W, then Apply to device against the simulated Jetson with the window's own
    // ModeApplier; the picture is taken during the countdown, and the apply is cancelled (the
    // previous mode put back) before quitting.
    ExplorePanel *explore = m_window->explore();
    explore->budgets()->setPowerBudget(30);
    RecommendationCard *card = explore->card();
    // Only once Explore holds the transferred model's predictions and the card its 30 W
    // answer, so the picture shows the model's recommendation rather than the measured modes'.
    when(
        [explore, card] {
            return !explore->isLoading() && explore->space() &&
                explore->space()->hasPredictions() && card->applyButton()->isEnabled() &&
                card->titleText().contains(QLatin1String("30.0 W"));
        },
        [this, explore, card] {
            card->applyButton()->click();
            when(
                [explore] {
                    return explore->findChild<QMessageBox *>(QStringLiteral("applyConfirmBox"));
                },
                [this, explore, card] {
                    explore->findChild<QMessageBox *>(QStringLiteral("applyConfirmBox"))
                        ->button(QMessageBox::Yes)
                        ->click();
                    when(
                        [card] {
                            return card->applyStatusText().contains(
                                QLatin1String("unless you cancel"));
                        },
                        [this] { QTimer::singleShot(kSettleMs, this, [this] { save(true); }); });
                });
        });
}

void ScreenshotDirector::stageWorkloads(bool test)
{
    // Sweep > Workloads… with the user guide's example: a script with a tqdm progress bar,
    // recognised by a regular expression, its sample line checked; for workload-test, the
    // simulator's train.py printing that bar, saved and tested on the simulated Jetson.
    auto *dialog = qobject_cast<WorkloadsDialog *>(m_window->sweep()->openWorkloads());
    if (!dialog) {
        save(false);
        return;
    }
    m_dialog = dialog;
    dialog->resize(1390, 780);
    when([dialog] { return !dialog->isBusy() && !dialog->names().isEmpty(); },
         [this, dialog, test] {
             dialog->addWorkload();
             auto field = [dialog](const char *name) {
                 return dialog->findChild<QLineEdit *>(QLatin1String(name));
             };
             field("nameEdit")
                 ->setText(test ? QStringLiteral("sim-tqdm") : QStringLiteral("my-training"));
             field("commandEdit")
                 ->setText(test ? QStringLiteral("python3 train.py --log tqdm")
                                : QStringLiteral("python3 train.py --epochs 1"));
             if (!test) {
                 field("cwdEdit")->setText(QStringLiteral("~/projects/classifier"));
                 dialog->findChild<QPushButton *>(QStringLiteral("envAddButton"))->click();
                 auto *env = dialog->findChild<QTableWidget *>(QStringLiteral("envTable"));
                 env->item(0, 0)->setText(QStringLiteral("PATH"));
                 env->item(0, 1)->setText(QStringLiteral("/home/nvidia/venv/bin:/usr/bin:/bin"));
                 dialog->findChild<QPushButton *>(QStringLiteral("envAddButton"))->click();
                 env->item(1, 0)->setText(QStringLiteral("CUDA_VISIBLE_DEVICES"));
                 env->item(1, 1)->setText(QStringLiteral("0"));
                 env->clearSelection();
             }
             dialog->findChild<QComboBox *>(QStringLiteral("recogniserCombo"))->setCurrentIndex(1);
             field("patternEdit")->setText(QStringLiteral("(?P<rate>[0-9.]+)it/s"));
             auto *unit = dialog->findChild<QComboBox *>(QStringLiteral("unitCombo"));
             unit->setCurrentIndex(unit->count() - 1);  // minibatches per second
             dialog->editor()->setSampleLine(
                 QStringLiteral(" 45%|\u2588\u2588\u2588\u2588\u258c     | 18/40 "
                                "[00:02<00:02, 8.31it/s]"));
             dialog->findChild<QSpinBox *>(QStringLiteral("skipSpin"))->setValue(5);
             dialog->findChild<QSpinBox *>(QStringLiteral("keepSpin"))->setValue(40);
             if (!test) {
                 field("sampleEdit")->setFocus();
                 QTimer::singleShot(kSettleMs, this, [this] { save(true); });
                 return;
             }
             dialog->save();
             when([dialog] { return !dialog->isBusy() && !dialog->isModified(); },
                  [this, dialog] {
                      WorkloadTestPane *pane = dialog->testPane();
                      pane->setSeconds(20);
                      connect(pane, &WorkloadTestPane::testFinished, this, [this](bool ok) {
                          QTimer::singleShot(kSettleMs, this, [this, ok] { save(ok); });
                      });
                      pane->startTest();
                      if (!pane->isRunning()) {
                          std::fprintf(stderr, "screenshot: the test did not start: %s\n",
                                       qPrintable(pane->testButton()->toolTip()));
                          save(false);
                      }
                  });
         });
}

void ScreenshotDirector::when(std::function<bool()> ready, std::function<void()> then)
{
    auto *poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [poll, ready = std::move(ready), then = std::move(then)] {
        if (!ready())
            return;
        poll->stop();
        poll->deleteLater();
        then();
    });
    poll->start(100);
}

void ScreenshotDirector::save(bool complete)
{
    if (m_saved)
        return;
    m_saved = true;
    QPixmap shot = m_window->grab();
    if (m_dialog && m_dialog->isVisible())
        drawDialog(shot, m_dialog);
    const bool ok = shot.save(m_file);
    if (!ok)
        std::fprintf(stderr, "cannot write %s\n", qPrintable(m_file));
    else
        std::fprintf(stderr, "screenshot: %s (%s view, %.1f s)\n", qPrintable(m_file),
                     qPrintable(m_view), m_clock.elapsed() / 1000.0);
    m_window->sweep()->cancel();
    m_window->models()->cancel();
    ExplorePanel *explore = m_window->explore();
    if (auto *verify = qobject_cast<ConcurrentVerifyDialog *>(m_dialog.data());
        verify && verify->isRunning()) {
        // Closing cancels the run; quit once the device is back in its previous mode.
        connect(verify, &ConcurrentVerifyDialog::runFinished, this,
                [this, ok, complete] { quit(ok && complete); });
        QTimer::singleShot(kApplyCancelMs, this, [this] { quit(false); });
        verify->close();
        return;
    }
    if (auto *workloads = qobject_cast<WorkloadsDialog *>(m_dialog.data()))
        workloads->revert();  // the example is not saved, and closing does not ask
    if (m_dialog)
        m_dialog->close();
    if (explore->isApplying()) {
        // Put the simulated device's previous mode back rather than leave a revert pending.
        connect(explore, &ExplorePanel::applyFinished, this,
                [this, ok, complete] { quit(ok && complete); });
        QTimer::singleShot(kApplyCancelMs, this, [this] { quit(false); });
        explore->card()->cancelApplyButton()->click();
        return;
    }
    quit(ok && complete);
}

void ScreenshotDirector::quit(bool ok)
{
    QTimer::singleShot(200, qApp, [ok] { QApplication::exit(ok ? 0 : 1); });
}

}  // namespace ptwb::ui
