#include "concurrentcompareform.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>

namespace ptwb::ui {

namespace {

constexpr int kDefaultRepeats = 2;  // the CLI's 5 take long on the whole grid

// What each strategy does, for its tooltip (docs/optimization.md has the details).
QString describe(const QString &strategy)
{
    static const QHash<QString, QString> text {
        {QStringLiteral("optimal"),
         QObject::tr("The best measured (mode, batch) pair of each problem: the ground truth, "
                     "profiling every pair")},
        {QStringLiteral("maxn"),
         QObject::tr("MAXN with the largest batch that meets the latency; ignores the power "
                     "budget")},
        {QStringLiteral("gmd"),
         QObject::tr("Fulcrum's gradient descent over the modes, the batch fixed at MAXN")},
        {QStringLiteral("bs"), QObject::tr("Fulcrum's binary search, one knob at a time")},
        {QStringLiteral("als"),
         QObject::tr("Active learning (Fulcrum): profiles where its model is unsure")},
        {QStringLiteral("nn"),
         QObject::tr("Networks trained on N randomly profiled pairs of the target")},
        {QStringLiteral("pt"),
         QObject::tr("PowerTrain: the reference models transferred with N profiled pairs")},
        {QStringLiteral("safe"),
         QObject::tr("PowerTrain keeping the predictions' spread inside the budgets")},
    };
    return text.value(strategy);
}

const QString kNeedsReference =
    QObject::tr("Needs a training reference workload: choose one above");

QString label(const WorkloadSummary &s)
{
    if (!s.isInference())
        return QObject::tr("%1 (%2 modes)").arg(s.workload).arg(s.distinctModes);
    return QObject::tr("%1 (%2 modes × %3 batches)")
        .arg(s.workload)
        .arg(s.distinctModes)
        .arg(s.inferenceBatches.size());
}

int findWorkload(const QComboBox *box, const QString &workload)
{
    for (int i = 0; i < box->count(); ++i) {
        if (box->itemData(i).toStringList().value(1) == workload)
            return i;
    }
    return -1;
}

bool select(QComboBox *box, const QString &workload)
{
    const int row = findWorkload(box, workload);
    if (row >= 0)
        box->setCurrentIndex(row);
    return row >= 0;
}

workflows::StoredWorkload chosen(const QComboBox *box)
{
    const QStringList data = box->currentData().toStringList();
    return {data.value(0), data.value(1)};
}

// The first row of `box` that is not `other`'s workload (the default reference), else none.
void chooseOther(QComboBox *box, const QComboBox *other)
{
    const QString taken = chosen(other).workload;
    for (int i = 1; i < box->count(); ++i) {
        if (box->itemData(i).toStringList().value(1) != taken) {
            box->setCurrentIndex(i);
            return;
        }
    }
    box->setCurrentIndex(0);
}

}  // namespace

ConcurrentCompareForm::ConcurrentCompareForm(QWidget *parent)
    : QWidget(parent)
    , m_training(new QComboBox(this))
    , m_inference(new QComboBox(this))
    , m_trainingReference(new QComboBox(this))
    , m_inferenceReference(new QComboBox(this))
    , m_problems(new QLabel(this))
    , m_strategies(new QListWidget(this))
    , m_samples(new QSpinBox(this))
    , m_repeats(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
{
    m_training->setToolTip(tr("Training workload: its measured modes, with the inference "
                              "workload's, make the (mode, batch) pairs every pick is judged on"));
    m_inference->setToolTip(tr("Inference workload: measured per mode and inference batch size "
                               "(an imported file with a bs column)"));
    m_trainingReference->setToolTip(tr("Reference training workload: pt and safe start from "
                                       "models of it (trained for the run)"));
    m_inferenceReference->setToolTip(
        tr("Reference inference workload (optional): pt and safe transfer its models to the "
           "inference workload"));

    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("T&raining"), m_training);
    form->addRow(tr("&Inference"), m_inference);
    form->addRow(tr("Training re&ference"), m_trainingReference);
    form->addRow(tr("Inference refere&nce"), m_inferenceReference);
    // The study's grid (ConcurrentGrid::study()), as `ptwb evaluate-concurrent` defaults to.
    addGridField(form, tr("&Arrival rates"), InputField::ArrivalRate, QStringLiteral("30:120:10"),
                 tr("Requests per second: FROM:TO:STEP (30:120:10) or a list (30,60,90)"));
    addGridField(form, tr("&Latency budgets"), InputField::LatencyBudget,
                 QStringLiteral("0.5:2.0:0.1"),
                 tr("Seconds a request may wait for its answer: FROM:TO:STEP (0.5:2.0:0.1) or a "
                    "list (0.5,1,2)"));
    addGridField(form, tr("&Power budgets"), InputField::PowerBudget, QStringLiteral("10:50:1"),
                 tr("Watts: FROM:TO:STEP (10:50:1) or a list (15,30,50)"));
    m_problems->setToolTip(tr("Every combination of the three lists is one problem"));
    form->addRow(QString(), m_problems);

    for (const QString &name : ConcurrentStrategy::names()) {
        auto *item = new QListWidgetItem(name, m_strategies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setToolTip(describe(name));
    }
    m_strategies->setToolTip(tr("Strategies to compare"));
    m_strategies->setFlow(QListView::LeftToRight);
    m_strategies->setWrapping(true);
    m_strategies->setResizeMode(QListView::Adjust);
    m_strategies->setSpacing(2);
    // Three rows of four: every strategy in sight.
    m_strategies->setFixedHeight((m_strategies->sizeHintForRow(0) + 4) * 3 +
                                 2 * m_strategies->frameWidth() + 4);
    form->addRow(tr("Strate&gies"), m_strategies);

    m_samples->setRange(3, 1000);
    m_samples->setValue(ConcurrentEvaluationOptions().samples);
    m_samples->setToolTip(tr("Pairs profiled per problem by nn, pt and safe"));
    form->addRow(tr("&Samples"), m_samples);
    m_repeats->setRange(1, 100);
    m_repeats->setValue(kDefaultRepeats);
    m_repeats->setToolTip(tr("Repeats with fresh random draws (the same draws for every strategy "
                             "in a repeat). `ptwb evaluate-concurrent` does %1 by default; %2 "
                             "here keep a run of the whole grid short")
                              .arg(ConcurrentEvaluationOptions().repeats)
                              .arg(kDefaultRepeats));
    form->addRow(tr("R&epeats"), m_repeats);
    m_seed->setRange(0, 1000000);
    m_seed->setToolTip(tr("Seed of the draws: the same seed gives the same numbers"));
    form->addRow(tr("S&eed"), m_seed);

    for (QComboBox *box : {m_training, m_inference, m_trainingReference, m_inferenceReference})
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            updateStrategies();
            Q_EMIT changed();
        });
    connect(m_strategies, &QListWidget::itemChanged, this, &ConcurrentCompareForm::changed);
    checkGrid();
    updateStrategies();
}

