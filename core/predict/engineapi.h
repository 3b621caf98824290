#pragma once

// The boundary between ptwb_core and the libtorch engine module (libptwb_predict_engine.so),
// which is loaded with dlopen on first use: libtorch's ~290 libraries and its operator
// registration cost ~0.4 s at start-up, which no command that does not predict should pay.
// Both sides are built together by the same compiler; the types are the engine's public ones.
// No exception crosses the boundary: every call reports through an EngineStatus.

#include "predict/regressor.h"

namespace ptwb::predict {

struct EngineStatus
{
    enum Code { Ok = 0, Failed = 1, WasCancelled = 2 };
    Code code = Ok;
    std::string message;
};

// Opaque trained model owned by the engine.
struct EngineModel;

struct EngineApi
{
    int abiVersion;
    void (*setThreadCount)(int threads);
    EngineModel *(*train)(const RegressorConfig &config, const Dataset &data, uint64_t seed,
                          const Callbacks &callbacks, EngineStatus &status);
    EngineModel *(*transfer)(const EngineModel &reference, const Dataset &target, uint64_t seed,
                             const Callbacks &callbacks, EngineStatus &status);
    void (*predict)(const EngineModel &model, const std::vector<Features> &x, Prediction &out,
                    EngineStatus &status);
    void (*serialize)(const EngineModel &model, std::string &out, EngineStatus &status);
    EngineModel *(*deserialize)(const std::string &bytes, EngineStatus &status);
    const RegressorConfig &(*config)(const EngineModel &model);
    void (*parameters)(const EngineModel &model, int member, std::vector<std::vector<float>> &out,
                       EngineStatus &status);
    void (*destroy)(EngineModel *model);
};

constexpr int kEngineAbiVersion = 1;
constexpr int kMinimumTrainingSamples = 8;
constexpr int kMinimumTransferSamples = 3;

}  // namespace ptwb::predict

// Exported by the module.
extern "C" const ptwb::predict::EngineApi *ptwb_predict_engine_api();
