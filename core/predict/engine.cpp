// The only translation unit of the engine that includes libtorch.
#include "predict/engineapi.h"

#include <torch/torch.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

namespace ptwb::predict {

namespace {

constexpr int64_t kFeatureCount = 4;
constexpr int kFormatVersion = 1;
constexpr int kPredictBatch = 8192;

// What a stored model is held to before any of it sizes an allocation or a read: the store may
// be damaged or crafted (a model's blob is as trusted as the file it is in). Generous bounds,
// far above any configuration this program trains (256-128-64, 5 members).
constexpr int64_t kMaxLayers = 16;
constexpr int64_t kMaxLayerWidth = 4096;
constexpr int64_t kMaxMembers = 64;
constexpr int64_t kMaxEpochs = 1000000;
constexpr int64_t kMaxBatchSize = 10000000;
constexpr int64_t kMaxHeadSamples = 1000000;

// torch's global generator drives initialisation and dropout: one training at a time keeps a
// seed's result the same whatever else the process does.
std::mutex &trainingMutex()
{
    static std::mutex mutex;
    return mutex;
}

struct MlpImpl : torch::nn::Cloneable<MlpImpl>
{
    MlpImpl(std::vector<int64_t> hiddenSizes, double dropoutRate)
        : sizes(std::move(hiddenSizes))
        , dropout(dropoutRate)
    {
        reset();
    }

    void reset() override
    {
        layers.clear();
        int64_t previous = kFeatureCount;
        for (size_t i = 0; i < sizes.size(); ++i) {
            layers.push_back(
                register_module("fc" + std::to_string(i), torch::nn::Linear(previous, sizes[i])));
            previous = sizes[i];
        }
        head = register_module("head", torch::nn::Linear(previous, 1));
    }

    // Activations of the last hidden layer: the basis the transfer refits on.
    torch::Tensor hidden(torch::Tensor x)
    {
        for (size_t i = 0; i < layers.size(); ++i) {
            x = torch::relu(layers[i]->forward(x));
            // Dropout after every hidden layer but the last (the first two of 256-128-64).
            if (dropout > 0 && i + 1 < layers.size())
                x = torch::dropout(x, dropout, is_training());
        }
        return x;
    }

    torch::Tensor forward(torch::Tensor x) { return head->forward(hidden(x)); }

    // Activations of every hidden layer, first to last, in eval mode (no dropout).
    std::vector<torch::Tensor> activations(torch::Tensor x)
    {
        std::vector<torch::Tensor> out;
        for (torch::nn::Linear &layer : layers) {
            x = torch::relu(layer->forward(x));
            out.push_back(x);
        }
        return out;
    }

    void replaceHead() { head = replace_module("head", torch::nn::Linear(sizes.back(), 1)); }

