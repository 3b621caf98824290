// A model's weights are read from the store, which may be damaged or crafted: every tensor is
// checked (dtype, size, limits on layer sizes) before use, and a bad blob gives "model N in the
// store is damaged: FIELD: what was wrong", never a read out of bounds or a huge allocation
// (issue 21, finding 9). The blobs are crafted here with libtorch's own archive, stored in a real
// SQLite store and loaded the way every view and command loads them.
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "predict/powermodel.h"
#include "store/store.h"

#include <QTemporaryDir>
#include <QTest>

#include <torch/torch.h>

#include <sstream>

using namespace ptwb;

namespace {

// What to get wrong in an otherwise valid blob.
enum class Craft {
    None,
    FeatureMeanTwoValues,
    FeatureMeanFloat,
    HiddenHuge,
    HiddenEmpty,
    HiddenFloat,
    MemberShape,
    MembersHuge,
    BatchSizeZero,
    TargetNotFinite,
    Truncated,
    Garbage,
};

std::string blob(Craft craft)
{
    torch::serialize::OutputArchive archive;
    const std::vector<int64_t> hidden = craft == Craft::HiddenHuge
        ? std::vector<int64_t> {int64_t(1) << 40}
        : craft == Craft::HiddenEmpty ? std::vector<int64_t> {}
                                      : std::vector<int64_t> {8};
    archive.write("format", c10::IValue(int64_t(1)));
    archive.write("config.name", c10::IValue(std::string("baseline")));
    archive.write("config.log_features", c10::IValue(false));
    archive.write("config.log_target", c10::IValue(false));
    archive.write("config.hidden",
                  craft == Craft::HiddenFloat ? torch::tensor({8.0f}, torch::kFloat32)
                                              : torch::tensor(hidden, torch::kInt64));
    archive.write("config.dropout", c10::IValue(0.0));
    archive.write("config.learning_rate", c10::IValue(1e-3));
    archive.write("config.weight_decay", c10::IValue(0.0));
    archive.write("config.epochs", c10::IValue(int64_t(10)));
    archive.write("config.batch_size",
                  c10::IValue(int64_t(craft == Craft::BatchSizeZero ? 0 : 32)));
    archive.write("config.validation_fraction", c10::IValue(0.1));
    archive.write("config.ensemble", c10::IValue(int64_t(1)));
    archive.write("config.transfer", c10::IValue(int64_t(0)));
    archive.write("config.fine_tune_epochs", c10::IValue(int64_t(10)));
    if (craft == Craft::FeatureMeanTwoValues) {
        archive.write("scaler.feature_mean", torch::tensor({1.0, 2.0}, torch::kFloat64));
    } else if (craft == Craft::FeatureMeanFloat) {
        archive.write("scaler.feature_mean", torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}));
    } else {
        archive.write("scaler.feature_mean", torch::tensor({4.0, 1e6, 5e8, 1e9}, torch::kFloat64));
    }
    archive.write("scaler.feature_scale", torch::tensor({2.0, 5e5, 3e8, 1e9}, torch::kFloat64));
    archive.write(
        "scaler.target",
        torch::tensor({100.0, craft == Craft::TargetNotFinite ? NAN : 20.0}, torch::kFloat64));
    archive.write("members", c10::IValue(int64_t(craft == Craft::MembersHuge ? 1000000000 : 1)));
    auto net = std::make_shared<torch::nn::Module>();
    net->register_module("fc0", torch::nn::Linear(4, craft == Craft::MemberShape ? 16 : 8));
    net->register_module("head", torch::nn::Linear(8, 1));
    torch::serialize::OutputArchive member;
    net->save(member);
    archive.write("member0", member);
    std::ostringstream stream;
    archive.save_to(stream);
    std::string bytes = stream.str();
    if (craft == Craft::Truncated)
        bytes.resize(bytes.size() / 2);
    if (craft == Craft::Garbage)
        bytes = std::string(4096, '\x42');
    return bytes;
}

}  // namespace

