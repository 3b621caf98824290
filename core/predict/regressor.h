#pragma once

// The prediction engine's boundary: no Qt and no torch in this header. The libtorch code lives in
// engine.cpp, built as a module that regressor.cpp loads on first use (see engineapi.h).

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptwb::predict {

// A power mode as numbers: cores, CPU kHz, GPU Hz, EMC Hz.
using Features = std::array<double, 4>;

struct Dataset
{
    std::vector<Features> x;
    std::vector<double> y;  // minibatch time (ms) or power (W): positive
    // For a transfer: measured on another device kind than the reference model's.
    bool acrossDevices = false;
};

// How a regressor is built and trained. Two presets: baseline() is the published PowerTrain
// design; defaults() is this project's (see docs/prediction.md for why).
struct RegressorConfig
{
    enum class Transfer {
        FineTune,  // new last layer, all layers trained again by Adam (published PT)
        RidgeHead,  // last layer refit in closed form: target = a + b * reference + w . hidden,
                    // ridge on w chosen by leave-one-out (this project's default)
    };

    std::string name;
    bool logFeatures = false;
    bool logTarget = false;
    std::vector<int64_t> hidden {256, 128, 64};
    double dropout = 0.1;
    double learningRate = 1e-3;
    double weightDecay = 0;
    int epochs = 100;
    int batchSize = 32;
    double validationFraction = 0.1;
    int ensemble = 1;
    Transfer transfer = Transfer::FineTune;
    int fineTuneEpochs = 100;

    static RegressorConfig baseline();
    static RegressorConfig defaults();
    static RegressorConfig byName(const std::string &name);  // throws Error for an unknown name
};

struct EpochReport
{
    int member = 0;  // ensemble member, 0-based
    int members = 1;
    int epoch = 0;  // 1-based
    int epochs = 0;
    double trainingLoss = 0;
    double validationLoss = 0;
};

struct Callbacks
{
    std::function<void(const EpochReport &)> epochDone;
    // Polled once per epoch (and per member for closed-form steps): true stops the training.
    std::function<bool()> cancelled;
};

class Error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Thrown by Regressor::deserialize for bytes that are no model it can use (damaged, truncated or
// crafted): never read past, always refused with what was wrong.
class DamagedModel : public Error
{
public:
    using Error::Error;
};

// Thrown when Callbacks::cancelled said so; the partly trained model is discarded.
class Cancelled : public Error
{
public:
    Cancelled()
        : Error("training cancelled")
    {
    }
};

struct Prediction
{
    std::vector<double> mean;  // in the target's unit
    std::vector<double> stddev;  // one standard deviation, same unit (ensemble + head posterior)
};

// One target (time or power) of one workload: an ensemble of MLPs with their scalers.
class Regressor
{
public:
    Regressor();
    ~Regressor();
    Regressor(Regressor &&) noexcept;
    Regressor &operator=(Regressor &&) noexcept;
    Regressor(const Regressor &) = delete;
    Regressor &operator=(const Regressor &) = delete;

    // Trains from scratch (a reference model, or NN on a workload's own modes).
    static Regressor train(const RegressorConfig &config, const Dataset &data, uint64_t seed,
                           const Callbacks &callbacks = {});
    // PowerTrain: adapts this (reference) model to a new workload's few profiled modes.
    Regressor transfer(const Dataset &target, uint64_t seed, const Callbacks &callbacks = {}) const;

    Prediction predict(const std::vector<Features> &x) const;

    bool isValid() const;
    const RegressorConfig &config() const;

    std::string serialize() const;
    static Regressor deserialize(const std::string &bytes);

    // Parameters of one member as flat copies, for tests that check what transfer kept.
    std::vector<std::vector<float>> parameters(int member) const;

    // torch::set_num_threads, once per process (later calls are ignored).
    static void setThreadCount(int threads);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// The engine module the first prediction would load (the first place that holds one), or an
// empty string when none does. Does not load it.
std::string engineModulePath();

}  // namespace ptwb::predict
