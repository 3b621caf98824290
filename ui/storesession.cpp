#include "storesession.h"

#include "devicespecrecord.h"
#include "modelworkflow.h"
#include "store/measurementcsv.h"
#include "store/store.h"
#include "wire.h"

#include <QPointer>
#include <QSaveFile>

namespace ptwb::ui {

StoreSession::StoreSession(QObject *parent)
    : QObject(parent)
    , m_tasks(new BackgroundTasks(this))
{
    qRegisterMetaType<QVector<ptwb::WorkloadSummary>>();
    qRegisterMetaType<QVector<ptwb::Measurement>>();
    connect(m_tasks, &BackgroundTasks::busyChanged, this, &StoreSession::busyChanged);
}

StoreSession::~StoreSession() = default;  // m_tasks cancels an import (it rolls back)

bool StoreSession::isBusy() const
{
    return m_tasks->runningCount() > 0;
}

void StoreSession::open(const QString &path)
{
    m_tasks->run(
        QStringLiteral("open"),
        [path](const TaskContext &) {
            const Expected<std::unique_ptr<Store>> store = Store::open(path);
            return store ? QString() : store.error();
        },
        [this, path](const QString &error) {
            if (!error.isEmpty()) {
                Q_EMIT failed(error);
                return;
            }
            m_path = path;
            Q_EMIT opened(path);
            reloadSummaries();
        });
}

void StoreSession::reloadSummaries()
{
    if (m_path.isEmpty())
        return;
    m_tasks->run(
        QStringLiteral("summaries"),
        [path = m_path](const TaskContext &) { return workflows::storedWorkloads(path); },
        [this](const Expected<QVector<WorkloadSummary>> &summaries) {
            if (summaries)
                Q_EMIT summariesLoaded(*summaries);
            else
                Q_EMIT failed(summaries.error());
        });
}

void StoreSession::loadMeasurements(const QString &device, const QString &workload)
{
    if (m_path.isEmpty())
        return;
    // A newer request drops the result of an older, slower one.
    m_tasks->run(
        QStringLiteral("measurements"),
        [path = m_path, device, workload](const TaskContext &) -> Expected<QVector<Measurement>> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<QVector<Measurement>>>(store);
            return (*store)->measurements(device, workload);
        },
        [this, device, workload](const Expected<QVector<Measurement>> &rows) {
            if (rows)
                Q_EMIT measurementsLoaded(device, workload, *rows);
            else
                Q_EMIT failed(rows.error());
        });
}

void StoreSession::import(const ImportRequest &request)
{
    if (m_path.isEmpty())
        return;
    // Imports never supersede each other: each has a key of its own.
    m_importKey = QStringLiteral("import-%1").arg(++m_imports);
    QPointer<StoreSession> self(this);
    m_tasks->run(
        m_importKey,
        [path = m_path, request, self](const TaskContext &context) -> Expected<ImportOutcome> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<ImportOutcome>>(store);
            Importer importer(**store);
            return importer.run(request, [context, self](qint64 done, qint64 total) {
                context.post([self, done, total] {
                    if (self)
                        Q_EMIT self->importProgress(done, total);
                });
                return !context.cancelled();  // a cancelled import rolls back
            });
        },
        [this](const Expected<ImportOutcome> &outcome) {
            if (outcome) {
                Q_EMIT importFinished(*outcome);
                reloadSummaries();
            } else {
                Q_EMIT failed(outcome.error());
            }
        });
}

void StoreSession::cancelImport()
{
    if (!m_importKey.isEmpty())
        m_tasks->cancel(m_importKey);
}

void StoreSession::exportCsv(const QString &device, const QString &workload,
                             const QString &filePath)
{
    if (m_path.isEmpty())
        return;
    m_tasks->run(
        QStringLiteral("export-%1").arg(++m_exports),
        [path = m_path, device, workload, filePath](const TaskContext &) -> Expected<QString> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<QString>>(store);
            const auto rows = (*store)->measurements(device, workload);
            if (!rows)
                return passOn<Expected<QString>>(rows);
            const QByteArray csv = MeasurementCsv::write(*rows);
            QSaveFile file(filePath);
            if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() ||
                !file.commit()) {
                return Expected<QString>::failure(
                    QStringLiteral("%1: cannot write: %2").arg(filePath, file.errorString()));
            }
            return QStringLiteral("Exported %1 rows of %2 on %3 to %4")
                .arg(rows->size())
                .arg(workload, device, filePath);
        },
        [this](const Expected<QString> &message) {
            if (message)
                Q_EMIT exportFinished(*message);
            else
                Q_EMIT failed(message.error());
        });
}

void StoreSession::recordDeviceSpec(const QString &address, const DeviceInfo &info)
{
    if (m_path.isEmpty())
        return;
    m_tasks->run(
        QStringLiteral("device-spec-%1").arg(++m_specRecords),
        [path = m_path, address, info](const TaskContext &) -> Expected<QString> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<QString>>(store);
            return ptwb::recordDeviceSpec(**store, address, info);
        },
        [this](const Expected<QString> &note) {
            if (!note)
                Q_EMIT failed(note.error());
            else if (!note->isEmpty())
                Q_EMIT deviceSpecNoted(*note);
        });
}

}  // namespace ptwb::ui