void ConcurrentCompareForm::addGridField(QFormLayout *form, const QString &label, InputField field,
                                         const QString &text, const QString &toolTip)
{
    auto *edit = new QLineEdit(text, this);
    edit->setToolTip(toolTip);
    auto *error = new QLabel(this);
    error->setWordWrap(true);
    error->setStyleSheet(QStringLiteral("color: #c0392b"));
    error->setVisible(false);
    auto *column = new QVBoxLayout;
    column->setSpacing(2);
    column->addWidget(edit);
    column->addWidget(error);
    form->addRow(label, column);
    if (auto *buddy = qobject_cast<QLabel *>(form->labelForField(column)))
        buddy->setBuddy(edit);
    m_grid.append({field, edit, error, text});
    connect(edit, &QLineEdit::textChanged, this, [this] {
        checkGrid();
        Q_EMIT changed();
    });
}

Expected<QVector<double>> ConcurrentCompareForm::parse(const GridField &field) const
{
    return ConcurrentGrid::parseRange(field.edit->text().trimmed(), field.field, field.example);
}

void ConcurrentCompareForm::checkGrid()
{
    qint64 problems = 1;
    bool ok = true;
    for (const GridField &field : std::as_const(m_grid)) {
        const Expected<QVector<double>> values = parse(field);
        field.error->setText(values ? QString() : values.error());
        field.error->setVisible(!values);
        ok = ok && values;
        problems *= values ? values->size() : 0;
    }
    m_problems->setText(ok ? tr("%1 problems").arg(QLocale().toString(problems)) : QString());
}

void ConcurrentCompareForm::updateStrategies()
{
    const bool reference = !chosen(m_trainingReference).workload.isEmpty();
    for (int i = 0; i < m_strategies->count(); ++i) {
        QListWidgetItem *item = m_strategies->item(i);
        if (!ConcurrentStrategy::needsReference(item->text()))
            continue;
        const Qt::ItemFlags flags = item->flags();
        item->setFlags(reference ? flags | Qt::ItemIsEnabled : flags & ~Qt::ItemIsEnabled);
        item->setToolTip(reference
                             ? describe(item->text())
                             : describe(item->text()) + QStringLiteral("\n") + kNeedsReference);
    }
}

