#include "storesession.h"

#include "store/measurementcsv.h"
#include "store/store.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QSaveFile>
#include <QtConcurrent>

namespace ptwb::ui {

StoreSession::StoreSession(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<QVector<ptwb::WorkloadSummary>>();
    qRegisterMetaType<QVector<ptwb::Measurement>>();
}

StoreSession::~StoreSession()
{
    if (m_cancelImport)
        m_cancelImport->store(true);
    for (QFuture<void> &task : m_tasks)
        task.waitForFinished();
}

template<typename Work>
void StoreSession::runInBackground(Work work)
{
    if (m_busy++ == 0)
        Q_EMIT busyChanged(true);
    auto *watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher] {
        watcher->deleteLater();
        if (--m_busy == 0)
            Q_EMIT busyChanged(false);
    });
    m_tasks.removeIf([](const QFuture<void> &task) { return task.isFinished(); });
    m_tasks.append(QtConcurrent::run(std::move(work)));
    watcher->setFuture(m_tasks.back());
}

void StoreSession::open(const QString &path)
{
    QPointer<StoreSession> self(this);
    runInBackground([self, path] {
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        QMetaObject::invokeMethod(self, [self, path, error = store ? QString() : store.error()] {
            if (!self)
                return;
            if (!error.isEmpty()) {
                Q_EMIT self->failed(error);
                return;
            }
            self->m_path = path;
            Q_EMIT self->opened(path);
            self->reloadSummaries();
        });
    });
}

void StoreSession::reloadSummaries()
{
    if (m_path.isEmpty())
        return;
    QPointer<StoreSession> self(this);
    runInBackground([self, path = m_path] {
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        Expected<QVector<WorkloadSummary>> summaries = store
            ? (*store)->summaries()
            : Expected<QVector<WorkloadSummary>>::failure(store.error());
        QMetaObject::invokeMethod(self, [self, summaries] {
            if (!self)
                return;
            if (summaries)
                Q_EMIT self->summariesLoaded(*summaries);
            else
                Q_EMIT self->failed(summaries.error());
        });
    });
}

void StoreSession::loadMeasurements(const QString &device, const QString &workload)
{
    if (m_path.isEmpty())
        return;
    const quint64 generation = ++m_measurementsGeneration;
    QPointer<StoreSession> self(this);
    runInBackground([self, path = m_path, device, workload, generation] {
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        Expected<QVector<Measurement>> rows = store
            ? (*store)->measurements(device, workload)
            : Expected<QVector<Measurement>>::failure(store.error());
        QMetaObject::invokeMethod(self, [self, rows, device, workload, generation] {
            if (!self || generation != self->m_measurementsGeneration)
                return;
            if (rows)
                Q_EMIT self->measurementsLoaded(device, workload, *rows);
            else
                Q_EMIT self->failed(rows.error());
        });
    });
}

void StoreSession::import(const ImportRequest &request)
{
    if (m_path.isEmpty())
        return;
    m_cancelImport = std::make_shared<std::atomic<bool>>(false);
    QPointer<StoreSession> self(this);
    runInBackground([self, path = m_path, request, cancel = m_cancelImport] {
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        if (!store) {
            QMetaObject::invokeMethod(self, [self, error = store.error()] {
                if (self)
                    Q_EMIT self->failed(error);
            });
            return;
        }
        Importer importer(**store);
        const Expected<ImportOutcome> outcome =
            importer.run(request, [self, cancel](qint64 done, qint64 total) {
                QMetaObject::invokeMethod(self, [self, done, total] {
                    if (self)
                        Q_EMIT self->importProgress(done, total);
                });
                return !cancel->load();
            });
        QMetaObject::invokeMethod(
            self,
            [self, ok = outcome.ok(), message = outcome ? outcome->describe() : outcome.error()] {
                if (!self)
                    return;
                if (ok) {
                    Q_EMIT self->importFinished(message);
                    self->reloadSummaries();
                } else {
                    Q_EMIT self->failed(message);
                }
            });
    });
}

void StoreSession::cancelImport()
{
    if (m_cancelImport)
        m_cancelImport->store(true);
}

void StoreSession::exportCsv(const QString &device, const QString &workload,
                             const QString &filePath)
{
    if (m_path.isEmpty())
        return;
    QPointer<StoreSession> self(this);
    runInBackground([self, path = m_path, device, workload, filePath] {
        QString error;
        QString message;
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        if (!store) {
            error = store.error();
        } else if (const auto rows = (*store)->measurements(device, workload); !rows) {
            error = rows.error();
        } else {
            const QByteArray csv = MeasurementCsv::write(*rows);
            QSaveFile file(filePath);
            if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() ||
                !file.commit()) {
                error = QStringLiteral("%1: cannot write: %2").arg(filePath, file.errorString());
            } else {
                message = QStringLiteral("Exported %1 rows of %2 on %3 to %4")
                              .arg(rows->size())
                              .arg(workload, device, filePath);
            }
        }
        QMetaObject::invokeMethod(self, [self, error, message] {
            if (!self)
                return;
            if (error.isEmpty())
                Q_EMIT self->exportFinished(message);
            else
                Q_EMIT self->failed(error);
        });
    });
}

}  // namespace ptwb::ui
