#include "firstrunguide.h"

#include "backgroundtasks.h"
#include "explorepanel.h"
#include "modelspanel.h"
#include "starterdata.h"

#include <QLocale>

namespace ptwb::ui {

FirstRunGuide::FirstRunGuide(ExplorePanel *explore, ModelsPanel *models, QObject *parent)
    : QObject(parent)
    , m_explore(explore)
    , m_models(models)
    , m_tasks(new BackgroundTasks(this))
{
    connect(m_models, &ModelsPanel::modelSaved, this, &FirstRunGuide::onModelSaved);
    connect(m_models, &ModelsPanel::trainingCancelled, this,
            [this] { stop(false, tr("First-run training cancelled")); });
    connect(m_models, &ModelsPanel::failed, this, [this](const QString &error) {
        if (m_step == Step::Training || m_step == Step::Transferring)
            stop(false, error);
    });
}

void FirstRunGuide::start(const QString &dbPath, const QString &deviceKind)
{
    if (isRunning() || dbPath.isEmpty() || deviceKind.isEmpty())
        return;
    m_step = Step::Importing;
    m_tasks->run(
        QStringLiteral("import"),
        [dbPath, deviceKind](const TaskContext &) {
            return StarterData::importCorpora(dbPath, deviceKind);
        },
        [this](const Expected<qint64> &referenceModes) { imported(referenceModes); });
}

void FirstRunGuide::imported(const Expected<qint64> &referenceModes)
{
    if (!referenceModes) {
        stop(false,
             tr("Could not prepare the simulated starter data: %1").arg(referenceModes.error()));
        return;
    }
    if (*referenceModes == 0) {
        m_step = Step::Idle;  // the store has data already: nothing to guide
        return;
    }
    Q_EMIT message(tr("First run: stored a simulated %1 corpus (%2 modes) and %3 profiled modes "
                      "of %4; training the reference model…")
                       .arg(QLatin1String(StarterData::kReferenceWorkload))
                       .arg(QLocale().toString(*referenceModes))
                       .arg(StarterData::kNewWorkloadModes)
                       .arg(QLatin1String(StarterData::kNewWorkload)));
    m_explore->showWorkload(QString::fromLatin1(StarterData::kReferenceWorkload));
    // The Models view trains once its lists know the new workloads.
    m_step = Step::Training;
    connect(m_models, &ModelsPanel::listsLoaded, this, &FirstRunGuide::trainReference,
            Qt::SingleShotConnection);
    m_models->reload();
}

void FirstRunGuide::trainReference()
{
    if (m_step != Step::Training)
        return;
    if (!m_models->setTrainingWorkload(QString::fromLatin1(StarterData::kReferenceWorkload))) {
        stop(false, tr("The Models view does not list the simulated reference workload"));
        return;
    }
    m_models->trainReference();
}

void FirstRunGuide::onModelSaved(qint64 id, const QString &workload)
{
    if (m_step == Step::Training && workload == QLatin1String(StarterData::kReferenceWorkload)) {
        m_explore->reload();
        m_step = Step::Transferring;
        Q_EMIT message(tr("Reference model %1 trained; transferring it to %2 from its %3 "
                          "profiled modes…")
                           .arg(id)
                           .arg(QLatin1String(StarterData::kNewWorkload))
                           .arg(StarterData::kNewWorkloadModes));
        connect(
            m_models, &ModelsPanel::listsLoaded, this,
            [this, id] {
                if (m_step != Step::Transferring)
                    return;
                if (!m_models->setTransferChoice(id,
                                                 QString::fromLatin1(StarterData::kNewWorkload))) {
                    stop(false, tr("The Models view cannot transfer model %1").arg(id));
                    return;
                }
                m_models->transfer();
            },
            Qt::SingleShotConnection);
        m_models->reload();
    } else if (m_step == Step::Transferring &&
               workload == QLatin1String(StarterData::kNewWorkload)) {
        m_explore->showWorkload(workload);
        stop(true,
             tr("Ready: %1's modes predicted by PowerTrain from %2 profiled modes (all "
                "simulated). Move the budget sliders to pick a mode.")
                 .arg(workload)
                 .arg(StarterData::kNewWorkloadModes));
    }
}

void FirstRunGuide::stop(bool ok, const QString &text)
{
    if (m_step == Step::Done || m_step == Step::Idle)
        return;
    m_step = Step::Done;
    Q_EMIT message(text);
    Q_EMIT finished(ok);
}

}  // namespace ptwb::ui