class TestModelBlobs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto store = Store::open(m_dir.filePath(QStringLiteral("models.sqlite")));
        QVERIFY2(store, qPrintable(store.error()));
        m_store = std::move(store).value();
    }

    void aValidBlobLoadsAndPredicts()
    {
        const Expected<PowerModel> model = load(Craft::None);
        QVERIFY2(model, qPrintable(model.error()));
        const ModeSpace space(DeviceSpec::builtin(QStringLiteral("orin-agx")).value());
        QVERIFY(model->predict(space));
    }

    void aCraftedBlobIsRefusedByName_data()
    {
        QTest::addColumn<int>("craft");
        QTest::addColumn<QString>("error");
        QTest::newRow("feature mean of 2 values")
            << int(Craft::FeatureMeanTwoValues)
            << "scaler.feature_mean: size 2 in dimension 1, expected 4";
        QTest::newRow("feature mean of floats")
            << int(Craft::FeatureMeanFloat) << "scaler.feature_mean: Float values, expected Double";
        QTest::newRow("a layer of 2^40 units")
            << int(Craft::HiddenHuge) << "config.hidden[0]: 1.09951e+12, expected 1 to 4096";
        QTest::newRow("no layer") << int(Craft::HiddenEmpty) << "config.hidden: 0 layers";
        QTest::newRow("layer sizes as floats")
            << int(Craft::HiddenFloat) << "config.hidden: Float values, expected Long";
        QTest::newRow("weights of another shape")
            << int(Craft::MemberShape) << "member0.fc0.weight: size 16 in dimension 1, expected 8";
        QTest::newRow("a billion members") << int(Craft::MembersHuge) << "members: 1e+09";
        QTest::newRow("batch size 0") << int(Craft::BatchSizeZero) << "config.batch_size: 0";
        QTest::newRow("target scale nan")
            << int(Craft::TargetNotFinite) << "scaler.target: values that are not finite";
        QTest::newRow("truncated bytes") << int(Craft::Truncated) << "not a readable model";
        QTest::newRow("garbage bytes") << int(Craft::Garbage) << "not a readable model";
    }

    void aCraftedBlobIsRefusedByName()
    {
        QFETCH(int, craft);
        QFETCH(QString, error);
        qint64 id = 0;
        const Expected<PowerModel> model = load(Craft(craft), &id);
        QVERIFY(!model);
        QVERIFY2(
            model.error().startsWith(QStringLiteral("model %1 in the store is damaged: ").arg(id)),
            qPrintable(model.error()));
        QVERIFY2(model.error().contains(error), qPrintable(model.error()));
        // No torch backtrace in a message meant for a person.
        QVERIFY2(!model.error().contains(QLatin1String("frame #")), qPrintable(model.error()));
    }

private:
    // Stores a model whose time weights are `craft`'s blob and loads it back.
    Expected<PowerModel> load(Craft craft, qint64 *idOut = nullptr)
    {
        ModelRecord record;
        record.device = QStringLiteral("orin");
        record.deviceKind = QStringLiteral("orin-agx");
        record.workload = QStringLiteral("resnet18");
        record.method = QStringLiteral("nn");
        record.config = QStringLiteral("baseline");
        record.featureLayout = QStringLiteral("raw:cores,cpu_khz,gpu_hz,emc_hz");
        const std::string time = blob(craft);
        const std::string power = blob(Craft::None);
        record.timeModel = QByteArray(time.data(), qsizetype(time.size()));
        record.powerModel = QByteArray(power.data(), qsizetype(power.size()));
        const Expected<qint64> id = m_store->saveModel(record);
        if (!id)
            return Expected<PowerModel>::failure(id.error());
        if (idOut)
            *idOut = *id;
        const Expected<ModelRecord> stored = m_store->model(*id);
        if (!stored)
            return Expected<PowerModel>::failure(stored.error());
        return PowerModel::fromRecord(*stored);
    }

    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;
};

QTEST_GUILESS_MAIN(TestModelBlobs)
#include "test_modelblobs.moc"
