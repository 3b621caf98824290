// The saved workload definitions in the store (issue 20): add refuses a taken or built-in name,
// update renames, remove keeps the measurements, duplicate picks a free name.
#include "store/store.h"
#include "store/workloadlibrary.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

WorkloadDefinition marker(const QString &name)
{
    WorkloadDefinition d;
    d.name = name;
    d.argv = {QStringLiteral("python3"), QStringLiteral("train.py"), QStringLiteral("--log"),
              QStringLiteral("marker")};
    d.workingDirectory = QStringLiteral("~/run");
    d.environment = {{QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0")}};
    return d;
}

Measurement sample()
{
    Measurement m;
    m.mode = {12, 2201600, 1300500000, 3199000000};
    m.timeMs = 100;
    m.powerW = 30;
    m.source = QStringLiteral("import");
    return m;
}

}  // namespace

class TestWorkloadLibrary : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_count = 0;

    std::unique_ptr<Store> freshStore()
    {
        auto store = Store::open(m_dir.filePath(QStringLiteral("w%1.sqlite").arg(++m_count)));
        return store ? std::move(store).value() : nullptr;
    }

private Q_SLOTS:
    void addedDefinitionsReadBackByName()
    {
        auto store = freshStore();
        QVERIFY(store);
        WorkloadLibrary library(*store);
        WorkloadDefinition tqdm = marker(QStringLiteral("b-tqdm"));
        tqdm.recogniser = WorkloadDefinition::Recogniser::Regex;
        tqdm.pattern = QStringLiteral("(?P<rate>[0-9.]+)it/s");
        tqdm.unit = WorkloadDefinition::RateUnit::PerSecond;
        tqdm.deviceKind = QStringLiteral("orin-agx");
        QVERIFY(library.add(marker(QStringLiteral("c-marker"))).ok());
        QVERIFY(library.add(tqdm).ok());
        const auto all = library.all();
        QVERIFY2(all, qPrintable(all.error()));
        QCOMPARE(all->size(), 2);
        QCOMPARE(all->at(0).name, QStringLiteral("b-tqdm"));  // by name
        QVERIFY(all->at(0) == tqdm);
        QVERIFY(!all->at(0).createdAt.isEmpty());
        QCOMPARE(all->at(0).createdAt, all->at(0).updatedAt);
        const auto found = library.find(QStringLiteral("c-marker"));
        QVERIFY(found && found->has_value());
        QVERIFY(**found == marker(QStringLiteral("c-marker")));
        QVERIFY(!library.find(QStringLiteral("nothing"))->has_value());
        // the device kind is its own column too
        QCOMPARE(*store->connection().queryInt(QStringLiteral(
                     "SELECT count(*) FROM workload_definitions WHERE device_kind = 'orin-agx'")),
                 qint64(1));
    }

    void addRefusesTakenBuiltinAndUnrunnableDefinitions()
    {
        auto store = freshStore();
        WorkloadLibrary library(*store);
        QVERIFY(library.add(marker(QStringLiteral("mine"))).ok());
        const Status taken = library.add(marker(QStringLiteral("mine")));
        QVERIFY(!taken);
        QCOMPARE(taken.errorKind(), ErrorKind::BadInput);
        QCOMPARE(taken.field(), InputField::Workload);
        QVERIFY2(taken.error().contains(QLatin1String("exists already")),
                 qPrintable(taken.error()));
        const Status builtin = library.add(marker(QStringLiteral("resnet18-inference")));
        QVERIFY(!builtin);
        QVERIFY2(builtin.error().contains(QLatin1String("built-in")), qPrintable(builtin.error()));
        WorkloadDefinition secret = marker(QStringLiteral("secret"));
        secret.environment.append({QStringLiteral("WANDB_API_KEY"), QStringLiteral("abc")});
        const Status refused = library.add(secret);
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QLatin1String("env[2]: WANDB_API_KEY looks like a "
                                                        "secret")),
                 qPrintable(refused.error()));
        QCOMPARE(library.all()->size(), 1);
        // nothing of the refused secret reached the file
        QCOMPARE(*store->connection().queryInt(QStringLiteral(
                     "SELECT count(*) FROM workload_definitions WHERE definition LIKE '%WANDB%'")),
                 qint64(0));
    }

    void updateChangesAndRenamesKeepingItsCreation()
    {
        auto store = freshStore();
        WorkloadLibrary library(*store);
        QVERIFY(library.add(marker(QStringLiteral("old"))).ok());
        QVERIFY(library.add(marker(QStringLiteral("other"))).ok());
        const QString created = (*library.find(QStringLiteral("old")))->createdAt;
        WorkloadDefinition changed = marker(QStringLiteral("new"));
        changed.keep = 80;
        QVERIFY(library.update(QStringLiteral("old"), changed).ok());
        QVERIFY(!library.find(QStringLiteral("old"))->has_value());
        const auto renamed = library.find(QStringLiteral("new"));
        QVERIFY(renamed->has_value());
        QCOMPARE((*renamed)->keep, 80);
        QCOMPARE((*renamed)->createdAt, created);
        // onto another's name, or of one that is not there: refused, nothing changed
        const Status clash = library.update(QStringLiteral("new"), marker(QStringLiteral("other")));
        QVERIFY(!clash);
        QCOMPARE(clash.field(), InputField::Workload);
        QVERIFY(library.find(QStringLiteral("new"))->has_value());
        const Status missing = library.update(QStringLiteral("gone"), marker(QStringLiteral("x")));
        QVERIFY(!missing);
        QVERIFY2(missing.error().contains(QLatin1String("'gone'")), qPrintable(missing.error()));
        QVERIFY(!library.find(QStringLiteral("x"))->has_value());
    }

    void removeKeepsTheMeasurementsOfItsName()
    {
        auto store = freshStore();
        WorkloadLibrary library(*store);
        QVERIFY(library.add(marker(QStringLiteral("mine"))).ok());
        const QVector<Measurement> rows {sample()};
        QVERIFY(store
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("mine"), QStringLiteral("mine.csv"),
                                QStringLiteral("ab"), rows)
                    .ok());
        QVERIFY(library.remove(QStringLiteral("mine")).ok());
        QVERIFY(!library.find(QStringLiteral("mine"))->has_value());
        QCOMPARE(store->measurements(QStringLiteral("orin-agx"), QStringLiteral("mine"))->size(),
                 1);
        const Status again = library.remove(QStringLiteral("mine"));
        QVERIFY(!again);
        QCOMPARE(again.errorKind(), ErrorKind::BadInput);
    }

    void duplicateTakesTheNextFreeCopyName()
    {
        auto store = freshStore();
        WorkloadLibrary library(*store);
        QVERIFY(library.add(marker(QStringLiteral("mine"))).ok());
        const auto first = library.duplicate(QStringLiteral("mine"));
        QVERIFY2(first, qPrintable(first.error()));
        QCOMPARE(first->name, QStringLiteral("mine-copy"));
        QCOMPARE(first->argv, marker(QStringLiteral("x")).argv);
        const auto second = library.duplicate(QStringLiteral("mine"));
        QVERIFY(second);
        QCOMPARE(second->name, QStringLiteral("mine-copy-2"));
        QCOMPARE(library.all()->size(), 3);
        // a long name is cut to leave room for the suffix
        const QString longName(64, QLatin1Char('a'));
        QVERIFY(library.add(marker(longName)).ok());
        const auto cut = library.duplicate(longName);
        QVERIFY2(cut, qPrintable(cut.error()));
        QCOMPARE(cut->name.size(), 64);
        QVERIFY(cut->name.endsWith(QLatin1String("-copy")));
        QVERIFY(!library.duplicate(QStringLiteral("none")));
    }
};

QTEST_GUILESS_MAIN(TestWorkloadLibrary)
#include "test_workloadlibrary.moc"
