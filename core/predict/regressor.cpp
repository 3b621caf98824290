// The engine's front: loads libptwb_predict_engine.so on first use and forwards to it.
// No torch here (see engineapi.h for why the engine is loaded lazily).
#include "predict/regressor.h"

#include "predict/engineapi.h"
#include "util/installlayout.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

#ifndef PTWB_ENGINE_FILE_NAME
#define PTWB_ENGINE_FILE_NAME "libptwb_predict_engine.so"
#endif

namespace ptwb::predict {

namespace {

// Where the module may be: $PTWB_ENGINE, the installation's private library directory, or,
// only when running from the build tree, the module built beside it.
std::vector<std::string> candidates()
{
    std::vector<std::string> out;
    if (const char *overridden = std::getenv("PTWB_ENGINE"); overridden && *overridden)
        out.emplace_back(overridden);
    if (!install::executableDirectory().empty())
        out.push_back(install::privateLibraryDirectory() + "/" PTWB_ENGINE_FILE_NAME);
#ifdef PTWB_ENGINE_BUILD_PATH
    if (install::runningFromBuildTree())
        out.emplace_back(PTWB_ENGINE_BUILD_PATH);
#endif
    return out;
}

const EngineApi &engine()
{
    static const EngineApi *api = nullptr;
    static std::string error;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string tried;
        for (const std::string &path : candidates()) {
            void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                tried += "\n  " + path + ": " + dlerror();
                continue;
            }
            using Entry = const EngineApi *(*)();
            auto entry = reinterpret_cast<Entry>(dlsym(handle, "ptwb_predict_engine_api"));
            if (entry && entry()->abiVersion == kEngineAbiVersion) {
                api = entry();
                return;
            }
            tried += "\n  " + path + ": not a compatible engine";
        }
        error =
            "the prediction engine (" PTWB_ENGINE_FILE_NAME ") could not be loaded; tried:" + tried;
    });
    if (!api)
        throw Error(error);
    return *api;
}

void check(const EngineStatus &status)
{
    if (status.code == EngineStatus::WasCancelled)
        throw Cancelled();
    if (status.code != EngineStatus::Ok)
        throw Error(status.message);
}

}  // namespace

std::string engineModulePath()
{
    for (const std::string &path : candidates()) {
        struct stat info;
        if (stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode))
            return path;
    }
    return {};
}

RegressorConfig RegressorConfig::baseline()
{
    RegressorConfig config;
    config.name = "baseline";
    return config;
}

RegressorConfig RegressorConfig::defaults()
{
    RegressorConfig config;
    config.name = "default";
    config.logFeatures = true;
    config.logTarget = true;
    config.hidden = {128, 64, 32};
    config.dropout = 0;
    config.learningRate = 2e-3;
    config.epochs = 100;
    config.batchSize = 128;
    config.ensemble = 3;
    config.transfer = Transfer::RidgeHead;
    return config;
}

RegressorConfig RegressorConfig::byName(const std::string &name)
{
    if (name == "default")
        return defaults();
    if (name == "baseline")
        return baseline();
    throw Error("unknown configuration '" + name + "'; expected default or baseline");
}

struct Regressor::Impl
{
    EngineModel *model = nullptr;

    explicit Impl(EngineModel *m = nullptr)
        : model(m)
    {
    }
    ~Impl()
    {
        if (model)
            engine().destroy(model);
    }
    Impl(const Impl &) = delete;
    Impl &operator=(const Impl &) = delete;
};

Regressor::Regressor()
    : d(std::make_unique<Impl>())
{
}
Regressor::~Regressor() = default;
Regressor::Regressor(Regressor &&) noexcept = default;
Regressor &Regressor::operator=(Regressor &&) noexcept = default;

bool Regressor::isValid() const
{
    return d && d->model;
}

const RegressorConfig &Regressor::config() const
{
    if (!isValid())
        throw Error("the model is empty");
    return engine().config(*d->model);
}

void Regressor::setThreadCount(int threads)
{
    engine().setThreadCount(threads);
}

Regressor Regressor::train(const RegressorConfig &config, const Dataset &data, uint64_t seed,
                           const Callbacks &callbacks)
{
    EngineStatus status;
    Regressor out;
    out.d->model = engine().train(config, data, seed, callbacks, status);
    check(status);
    return out;
}

Regressor Regressor::transfer(const Dataset &target, uint64_t seed,
                              const Callbacks &callbacks) const
{
    if (!isValid())
        throw Error("transfer: the reference model is empty");
    EngineStatus status;
    Regressor out;
    out.d->model = engine().transfer(*d->model, target, seed, callbacks, status);
    check(status);
    return out;
}

Prediction Regressor::predict(const std::vector<Features> &x) const
{
    if (!isValid())
        throw Error("predict: the model is empty");
    EngineStatus status;
    Prediction out;
    engine().predict(*d->model, x, out, status);
    check(status);
    return out;
}

std::vector<std::vector<float>> Regressor::parameters(int member) const
{
    if (!isValid())
        throw Error("parameters: the model is empty");
    EngineStatus status;
    std::vector<std::vector<float>> out;
    engine().parameters(*d->model, member, out, status);
    check(status);
    return out;
}

std::string Regressor::serialize() const
{
    if (!isValid())
        throw Error("serialize: the model is empty");
    EngineStatus status;
    std::string out;
    engine().serialize(*d->model, out, status);
    check(status);
    return out;
}

Regressor Regressor::deserialize(const std::string &bytes)
{
    EngineStatus status;
    Regressor out;
    const EngineApi &api = engine();  // an engine that cannot be loaded is no damaged model
    out.d->model = api.deserialize(bytes, status);
    if (status.code == EngineStatus::Failed)
        throw DamagedModel(status.message);
    check(status);
    return out;
}

}  // namespace ptwb::predict