    std::vector<int64_t> sizes;
    double dropout = 0;
    std::vector<torch::nn::Linear> layers;
    torch::nn::Linear head {nullptr};
};
TORCH_MODULE(Mlp);

// Closed-form last layer of a transferred member (RidgeHead). Its design has the columns
// [1, reference output, (the standardized inputs,) every hidden layer's activations / that
// layer's RMS]. Heads stored before every layer was used have only the last layer's, scaled by
// hiddenScale, and no layerScales.
struct RidgeHead
{
    torch::Tensor weights;  // [p]
    torch::Tensor inverseGram;  // [p, p]: (Z'Z + P)^-1, for the predictive variance
    double hiddenScale = 1;
    double noiseVariance = 0;  // leave-one-out mean squared error
    double lambda = 0;  // the penalty leave-one-out chose
    bool inputColumns = false;  // the standardized inputs are columns of the design
    std::vector<double> layerScales;  // RMS of each hidden layer's activations on the samples
    // The standardized inputs it was fitted on [n, 4]: the inverse Gram is rebuilt from them on
    // load instead of being stored (with every layer it has ~450^2 entries per member).
    torch::Tensor samples;
};

struct Member
{
    Mlp net {nullptr};
    std::optional<RidgeHead> ridge;
};

void checkFinite(const Dataset &data, const char *what)
{
    if (data.x.size() != data.y.size())
        throw Error(std::string(what) + ": features and targets differ in length");
    for (size_t i = 0; i < data.x.size(); ++i) {
        for (int f = 0; f < kFeatureCount; ++f) {
            if (!std::isfinite(data.x[i][f]) || data.x[i][f] <= 0) {
                throw Error(std::string(what) + ": sample " + std::to_string(i + 1) + ": feature " +
                            std::to_string(f + 1) + " is not a finite positive number");
            }
        }
        if (!std::isfinite(data.y[i]) || data.y[i] <= 0) {
            throw Error(std::string(what) + ": sample " + std::to_string(i + 1) +
                        ": target is not a finite positive number");
        }
    }
}

std::map<std::string, torch::Tensor> snapshot(const Mlp &net)
{
    std::map<std::string, torch::Tensor> state;
    for (const auto &item : net->named_parameters())
        state[item.key()] = item.value().detach().clone();
    return state;
}

void restore(Mlp &net, const std::map<std::string, torch::Tensor> &state)
{
    torch::NoGradGuard noGrad;
    for (auto &item : net->named_parameters())
        item.value().copy_(state.at(item.key()));
}

// Adam on MSE with the best-validation checkpoint. x: [n, 4] float32, y: [n, 1] float32.
void fit(Mlp &net, const torch::Tensor &x, const torch::Tensor &y, const RegressorConfig &config,
         int epochs, std::mt19937_64 &rng, const Callbacks &callbacks, int member, int members)
{
    const int64_t n = x.size(0);
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const int64_t validation =
        n >= 4 ? std::clamp<int64_t>(std::llround(n * config.validationFraction), 1, n / 2) : 0;
    const std::vector<int64_t> validationRows(order.begin(), order.begin() + validation);
    std::vector<int64_t> trainingRows(order.begin() + validation, order.end());
    const torch::Tensor validationIndex = torch::tensor(validation ? validationRows : trainingRows,
                                                        torch::TensorOptions(torch::kInt64));
    const torch::Tensor xv = x.index_select(0, validationIndex);
    const torch::Tensor yv = y.index_select(0, validationIndex);

    torch::optim::Adam optimizer(
        net->parameters(),
        torch::optim::AdamOptions(config.learningRate).weight_decay(config.weightDecay));
    double best = std::numeric_limits<double>::infinity();
    std::map<std::string, torch::Tensor> bestState = snapshot(net);
    for (int epoch = 1; epoch <= epochs; ++epoch) {
        if (callbacks.cancelled && callbacks.cancelled())
            throw Cancelled();
        net->train();
        std::shuffle(trainingRows.begin(), trainingRows.end(), rng);
        const torch::Tensor shuffled =
            torch::tensor(trainingRows, torch::TensorOptions(torch::kInt64));
        double lossSum = 0;
        const int64_t count = shuffled.size(0);
        for (int64_t start = 0; start < count; start += config.batchSize) {
            const torch::Tensor index =
                shuffled.slice(0, start, std::min(count, start + config.batchSize));
            optimizer.zero_grad();
            const torch::Tensor loss =
                torch::mse_loss(net->forward(x.index_select(0, index)), y.index_select(0, index));
            loss.backward();
            optimizer.step();
            lossSum += loss.item<double>() * index.size(0);
        }
        net->eval();
        double validationLoss = 0;
        {
            torch::NoGradGuard noGrad;
            validationLoss = torch::mse_loss(net->forward(xv), yv).item<double>();
        }
        if (validationLoss < best) {
            best = validationLoss;
            bestState = snapshot(net);
        }
        if (callbacks.epochDone)
            callbacks.epochDone({member, members, epoch, epochs, lossSum / count, validationLoss});
    }
    restore(net, bestState);
    net->eval();
}

// (Z'Z + P)^-1 with P = lambda on every column but the intercept and the reference output,
// which are free (a negligible 1e-8 keeps the inverse defined).
torch::Tensor ridgeInverse(const torch::Tensor &z, double lambda)
{
    torch::Tensor penalty = torch::full({z.size(1)}, lambda, torch::kFloat64);
    penalty.index_put_({torch::indexing::Slice(0, 2)}, 1e-8);
    return torch::linalg::inv(z.t().mm(z) + torch::diag(penalty));
}

// Ridge regression; lambda chosen by closed-form leave-one-out error over a log grid. Fills
// the head's weights, inverse Gram, lambda and noise variance.
void fitRidge(const torch::Tensor &z, const torch::Tensor &y, RidgeHead &head)
{
    const torch::Tensor zy = z.t().mv(y);
    double bestError = std::numeric_limits<double>::infinity();
    for (double exponent = -3; exponent <= 4.01; exponent += 0.5) {
        const double lambda = std::pow(10.0, exponent);
        const torch::Tensor inverse = ridgeInverse(z, lambda);
        const torch::Tensor weights = inverse.mv(zy);
        const torch::Tensor leverage = (z.mm(inverse) * z).sum(1);
        const torch::Tensor residual = (y - z.mv(weights)) / (1 - leverage).clamp_min(1e-6);
        const double error = residual.pow(2).mean().item<double>();
        if (std::isfinite(error) && error < bestError) {
            bestError = error;
            head.weights = weights;
            head.inverseGram = inverse;
            head.lambda = lambda;
            head.noiseVariance = error;
        }
    }
    if (!std::isfinite(bestError))
        throw Error("transfer: the closed-form head could not be fitted (degenerate samples)");
}

// One trained regressor: scalers and ensemble members.
struct Model
{
    RegressorConfig config;
    std::array<double, kFeatureCount> featureMean {};
    std::array<double, kFeatureCount> featureScale {};
    double targetMean = 0;
    double targetScale = 1;
    std::vector<Member> members;

