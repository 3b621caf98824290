#pragma once

#include "predict/powermodel.h"

#include <QFuture>
#include <QObject>

#include <atomic>
#include <memory>

namespace ptwb {

// Trains or transfers a PowerModel on a worker thread and reports through signals, so a window
// never waits on libtorch. One job at a time per object; cancel() stops it within one epoch.
class TrainingJob : public QObject
{
    Q_OBJECT

public:
    explicit TrainingJob(QObject *parent = nullptr);
    ~TrainingJob() override;  // cancels and waits: no worker outlives its job

    bool isRunning() const;

    struct TrainRequest
    {
        QString device;
        QString deviceKind;
        QString workload;
        TrainingData data;
        QString method = QStringLiteral("reference");
        predict::RegressorConfig config = predict::RegressorConfig::defaults();
        quint64 seed = 1;
    };
    struct TransferRequest
    {
        std::shared_ptr<const PowerModel> reference;
        QString device;
        QString deviceKind;
        QString workload;
        TrainingData data;
        quint64 seed = 1;
        bool allowDeviceTransfer = false;
    };

    // False when a job is already running.
    bool start(const TrainRequest &request);
    bool start(const TransferRequest &request);

public Q_SLOTS:
    void cancel();

Q_SIGNALS:
    // Emitted from the worker thread; connections to objects in other threads are queued, so
    // receivers get them in order and on their own thread.
    void progress(const ptwb::TrainingProgress &progress);
    void finished(std::shared_ptr<ptwb::PowerModel> model);
    void failed(const QString &message);
    void cancelled();

private:
    template<typename Work>
    bool launch(Work work);

    QFuture<void> m_future;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

}  // namespace ptwb

Q_DECLARE_METATYPE(ptwb::TrainingProgress)
Q_DECLARE_METATYPE(std::shared_ptr<ptwb::PowerModel>)
