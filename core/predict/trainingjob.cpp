#include "predict/trainingjob.h"

#include <QtConcurrent>

namespace ptwb {

TrainingJob::TrainingJob(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<ptwb::TrainingProgress>();
    qRegisterMetaType<std::shared_ptr<ptwb::PowerModel>>();
}

TrainingJob::~TrainingJob()
{
    cancel();
    m_future.waitForFinished();
}

bool TrainingJob::isRunning() const
{
    return m_future.isRunning();
}

void TrainingJob::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

template<typename Work>
bool TrainingJob::launch(Work work)
{
    if (isRunning())
        return false;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const auto cancel = m_cancel;
    TrainingCallbacks callbacks;
    callbacks.progress = [this](const TrainingProgress &p) { Q_EMIT progress(p); };
    callbacks.cancelled = [cancel] { return cancel->load(); };
    m_future = QtConcurrent::run([this, work = std::move(work), callbacks, cancel] {
        Expected<PowerModel> model = work(callbacks);
        if (cancel->load())
            Q_EMIT cancelled();
        else if (!model)
            Q_EMIT failed(model.error());
        else
            Q_EMIT finished(std::make_shared<PowerModel>(std::move(model).value()));
    });
    return true;
}

bool TrainingJob::start(const TrainRequest &request)
{
    return launch([request](const TrainingCallbacks &callbacks) {
        return PowerModel::train(request.device, request.deviceKind, request.workload, request.data,
                                 request.method, request.config, request.seed, callbacks);
    });
}

bool TrainingJob::start(const TransferRequest &request)
{
    if (!request.reference)
        return false;
    return launch([request](const TrainingCallbacks &callbacks) {
        return request.reference->transfer(request.device, request.deviceKind, request.workload,
                                           request.data, request.seed, request.allowDeviceTransfer,
                                           callbacks);
    });
}

}  // namespace ptwb
