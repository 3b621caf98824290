#include "batchcompareform.h"

#include "util/numberrange.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace ptwb::ui {

namespace {

const QString kCapsExample = QStringLiteral("20,30,40");

QString key(const char *name)
{
    return QStringLiteral("compareBatch/") + QLatin1String(name);
}

// What each strategy does, for its tooltip (docs/optimization.md has the details).
QString describe(const QString &strategy)
{
    static const QHash<QString, QString> text {
        {QStringLiteral("oracle"),
         QObject::tr("The best (mode, batch) on every measurement and the true samples to "
                     "accuracy: the ground truth")},
        {QStringLiteral("largest"),
         QObject::tr("The largest batch size, the GPU clock capped for power (the study's "
                     "practice)")},
        {QStringLiteral("proxy"),
         QObject::tr("The same mode, with the batch size the proxy samples say is fastest")},
        {QStringLiteral("pt"),
         QObject::tr("PowerTrain: the reference transferred to each batch size with N profiled "
                     "modes (needs a reference)")},
        {QStringLiteral("observed"),
         QObject::tr("The best of the N profiled modes per batch size")},
    };
    return text.value(strategy);
}

}  // namespace

BatchCompareForm::BatchCompareForm(QWidget *parent)
    : QWidget(parent)
    , m_workload(new QComboBox(this))
    , m_reference(new QComboBox(this))
    , m_caps(new QLineEdit(this))
    , m_objective(new QComboBox(this))
    , m_samples(new QSpinBox(this))
    , m_repeats(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_proxy(new QLineEdit(this))
    , m_strategies(new QListWidget(this))
{
    m_workload->setToolTip(tr("The workload measured at every mode of each batch size, with its "
                              "samples-to-accuracy relation: the truth every pick is scored on"));
    m_reference->setToolTip(tr("The reference pt transfers to each batch size (a batch view such "
                               "as resnet18@16); trained for the run"));
    m_caps->setToolTip(tr("Caps on the peak power, W: a list (20,30,40) or FROM:TO:STEP"));
    m_caps->setPlaceholderText(kCapsExample);
    m_objective->addItem(tr("Time to accuracy"), int(AccuracyObjective::Time));
    m_objective->addItem(tr("Energy to accuracy"), int(AccuracyObjective::Energy));
    m_samples->setRange(2, 10000);
    m_samples->setToolTip(tr("Profiled modes per batch size, for pt and observed"));
    m_repeats->setRange(1, 1000);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_proxy->setPlaceholderText(tr("the stored relation"));
    m_proxy->setToolTip(tr("What a proxy run measured (a convergence CSV): what every strategy "
                           "but the oracle knows. Empty: the stored relation"));
    auto *browse = new QPushButton(tr("Bro&wse…"), this);
    connect(browse, &QPushButton::clicked, this, &BatchCompareForm::chooseProxyFile);
    auto *proxyRow = new QHBoxLayout;
    proxyRow->addWidget(m_proxy, 1);
    proxyRow->addWidget(browse);

    for (const QString &name : BatchEvaluator::strategyNames()) {
        auto *item = new QListWidgetItem(name, m_strategies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setToolTip(describe(name));
    }
    m_strategies->setToolTip(tr("Strategies to compare"));
    m_strategies->setFlow(QListView::LeftToRight);
    m_strategies->setWrapping(true);
    m_strategies->setMaximumHeight(60);

    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("&Workload"), m_workload);
    form->addRow(tr("Re&ference"), m_reference);
    form->addRow(tr("Power &caps"), m_caps);
    form->addRow(tr("&Objective"), m_objective);
    form->addRow(tr("&Samples"), m_samples);
    form->addRow(tr("Re&peats"), m_repeats);
    form->addRow(tr("S&eed"), m_seed);
    // The row is a line edit and a button: the label's mnemonic goes to the line edit.
    auto *proxyLabel = new QLabel(tr("Pro&xy samples"), this);
    proxyLabel->setBuddy(m_proxy);
    form->addRow(proxyLabel, proxyRow);
    form->addRow(tr("Strategies"), m_strategies);

    // The remembered choices (the workloads once they are listed).
    m_restoring = true;
    const QSettings settings;
    m_caps->setText(settings.value(key("caps"), kCapsExample).toString());
    m_objective->setCurrentIndex(settings.value(key("objective"), 0).toInt() == 1 ? 1 : 0);
    m_samples->setValue(settings.value(key("samples"), 20).toInt());
    m_repeats->setValue(settings.value(key("repeats"), 5).toInt());
    m_seed->setValue(settings.value(key("seed"), 0).toInt());
    m_proxy->setText(settings.value(key("proxySamples")).toString());
    if (settings.contains(key("strategies")))
        setStrategies(settings.value(key("strategies")).toStringList());
    m_restoring = false;

    const auto edited = [this] {
        if (m_restoring)
            return;
        save();
        Q_EMIT changed();
    };
    connect(m_workload, &QComboBox::currentIndexChanged, this, edited);
    connect(m_reference, &QComboBox::currentIndexChanged, this, edited);
    connect(m_caps, &QLineEdit::textChanged, this, edited);
    connect(m_objective, &QComboBox::currentIndexChanged, this, edited);
    connect(m_samples, &QSpinBox::valueChanged, this, edited);
    connect(m_repeats, &QSpinBox::valueChanged, this, edited);
    connect(m_seed, &QSpinBox::valueChanged, this, edited);
    connect(m_proxy, &QLineEdit::textChanged, this, edited);
    connect(m_strategies, &QListWidget::itemChanged, this, edited);
}

void BatchCompareForm::setWorkloads(const QVector<WorkloadSummary> &summaries)
{
    const QSettings settings;
    const QString workload = m_workload->count() > 0 ? m_workload->currentData().toString()
                                                     : settings.value(key("workload")).toString();
    const QString reference = m_reference->count() > 0
        ? m_reference->currentData().toString()
        : settings.value(key("reference")).toString();
    m_restoring = true;
    m_workload->clear();
    m_reference->clear();
    m_reference->addItem(tr("(none: no pt)"), QString());
    for (const WorkloadSummary &s : summaries) {
        if (s.mixesBatches())
            m_workload->addItem(
                tr("%1 (%n batch sizes)", nullptr, int(s.trainingBatches.size())).arg(s.workload),
                s.workload);
        else if (s.isTrainable())
            m_reference->addItem(tr("%1 (%2 modes)").arg(s.workload).arg(s.distinctModes),
                                 s.workload);
    }
    const int w = m_workload->findData(workload);
    if (w >= 0)
        m_workload->setCurrentIndex(w);
    const int r = m_reference->findData(reference);
    m_reference->setCurrentIndex(r >= 0 ? r : 0);
    m_restoring = false;
    Q_EMIT changed();
}

bool BatchCompareForm::hasWorkload() const
{
    return m_workload->count() > 0;
}

Expected<workflows::BatchEvaluationRequest> BatchCompareForm::request() const
{
    using Result = Expected<workflows::BatchEvaluationRequest>;
    workflows::BatchEvaluationRequest request;
    request.workload = m_workload->currentData().toString();
    request.referenceWorkload = m_reference->currentData().toString();
    request.proxySamplesFile = m_proxy->text().trimmed();
    const Expected<QVector<double>> caps =
        parseNumberRange(m_caps->text(), InputField::Budgets, kCapsExample);
    if (!caps)
        return passOn<Result>(caps);
    request.options.capsW = *caps;
    request.options.objective = AccuracyObjective(m_objective->currentData().toInt());
    request.options.samples = m_samples->value();
    request.options.repeats = m_repeats->value();
    request.options.seed = quint64(m_seed->value());
    for (int i = 0; i < m_strategies->count(); ++i) {
        if (m_strategies->item(i)->checkState() == Qt::Checked)
            request.options.strategies.append(m_strategies->item(i)->text());
    }
    if (request.options.strategies.isEmpty())
        return Result::badInput(InputField::Strategies, tr("check at least one strategy"));
    return request;
}

bool BatchCompareForm::setWorkload(const QString &workload)
{
    const int row = m_workload->findData(workload);
    if (row >= 0)
        m_workload->setCurrentIndex(row);
    return row >= 0;
}

bool BatchCompareForm::setReference(const QString &workload)
{
    const int row = m_reference->findData(workload);
    if (row >= 0)
        m_reference->setCurrentIndex(row);
    return row >= 0;
}

void BatchCompareForm::setCaps(const QString &text)
{
    m_caps->setText(text);
}

void BatchCompareForm::setObjective(AccuracyObjective objective)
{
    m_objective->setCurrentIndex(m_objective->findData(int(objective)));
}

void BatchCompareForm::setSamples(int samples)
{
    m_samples->setValue(samples);
}

void BatchCompareForm::setRepeats(int repeats)
{
    m_repeats->setValue(repeats);
}

void BatchCompareForm::setSeed(quint64 seed)
{
    m_seed->setValue(int(seed));
}

void BatchCompareForm::setProxySamplesFile(const QString &path)
{
    m_proxy->setText(path);
}

void BatchCompareForm::setStrategies(const QStringList &strategies)
{
    for (int i = 0; i < m_strategies->count(); ++i) {
        QListWidgetItem *item = m_strategies->item(i);
        item->setCheckState(strategies.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
}

QString BatchCompareForm::fieldName(InputField field)
{
    switch (field) {
    case InputField::Workload:
        return tr("Workload");
    case InputField::Reference:
        return tr("Reference");
    case InputField::Budgets:
        return tr("Power caps");
    case InputField::Training:  // the workflow's word for the proxy samples file
        return tr("Proxy samples");
    case InputField::Samples:
        return tr("Samples");
    case InputField::Repeats:
        return tr("Repeats");
    case InputField::Seed:
        return tr("Seed");
    case InputField::Strategies:
        return tr("Strategies");
    default:
        return {};
    }
}

void BatchCompareForm::save() const
{
    QSettings settings;
    settings.setValue(key("workload"), m_workload->currentData().toString());
    settings.setValue(key("reference"), m_reference->currentData().toString());
    settings.setValue(key("caps"), m_caps->text());
    settings.setValue(key("objective"), m_objective->currentIndex());
    settings.setValue(key("samples"), m_samples->value());
    settings.setValue(key("repeats"), m_repeats->value());
    settings.setValue(key("seed"), m_seed->value());
    settings.setValue(key("proxySamples"), m_proxy->text());
    QStringList checked;
    for (int i = 0; i < m_strategies->count(); ++i) {
        if (m_strategies->item(i)->checkState() == Qt::Checked)
            checked.append(m_strategies->item(i)->text());
    }
    settings.setValue(key("strategies"), checked);
}

void BatchCompareForm::chooseProxyFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Proxy samples to accuracy"),
                                                      m_proxy->text(), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        m_proxy->setText(path);
}

}  // namespace ptwb::ui