    double transformFeature(double value) const
    {
        return config.logFeatures ? std::log(value) : value;
    }
    double transformTarget(double value) const
    {
        return config.logTarget ? std::log(value) : value;
    }

    void fitScalers(const Dataset &data)
    {
        const size_t n = data.x.size();
        for (int f = 0; f < kFeatureCount; ++f) {
            double sum = 0, squares = 0;
            for (const Features &x : data.x) {
                const double v = transformFeature(x[f]);
                sum += v;
                squares += v * v;
            }
            featureMean[f] = sum / n;
            const double variance = std::max(0.0, squares / n - featureMean[f] * featureMean[f]);
            featureScale[f] = variance > 1e-18 ? std::sqrt(variance) : 1.0;
        }
        double sum = 0, squares = 0;
        for (double y : data.y) {
            sum += transformTarget(y);
            squares += transformTarget(y) * transformTarget(y);
        }
        targetMean = sum / n;
        const double variance = std::max(0.0, squares / n - targetMean * targetMean);
        targetScale = variance > 1e-18 ? std::sqrt(variance) : 1.0;
    }

    torch::Tensor inputs(const std::vector<Features> &x, size_t begin, size_t end) const
    {
        std::vector<float> values;
        values.reserve((end - begin) * kFeatureCount);
        for (size_t i = begin; i < end; ++i) {
            for (int f = 0; f < kFeatureCount; ++f)
                values.push_back(
                    float((transformFeature(x[i][f]) - featureMean[f]) / featureScale[f]));
        }
        return torch::from_blob(values.data(), {int64_t(end - begin), kFeatureCount},
                                torch::kFloat32)
            .clone();
    }

    torch::Tensor standardizedTargets(const std::vector<double> &y) const
    {
        std::vector<float> values;
        values.reserve(y.size());
        for (double v : y)
            values.push_back(float((transformTarget(v) - targetMean) / targetScale));
        return torch::from_blob(values.data(), {int64_t(y.size()), 1}, torch::kFloat32).clone();
    }

