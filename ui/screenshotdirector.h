#pragma once

#include "mainwindow.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace ptwb::ui {

class AddDeviceDialog;

// `powertrain-workbench --screenshot FILE.png --view VIEW`: brings one view to a state worth
// showing with the simulated device's data (the first run's models; for sweep, a short sweep in
// progress; for compare, an evaluation run), saves the window and quits. Gives up after a
// deadline, saving what there is and exiting with 1. Some views exist only as screenshots for
// the user guide: add-device (Devices with the Add device dialog filled in, drawn over the
// window), device-setup (Devices > Set up… for that device, the password masked), apply (Explore
// during a real apply's countdown on the simulated Jetson), explore-concurrent (Explore's
// concurrent mode, which needs a store holding a training and an inference workload: the simulated
// starter data has no inference yet), explore-batch (Explore's batch size mode under a 30 W cap,
// which needs a workload measured at several batch sizes with a convergence relation),
// verify-concurrent (its Verify on device dialog during a run on the simulated Jetson; the same
// store), compare-concurrent (Compare's concurrent evaluation of a training + inference pair),
// workloads (Sweep > Workloads… editing a tqdm regex definition with its sample-line check) and
// workload-test (its Test on device on the simulated Jetson, the recognised lines highlighted).
class ScreenshotDirector : public QObject
{
    Q_OBJECT

public:
    ScreenshotDirector(MainWindow *window, QString view, QString file, QObject *parent = nullptr);

    // The names --view takes with --screenshot: the window's views, then add-device and apply.
    static QStringList viewNames();
    // Whether a --view name is a screenshot of its own rather than one of the window's views.
    static bool isScreenshotOnly(const QString &view);
    // The window's view a --view name shows.
    static MainWindow::View windowView(const QString &view);

    void start();

private:
    void onFirstRunDone();
    void stageExplore();
    void stageExploreConcurrent(bool verify = false);
    void stageVerifyConcurrent();
    void stageExploreBatch();
    void stageSweep();
    void stageModels();
    void stageCompare();
    void stageCompareConcurrent();
    void stageCompareBatch();
    // Devices > Add device… filled in as the user guide's example device (null if it did not
    // open).
    AddDeviceDialog *openExampleDevice(const QString &keyFile);
    void stageAddDevice();
    void stageDeviceSetup();
    void stageApply();
    // The Workloads dialog editing a tqdm regex definition; with `test`, its Test on device.
    void stageWorkloads(bool test);
    void save(bool complete);
    void quit(bool ok);

    // Polls `ready` every 100 ms and runs `then` once it holds.
    void when(std::function<bool()> ready, std::function<void()> then);

    MainWindow *m_window;
    QString m_view;
    QString m_file;
    QPointer<QWidget> m_dialog;  // drawn over the window's picture
    bool m_staged = false;
    bool m_saved = false;
    QElapsedTimer m_clock;
};

}  // namespace ptwb::ui
