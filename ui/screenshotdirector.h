#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

namespace ptwb::ui {

class MainWindow;

// `powertrain-workbench --screenshot FILE.png --view VIEW`: brings one view to a state worth
// showing with the simulated device's data (the first run's models; for sweep, a short sweep in
// progress; for compare, an evaluation run), saves the window and quits. Gives up after a
// deadline, saving what there is and exiting with 1.
class ScreenshotDirector : public QObject
{
    Q_OBJECT

public:
    ScreenshotDirector(MainWindow *window, QString view, QString file, QObject *parent = nullptr);

    void start();

private:
    void onFirstRunDone();
    void stageExplore();
    void stageSweep();
    void stageModels();
    void stageCompare();
    void save(bool complete);

    MainWindow *m_window;
    QString m_view;
    QString m_file;
    bool m_staged = false;
    bool m_saved = false;
    QElapsedTimer m_clock;
};

}  // namespace ptwb::ui