    // Design matrix of a ridge head (see RidgeHead) for standardized inputs x.
    torch::Tensor design(Member &member, const torch::Tensor &x, const RidgeHead &head) const
    {
        torch::NoGradGuard noGrad;
        const std::vector<torch::Tensor> layers = member.net->activations(x);
        const torch::Tensor reference =
            member.net->head->forward(layers.back()).to(torch::kFloat64) * targetScale + targetMean;
        std::vector<torch::Tensor> columns {torch::ones({x.size(0), 1}, torch::kFloat64),
                                            reference};
        if (head.inputColumns)
            columns.push_back(x.to(torch::kFloat64));
        if (head.layerScales.empty()) {
            columns.push_back(layers.back().to(torch::kFloat64) / head.hiddenScale);
        } else {
            for (size_t i = 0; i < layers.size(); ++i)
                columns.push_back(layers[i].to(torch::kFloat64) / head.layerScales.at(i));
        }
        return torch::cat(columns, 1);
    }
};

void setThreadCount(int threads)
{
    static std::once_flag once;
    std::call_once(once, [threads] {
        torch::set_num_threads(std::max(1, threads));
        // When libblas is OpenBLAS, its own thread pool fights torch's OpenMP threads for the
        // same cores (measured here: 3x slower prediction). torch parallelises; BLAS does not.
        using SetThreads = void (*)(int);
        if (auto set =
                reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
            set(1);
    });
}

std::unique_ptr<Model> trainModel(const RegressorConfig &config, const Dataset &data, uint64_t seed,
                                  const Callbacks &callbacks)
{
    checkFinite(data, "training data");
    if (int(data.x.size()) < kMinimumTrainingSamples) {
        throw Error("training needs at least " + std::to_string(kMinimumTrainingSamples) +
                    " profiled modes; got " + std::to_string(data.x.size()));
    }
    std::lock_guard lock(trainingMutex());
    auto model = std::make_unique<Model>();
    Model &impl = *model;
    impl.config = config;
    impl.fitScalers(data);
    const torch::Tensor x = impl.inputs(data.x, 0, data.x.size());
    const torch::Tensor y = impl.standardizedTargets(data.y);
    for (int m = 0; m < config.ensemble; ++m) {
        torch::manual_seed(seed * 7919 + m);
        std::mt19937_64 rng(seed * 104729 + m);
        Member member {Mlp(config.hidden, config.dropout), std::nullopt};
        fit(member.net, x, y, config, config.epochs, rng, callbacks, m, config.ensemble);
        impl.members.push_back(std::move(member));
    }
    return model;
}

std::unique_ptr<Model> transferModel(const Model &reference, const Dataset &target, uint64_t seed,
                                     const Callbacks &callbacks)
{
    const Model *d = &reference;
    if (d->members.empty())
        throw Error("transfer: the reference model is empty");
    checkFinite(target, "target data");
    if (int(target.x.size()) < kMinimumTransferSamples) {
        throw Error("transfer needs at least " + std::to_string(kMinimumTransferSamples) +
                    " profiled modes of the target workload; got " +
                    std::to_string(target.x.size()));
    }
    std::lock_guard lock(trainingMutex());
    auto result = std::make_unique<Model>();
    Model &impl = *result;
    // The network expects the reference's feature scaling; targets keep its scale too.
    impl.config = d->config;
    impl.featureMean = d->featureMean;
    impl.featureScale = d->featureScale;
    impl.targetMean = d->targetMean;
    impl.targetScale = d->targetScale;
    const torch::Tensor x = impl.inputs(target.x, 0, target.x.size());
    const int members = int(d->members.size());
    for (int m = 0; m < members; ++m) {
        if (callbacks.cancelled && callbacks.cancelled())
            throw Cancelled();
        Member member {std::dynamic_pointer_cast<MlpImpl>(d->members[m].net->clone()),
                       std::nullopt};
        member.net->eval();
        if (d->config.transfer == RegressorConfig::Transfer::RidgeHead) {
            RidgeHead head;
            // Every hidden layer is a basis, not only the last: the first layer's ReLUs bend at
            // other places of the mode space than the last one's, which a workload unlike the
            // reference needs (docs/prediction.md, "Every layer in the head"). Each layer is
            // scaled to unit RMS so one lambda grid fits every workload.
            {
                torch::NoGradGuard noGrad;
                for (const torch::Tensor &layer : member.net->activations(x))
                    head.layerScales.push_back(
                        layer.to(torch::kFloat64).pow(2).mean().sqrt().item<double>() + 1e-9);
            }
            head.hiddenScale = head.layerScales.back();
            // Across devices each clock's effect differs from the reference device's (another
            // GPU, CPU cluster and memory): the head gets a linear term per input to re-weight
            // them (docs/prediction.md, "Across devices").
            head.inputColumns = target.acrossDevices;
            head.samples = x;
            std::vector<double> y;
            for (double v : target.y)
                y.push_back(impl.transformTarget(v));
            fitRidge(impl.design(member, x, head), torch::tensor(y, torch::kFloat64), head);
            member.ridge = std::move(head);
            if (callbacks.epochDone)
                callbacks.epochDone(
                    {m, members, 1, 1, member.ridge->noiseVariance, member.ridge->noiseVariance});
        } else {
            torch::manual_seed(seed * 7919 + m);
            std::mt19937_64 rng(seed * 104729 + m);
            member.net->replaceHead();
            fit(member.net, x, impl.standardizedTargets(target.y), impl.config,
                impl.config.fineTuneEpochs, rng, callbacks, m, members);
        }
        impl.members.push_back(std::move(member));
    }
    return result;
}

Prediction predictModel(Model &model, const std::vector<Features> &x)
{
    Model *d = &model;
    if (d->members.empty())
        throw Error("predict: the model is empty");
    torch::NoGradGuard noGrad;
    Prediction prediction;
    prediction.mean.resize(x.size());
    prediction.stddev.resize(x.size());
    const int64_t members = int64_t(d->members.size());
    for (size_t begin = 0; begin < x.size(); begin += kPredictBatch) {
        const size_t end = std::min(x.size(), begin + kPredictBatch);
        const torch::Tensor input = d->inputs(x, begin, end);
        std::vector<torch::Tensor> means;
        std::vector<torch::Tensor> variances;
        for (int64_t m = 0; m < members; ++m) {
            Member &member = d->members[m];
            if (member.ridge) {
                const torch::Tensor z = d->design(member, input, *member.ridge);
                means.push_back(z.mv(member.ridge->weights));
                variances.push_back(member.ridge->noiseVariance *
                                    (1 + (z.mm(member.ridge->inverseGram) * z).sum(1)));
            } else {
                means.push_back(member.net->forward(input).squeeze(1).to(torch::kFloat64) *
                                    d->targetScale +
                                d->targetMean);
                variances.push_back(torch::zeros({int64_t(end - begin)}, torch::kFloat64));
            }
        }
        const torch::Tensor stacked = torch::stack(means);
        const torch::Tensor mean = stacked.mean(0);
        // Total variance: the members' own (head posterior) plus their disagreement.
        torch::Tensor variance = torch::stack(variances).mean(0);
        if (members > 1)
            variance = variance + stacked.var(0, /*unbiased=*/false);
        const auto meanData = mean.contiguous();
        const auto varianceData = variance.contiguous();
        const double *mu = meanData.data_ptr<double>();
        const double *var = varianceData.data_ptr<double>();
        for (size_t i = begin; i < end; ++i) {
            const double m = mu[i - begin];
            const double s = std::sqrt(std::max(0.0, var[i - begin]));
            if (d->config.logTarget) {
                prediction.mean[i] = std::exp(m);
                // exp(m) * sigma: a log-space sigma is a relative spread.
                prediction.stddev[i] = std::exp(m) * s;
            } else {
                prediction.mean[i] = m;
                prediction.stddev[i] = s;
            }
        }
    }
    return prediction;
}

std::vector<std::vector<float>> modelParameters(const Model &model, int member)
{
    const Model *d = &model;
    std::vector<std::vector<float>> out;
    for (const auto &parameter : d->members.at(member).net->parameters()) {
        const torch::Tensor flat = parameter.detach().to(torch::kFloat32).contiguous().view(-1);
        out.emplace_back(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
    }
    return out;
}

std::string serializeModel(const Model &model)
{
    const Model *d = &model;
    if (d->members.empty())
        throw Error("serialize: the model is empty");
    torch::serialize::OutputArchive archive;
    const RegressorConfig &c = d->config;
    archive.write("format", c10::IValue(int64_t(kFormatVersion)));
    archive.write("config.name", c10::IValue(c.name));
    archive.write("config.log_features", c10::IValue(c.logFeatures));
    archive.write("config.log_target", c10::IValue(c.logTarget));
    archive.write("config.hidden", torch::tensor(c.hidden, torch::kInt64));
    archive.write("config.dropout", c10::IValue(c.dropout));
    archive.write("config.learning_rate", c10::IValue(c.learningRate));
    archive.write("config.weight_decay", c10::IValue(c.weightDecay));
    archive.write("config.epochs", c10::IValue(int64_t(c.epochs)));
    archive.write("config.batch_size", c10::IValue(int64_t(c.batchSize)));
    archive.write("config.validation_fraction", c10::IValue(c.validationFraction));
    archive.write("config.ensemble", c10::IValue(int64_t(c.ensemble)));
    archive.write("config.transfer", c10::IValue(int64_t(c.transfer)));
    archive.write("config.fine_tune_epochs", c10::IValue(int64_t(c.fineTuneEpochs)));
    archive.write("scaler.feature_mean",
                  torch::tensor(std::vector<double>(d->featureMean.begin(), d->featureMean.end()),
                                torch::kFloat64));
    archive.write("scaler.feature_scale",
                  torch::tensor(std::vector<double>(d->featureScale.begin(), d->featureScale.end()),
                                torch::kFloat64));
    archive.write("scaler.target", torch::tensor({d->targetMean, d->targetScale}, torch::kFloat64));
    archive.write("members", c10::IValue(int64_t(d->members.size())));
    for (size_t m = 0; m < d->members.size(); ++m) {
        const Member &member = d->members[m];
        torch::serialize::OutputArchive net;
        member.net->save(net);
        archive.write("member" + std::to_string(m), net);
        if (member.ridge) {
            const std::string prefix = "ridge" + std::to_string(m) + ".";
            const RidgeHead &head = *member.ridge;
            archive.write(prefix + "weights", head.weights);
            archive.write(prefix + "numbers",
                          torch::tensor({head.hiddenScale, head.noiseVariance, head.lambda},
                                        torch::kFloat64));
            if (head.layerScales.empty()) {
                archive.write(prefix + "inverse_gram", head.inverseGram);
            } else {
                archive.write(prefix + "layer_scales",
                              torch::tensor(head.layerScales, torch::kFloat64));
                archive.write(prefix + "samples", head.samples);
            }
        }
    }
    std::ostringstream stream;
    archive.save_to(stream);
    return stream.str();
}

[[noreturn]] void damaged(const std::string &what)
{
    throw Error(what);
}

std::string dtypeName(const torch::Tensor &tensor)
{
    return std::string(c10::toString(tensor.scalar_type()));
}

// A stored tensor checked before use: on the CPU, of `dtype`, `dims` dimensions of the given
// sizes (-1: any size up to `maxNumel` elements in all), every value finite. Returned contiguous,
// so that a raw read of numel() values stays within it whatever strides the blob gave it.
torch::Tensor checked(const torch::Tensor &tensor, const std::string &key, torch::ScalarType dtype,
                      std::vector<int64_t> sizes, int64_t maxNumel)
{
    if (!tensor.defined())
        damaged(key + ": missing");
    if (!tensor.device().is_cpu())
        damaged(key + ": not a CPU tensor");
    if (tensor.scalar_type() != dtype) {
        damaged(key + ": " + dtypeName(tensor) + " values, expected " +
                std::string(c10::toString(dtype)));
    }
    if (tensor.dim() != int64_t(sizes.size())) {
        damaged(key + ": " + std::to_string(tensor.dim()) + " dimensions, expected " +
                std::to_string(sizes.size()));
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] >= 0 && tensor.size(int64_t(i)) != sizes[i]) {
            damaged(key + ": size " + std::to_string(tensor.size(int64_t(i))) + " in dimension " +
                    std::to_string(i + 1) + ", expected " + std::to_string(sizes[i]));
        }
    }
    if (tensor.numel() > maxNumel) {
        damaged(key + ": " + std::to_string(tensor.numel()) + " values, expected at most " +
                std::to_string(maxNumel));
    }
    const torch::Tensor out = tensor.contiguous();
    if (out.numel() > 0 && !torch::isfinite(out).all().item<bool>())
        damaged(key + ": values that are not finite numbers");
    return out;
}

torch::Tensor readChecked(torch::serialize::InputArchive &archive, const std::string &key,
                          torch::ScalarType dtype, std::vector<int64_t> sizes,
                          int64_t maxNumel = kMaxLayerWidth * kMaxLayerWidth)
{
    torch::Tensor tensor;
    if (!archive.try_read(key, tensor))
        damaged(key + ": missing or not a tensor");
    return checked(tensor, key, dtype, std::move(sizes), maxNumel);
}

void checkRange(const std::string &key, double value, double min, double max)
{
    if (!std::isfinite(value) || value < min || value > max) {
        std::ostringstream text;
        text << key << ": " << value << ", expected " << min << " to " << max;
        damaged(text.str());
    }
}

// The configuration as far as loading and transfer use it: layer sizes size allocations, the
// batch size a loop's step.
void checkConfig(const RegressorConfig &c)
{
    if (c.hidden.empty() || int64_t(c.hidden.size()) > kMaxLayers) {
        damaged("config.hidden: " + std::to_string(c.hidden.size()) + " layers, expected 1 to " +
                std::to_string(kMaxLayers));
    }
    for (size_t i = 0; i < c.hidden.size(); ++i)
        checkRange("config.hidden[" + std::to_string(i) + "]", double(c.hidden[i]), 1,
                   double(kMaxLayerWidth));
    checkRange("config.dropout", c.dropout, 0, 0.99);
    checkRange("config.learning_rate", c.learningRate, 1e-12, 1e3);
    checkRange("config.weight_decay", c.weightDecay, 0, 1e3);
    checkRange("config.epochs", c.epochs, 0, double(kMaxEpochs));
    checkRange("config.batch_size", c.batchSize, 1, double(kMaxBatchSize));
    checkRange("config.validation_fraction", c.validationFraction, 0, 0.9);
    checkRange("config.ensemble", c.ensemble, 1, double(kMaxMembers));
    checkRange("config.fine_tune_epochs", c.fineTuneEpochs, 0, double(kMaxEpochs));
    if (c.transfer != RegressorConfig::Transfer::FineTune &&
        c.transfer != RegressorConfig::Transfer::RidgeHead)
        damaged("config.transfer: " + std::to_string(int(c.transfer)) + ", expected 0 or 1");
}

// A loaded member's parameters have the shapes its configuration gives (Module::load takes
// whatever shape the blob holds).
void checkMember(const Mlp &net, const std::string &member)
{
    int64_t previous = kFeatureCount;
    for (size_t i = 0; i < net->layers.size(); ++i) {
        const std::string prefix = member + ".fc" + std::to_string(i);
        checked(net->layers[i]->weight, prefix + ".weight", torch::kFloat32,
                {net->sizes[i], previous}, kMaxLayerWidth * kMaxLayerWidth);
        checked(net->layers[i]->bias, prefix + ".bias", torch::kFloat32, {net->sizes[i]},
                kMaxLayerWidth);
        previous = net->sizes[i];
    }
    checked(net->head->weight, member + ".head.weight", torch::kFloat32, {1, previous},
            kMaxLayerWidth);
    checked(net->head->bias, member + ".head.bias", torch::kFloat32, {1}, 1);
}

std::unique_ptr<Model> deserializeModel(const std::string &bytes)
{
    auto model = std::make_unique<Model>();
    Model &impl = *model;
    try {
        std::istringstream stream(bytes);
        torch::serialize::InputArchive archive;
        archive.load_from(stream);
        c10::IValue value;
        const auto readInt = [&](const char *key) {
            archive.read(key, value);
            return value.toInt();
        };
        const auto readDouble = [&](const char *key) {
            archive.read(key, value);
            return value.toDouble();
        };
        const auto readBool = [&](const char *key) {
            archive.read(key, value);
            return value.toBool();
        };
        if (readInt("format") != kFormatVersion)
            throw Error("unsupported model format " + std::to_string(value.toInt()));
        RegressorConfig &c = impl.config;
        archive.read("config.name", value);
        c.name = value.toStringRef();
        c.logFeatures = readBool("config.log_features");
        c.logTarget = readBool("config.log_target");
        const torch::Tensor hidden =
            readChecked(archive, "config.hidden", torch::kInt64, {-1}, kMaxLayers);
        c.hidden.assign(hidden.data_ptr<int64_t>(), hidden.data_ptr<int64_t>() + hidden.numel());
        c.dropout = readDouble("config.dropout");
        c.learningRate = readDouble("config.learning_rate");
        c.weightDecay = readDouble("config.weight_decay");
        c.epochs = int(readInt("config.epochs"));
        c.batchSize = int(readInt("config.batch_size"));
        c.validationFraction = readDouble("config.validation_fraction");
        c.ensemble = int(readInt("config.ensemble"));
        c.transfer = RegressorConfig::Transfer(readInt("config.transfer"));
        c.fineTuneEpochs = int(readInt("config.fine_tune_epochs"));
        checkConfig(c);
        torch::Tensor tensor =
            readChecked(archive, "scaler.feature_mean", torch::kFloat64, {kFeatureCount});
        std::copy_n(tensor.data_ptr<double>(), kFeatureCount, impl.featureMean.begin());
        tensor = readChecked(archive, "scaler.feature_scale", torch::kFloat64, {kFeatureCount});
        std::copy_n(tensor.data_ptr<double>(), kFeatureCount, impl.featureScale.begin());
        for (int f = 0; f < kFeatureCount; ++f)
            checkRange("scaler.feature_scale", impl.featureScale[f], 1e-300, 1e300);
        tensor = readChecked(archive, "scaler.target", torch::kFloat64, {2});
        impl.targetMean = tensor[0].item<double>();
        impl.targetScale = tensor[1].item<double>();
        checkRange("scaler.target scale", impl.targetScale, 1e-300, 1e300);
        const int64_t members = readInt("members");
        checkRange("members", double(members), 1, double(kMaxMembers));
        const int64_t hiddenUnits = std::accumulate(c.hidden.begin(), c.hidden.end(), int64_t(0));
        for (int64_t m = 0; m < members; ++m) {
            Member member {Mlp(c.hidden, c.dropout), std::nullopt};
            torch::serialize::InputArchive net;
            archive.read("member" + std::to_string(m), net);
            member.net->load(net);
            member.net->eval();
            checkMember(member.net, "member" + std::to_string(m));
            const std::string prefix = "ridge" + std::to_string(m) + ".";
            torch::Tensor weights;
            if (archive.try_read(prefix + "weights", weights)) {
                RidgeHead head;
                head.weights = checked(weights, prefix + "weights", torch::kFloat64, {-1},
                                       2 + kFeatureCount + hiddenUnits);
                tensor = readChecked(archive, prefix + "numbers", torch::kFloat64, {3});
                head.hiddenScale = tensor[0].item<double>();
                head.noiseVariance = tensor[1].item<double>();
                checkRange(prefix + "numbers (hidden scale)", head.hiddenScale, 1e-300, 1e300);
                checkRange(prefix + "numbers (noise variance)", head.noiseVariance, 0, 1e300);
                torch::Tensor layerScales;
                // Its design's columns: an intercept, the reference output, the inputs (when
                // across devices), the hidden units used.
                int64_t columns = 2;
                if (archive.try_read(prefix + "layer_scales", layerScales)) {
                    head.lambda = tensor[2].item<double>();
                    checkRange(prefix + "numbers (lambda)", head.lambda, 0, 1e300);
                    layerScales = checked(layerScales, prefix + "layer_scales", torch::kFloat64,
                                          {int64_t(c.hidden.size())}, kMaxLayers);
                    head.layerScales.assign(layerScales.data_ptr<double>(),
                                            layerScales.data_ptr<double>() + layerScales.numel());
                    for (double scale : head.layerScales)
                        checkRange(prefix + "layer_scales", scale, 1e-300, 1e300);
                    head.samples =
                        readChecked(archive, prefix + "samples", torch::kFloat32,
                                    {-1, kFeatureCount}, kMaxHeadSamples * kFeatureCount);
                    if (head.samples.size(0) < 1)
                        damaged(prefix + "samples: none");
                    head.inputColumns = weights.numel() == 2 + kFeatureCount + hiddenUnits;
                    columns += (head.inputColumns ? kFeatureCount : 0) + hiddenUnits;
                } else {
                    head.inputColumns = weights.numel() == 2 + kFeatureCount + c.hidden.back();
                    columns += (head.inputColumns ? kFeatureCount : 0) + c.hidden.back();
                    head.inverseGram = readChecked(archive, prefix + "inverse_gram",
                                                   torch::kFloat64, {columns, columns});
                }
                if (head.weights.numel() != columns) {
                    damaged(prefix + "weights: " + std::to_string(head.weights.numel()) +
                            " values, expected " + std::to_string(columns));
                }
                if (!head.layerScales.empty()) {
                    head.inverseGram =
                        ridgeInverse(impl.design(member, head.samples, head), head.lambda);
                }
                member.ridge = head;
            }
            impl.members.push_back(std::move(member));
        }
    } catch (const Error &) {
        throw;
    } catch (const c10::Error &error) {
        // Without the C++ backtrace torch appends to what().
        throw Error(std::string("not a readable model: ") + error.what_without_backtrace());
    } catch (const std::exception &error) {
        throw Error(std::string("not a readable model: ") + error.what());
    }
    return model;
}

}  // namespace

// The engine model is the internal Model; the API only ever hands out pointers to it.
struct EngineModel : Model
{
};

namespace {

template<typename Work>
auto guarded(EngineStatus &status, Work work) -> decltype(work())
{
    try {
        status = {};
        return work();
    } catch (const Cancelled &error) {
        status = {EngineStatus::WasCancelled, error.what()};
    } catch (const std::exception &error) {
        status = {EngineStatus::Failed, error.what()};
    }
    return decltype(work())();
}

EngineModel *adopt(std::unique_ptr<Model> model)
{
    auto *out = new EngineModel;
    static_cast<Model &>(*out) = std::move(*model);
    return out;
}

const EngineApi kApi = {
    kEngineAbiVersion,
    [](int threads) { setThreadCount(threads); },
    [](const RegressorConfig &config, const Dataset &data, uint64_t seed,
       const Callbacks &callbacks, EngineStatus &status) {
        return guarded(status, [&] { return adopt(trainModel(config, data, seed, callbacks)); });
    },
    [](const EngineModel &reference, const Dataset &target, uint64_t seed,
       const Callbacks &callbacks, EngineStatus &status) {
        return guarded(status,
                       [&] { return adopt(transferModel(reference, target, seed, callbacks)); });
    },
    [](const EngineModel &model, const std::vector<Features> &x, Prediction &out,
       EngineStatus &status) {
        // Inference only reads the weights; torch's module API is not const-qualified.
        guarded(status, [&] { out = predictModel(const_cast<EngineModel &>(model), x); });
    },
    [](const EngineModel &model, std::string &out, EngineStatus &status) {
        guarded(status, [&] { out = serializeModel(model); });
    },
    [](const std::string &bytes, EngineStatus &status) {
        return guarded(status, [&] { return adopt(deserializeModel(bytes)); });
    },
    [](const EngineModel &model) -> const RegressorConfig & { return model.config; },
    [](const EngineModel &model, int member, std::vector<std::vector<float>> &out,
       EngineStatus &status) { guarded(status, [&] { out = modelParameters(model, member); }); },
    [](EngineModel *model) { delete model; },
};

}  // namespace

}  // namespace ptwb::predict

extern "C" __attribute__((visibility("default"))) const ptwb::predict::EngineApi *
ptwb_predict_engine_api()
{
    return &ptwb::predict::kApi;
}
