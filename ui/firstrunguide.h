#pragma once

#include "util/expected.h"

#include <QObject>
#include <QString>

namespace ptwb::ui {

class BackgroundTasks;
class ExplorePanel;
class ModelsPanel;

// The first run on a simulated Jetson, so the window shows something meaningful within
// seconds: the simulated corpora go into the empty store (StarterData, on a worker), Explore
// shows the reference workload's measured modes at once, the Models view trains the reference
// model and transfers it to the new workload (loss curves and all), and Explore then shows the
// new workload's predicted cloud. Does nothing when the store already has data for the kind.
class FirstRunGuide : public QObject
{
    Q_OBJECT

public:
    FirstRunGuide(ExplorePanel *explore, ModelsPanel *models, QObject *parent = nullptr);

    void start(const QString &dbPath, const QString &deviceKind);
    bool isRunning() const { return m_step != Step::Idle && m_step != Step::Done; }

Q_SIGNALS:
    void message(const QString &text);
    // Done: the new workload's model is stored (or the guide stopped; `ok` says which).
    void finished(bool ok);

private:
    enum class Step { Idle, Importing, Training, Transferring, Done };

    void imported(const Expected<qint64> &referenceModes);
    void trainReference();
    void onModelSaved(qint64 id, const QString &workload);
    void stop(bool ok, const QString &text);

    ExplorePanel *m_explore;
    ModelsPanel *m_models;
    BackgroundTasks *m_tasks;
    Step m_step = Step::Idle;
};

}  // namespace ptwb::ui