void ConcurrentCompareForm::setWorkloads(const QVector<WorkloadSummary> &summaries)
{
    const auto keep = [](const QComboBox *box) { return chosen(box).workload; };
    const QString training = keep(m_training), inference = keep(m_inference);
    const QString trainingReference = keep(m_trainingReference);
    const QString inferenceReference = keep(m_inferenceReference);
    for (QComboBox *box : {m_training, m_inference, m_trainingReference, m_inferenceReference}) {
        const QSignalBlocker quiet(box);
        box->clear();
    }
    m_trainingReference->addItem(tr("(none)"), QStringList());
    m_inferenceReference->addItem(tr("(none)"), QStringList());
    for (const WorkloadSummary &s : summaries) {
        if (!s.isInference() && !s.isTrainable())
            continue;  // several training batch sizes: offered through its views (NAME@B)
        const QStringList data {s.device, s.workload};
        const QVector<QComboBox *> boxes = s.isInference()
            ? QVector<QComboBox *> {m_inference, m_inferenceReference}
            : QVector<QComboBox *> {m_training, m_trainingReference};
        for (QComboBox *box : boxes)
            box->addItem(label(s), data);
    }
    if (!m_listed) {  // first list: a reference other than the workload itself, when there is one
        chooseOther(m_trainingReference, m_training);
        chooseOther(m_inferenceReference, m_inference);
    } else {
        select(m_training, training);
        select(m_inference, inference);
        if (!select(m_trainingReference, trainingReference))
            m_trainingReference->setCurrentIndex(0);
        if (!select(m_inferenceReference, inferenceReference))
            m_inferenceReference->setCurrentIndex(0);
    }
    m_listed = m_listed || hasPair();
    updateStrategies();
}

bool ConcurrentCompareForm::hasPair() const
{
    return m_training->count() > 0 && m_inference->count() > 0;
}

Expected<ConcurrentEvaluationOptions> ConcurrentCompareForm::options() const
{
    using Result = Expected<ConcurrentEvaluationOptions>;
    ConcurrentEvaluationOptions options;
    QVector<QVector<double>> lists;
    for (const GridField &field : m_grid) {
        Expected<QVector<double>> values = parse(field);
        if (!values)
            return passOn<Result>(values);
        lists.append(*values);
    }
    options.grid = {lists[0], lists[1], lists[2]};
    options.strategies.clear();
    for (int i = 0; i < m_strategies->count(); ++i) {
        const QListWidgetItem *item = m_strategies->item(i);
        if (item->checkState() == Qt::Checked && (item->flags() & Qt::ItemIsEnabled))
            options.strategies.append(item->text());
    }
    if (options.strategies.isEmpty())
        return Result::badInput(InputField::Strategies, tr("Check at least one strategy."));
    options.samples = m_samples->value();
    options.repeats = m_repeats->value();
    options.seed = quint64(m_seed->value());
    return options;
}

workflows::ConcurrentWorkloads ConcurrentCompareForm::workloads() const
{
    return {chosen(m_training), chosen(m_inference), chosen(m_trainingReference),
            chosen(m_inferenceReference)};
}

bool ConcurrentCompareForm::setTrainingWorkload(const QString &workload)
{
    return select(m_training, workload);
}

bool ConcurrentCompareForm::setInferenceWorkload(const QString &workload)
{
    return select(m_inference, workload);
}

bool ConcurrentCompareForm::setTrainingReference(const QString &workload)
{
    return workload.isEmpty() ? (m_trainingReference->setCurrentIndex(0), true)
                              : select(m_trainingReference, workload);
}

bool ConcurrentCompareForm::setInferenceReference(const QString &workload)
{
    return workload.isEmpty() ? (m_inferenceReference->setCurrentIndex(0), true)
                              : select(m_inferenceReference, workload);
}

void ConcurrentCompareForm::setGrid(const QString &arrivalRates, const QString &latencyBudgets,
                                    const QString &powerBudgets)
{
    m_grid[0].edit->setText(arrivalRates);
    m_grid[1].edit->setText(latencyBudgets);
    m_grid[2].edit->setText(powerBudgets);
}

void ConcurrentCompareForm::setStrategies(const QStringList &strategies)
{
    for (int i = 0; i < m_strategies->count(); ++i) {
        QListWidgetItem *item = m_strategies->item(i);
        item->setCheckState(strategies.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
}

void ConcurrentCompareForm::setSamples(int samples)
{
    m_samples->setValue(samples);
}

void ConcurrentCompareForm::setRepeats(int repeats)
{
    m_repeats->setValue(repeats);
}

void ConcurrentCompareForm::setSeed(quint64 seed)
{
    m_seed->setValue(int(seed));
}

QString ConcurrentCompareForm::fieldError(InputField field) const
{
    for (const GridField &g : m_grid) {
        if (g.field == field)
            return g.error->text();
    }
    return {};
}

bool ConcurrentCompareForm::isStrategyEnabled(const QString &strategy) const
{
    const QList<QListWidgetItem *> items = m_strategies->findItems(strategy, Qt::MatchExactly);
    return !items.isEmpty() && (items.first()->flags() & Qt::ItemIsEnabled);
}

}  // namespace ptwb::ui
