#include "workloadeditor.h"

#include "modes/devicespec.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace ptwb::ui {

namespace {

const QColor kErrorColor(0xc6, 0x28, 0x28);

// The recognisers in combo order, each with its one-line explanation.
struct RecogniserChoice
{
    WorkloadDefinition::Recogniser recogniser;
    const char *label;
    const char *help;
};
const RecogniserChoice kRecognisers[] = {
    {WorkloadDefinition::Recogniser::Marker, QT_TRANSLATE_NOOP("WorkloadEditor", "Marker line"),
     QT_TRANSLATE_NOOP("WorkloadEditor",
                       "The script prints PTWB_MINIBATCH <ms> after every minibatch (stdout or "
                       "stderr).")},
    {WorkloadDefinition::Recogniser::Regex,
     QT_TRANSLATE_NOOP("WorkloadEditor", "Regular expression"),
     QT_TRANSLATE_NOOP("WorkloadEditor",
                       "A pattern over what the script already prints (stdout and stderr, progress "
                       "bars split at \\r) with one named group: the number it reads.")},
    {WorkloadDefinition::Recogniser::Launcher,
     QT_TRANSLATE_NOOP("WorkloadEditor", "Launcher (PyTorch, no change)"),
     QT_TRANSLATE_NOOP("WorkloadEditor",
                       "An unmodified PyTorch script: the agent runs it through a launcher that "
                       "times every optimizer.step(). One optimizer, one step per minibatch.")},
};

struct UnitChoice
{
    WorkloadDefinition::RateUnit unit;
    const char *label;
};
const UnitChoice kUnits[] = {
    {WorkloadDefinition::RateUnit::Milliseconds,
     QT_TRANSLATE_NOOP("WorkloadEditor", "ms per minibatch")},
    {WorkloadDefinition::RateUnit::Seconds, QT_TRANSLATE_NOOP("WorkloadEditor", "s per minibatch")},
    {WorkloadDefinition::RateUnit::PerSecond,
     QT_TRANSLATE_NOOP("WorkloadEditor", "minibatches per second (it/s)")},
};

// Arguments a shell would have treated specially: here they reach the program as they are.
bool looksLikeShell(const QStringList &argv)
{
    static const QStringList operators = {
        QStringLiteral("|"),  QStringLiteral("||"),  QStringLiteral("&&"), QStringLiteral(";"),
        QStringLiteral(">"),  QStringLiteral(">>"),  QStringLiteral("<"),  QStringLiteral("&"),
        QStringLiteral("2>"), QStringLiteral("2>&1")};
    for (const QString &arg : argv) {
        if (operators.contains(arg) || arg.contains(QLatin1Char('$')) ||
            arg.contains(QLatin1Char('*')) || arg.startsWith(QLatin1Char('~')))
            return true;
    }
    return false;
}

}  // namespace

WorkloadEditor::WorkloadEditor(QWidget *parent)
    : QWidget(parent)
{
    m_builtinNote = new QLabel(this);
    m_builtinNote->setObjectName(QStringLiteral("builtinNote"));
    m_builtinNote->setWordWrap(true);
    m_builtinNote->setText(tr("A built-in workload of the agent: read-only. Add (Ctrl+N) a "
                              "workload of your own for your training script."));
    m_builtinNote->setStyleSheet(
        QStringLiteral("QLabel { background: #eef3fb; color: #1d3d6b; border: 1px solid #b8c9e6; "
                       "border-radius: 4px; padding: 4px 8px; }"));
    m_builtinNote->setVisible(false);

    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("nameEdit"));
    m_name->setPlaceholderText(QStringLiteral("my-training"));
    m_name->setToolTip(tr("The workload's name: its measurements are stored under it. 1 to 64 "
                          "letters, digits or _ . @ + -"));

    m_deviceKind = new QComboBox(this);
    m_deviceKind->setObjectName(QStringLiteral("deviceKindCombo"));
    m_deviceKind->addItem(tr("Any device"), QString());
    for (const QString &id : DeviceSpec::builtinIds()) {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(id);
        m_deviceKind->addItem(spec ? QStringLiteral("%1 (%2)").arg(spec->name(), id) : id, id);
    }
    m_deviceKind->setToolTip(tr("The device kind the workload is for: the Sweep view lists it "
                                "for that kind only, or for every device"));

    m_command = new QLineEdit(this);
    m_command->setObjectName(QStringLiteral("commandEdit"));
    m_command->setPlaceholderText(QStringLiteral("python3 train.py --epochs 1"));
    m_command->setToolTip(tr("The command the device runs, as one line: split into arguments "
                             "at spaces (\"double quotes\" keep spaces in one argument). No "
                             "shell runs it: no pipes, redirections, variables or ~"));
    m_argv = new QLabel(this);
    m_argv->setObjectName(QStringLiteral("argvLabel"));
    m_argv->setTextFormat(Qt::PlainText);
    m_argv->setWordWrap(true);
    m_argv->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_argv->setToolTip(tr("The exact argument list the device runs, one quoted argument each"));

    m_cwd = new QLineEdit(this);
    m_cwd->setObjectName(QStringLiteral("cwdEdit"));
    m_cwd->setPlaceholderText(tr("the agent's (your home on the device)"));
    m_cwd->setToolTip(tr("The directory the command runs in on the device: absolute, or under "
                         "~/ (your home there). Empty: the agent's own"));

    m_env = new QTableWidget(0, 2, this);
    m_env->setObjectName(QStringLiteral("envTable"));
    m_env->setHorizontalHeaderLabels({tr("Variable"), tr("Value")});
    m_env->horizontalHeader()->setStretchLastSection(true);
    m_env->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_env->verticalHeader()->setVisible(false);
    m_env->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_env->setMinimumHeight(64);
    m_env->setMaximumHeight(96);
    m_env->setToolTip(tr("Extra environment variables, set over the agent's own (e.g. a "
                         "virtualenv's PATH, CUDA_VISIBLE_DEVICES). Definitions are stored in "
                         "plain text: no secrets"));
    m_envAdd = new QPushButton(tr("Add"), this);
    m_envAdd->setObjectName(QStringLiteral("envAddButton"));
    m_envAdd->setToolTip(tr("Add a variable: a new row in the environment table"));
    m_envRemove = new QPushButton(tr("Remove"), this);
    m_envRemove->setObjectName(QStringLiteral("envRemoveButton"));
    m_envAdd->setAutoDefault(false);  // Enter in a field never adds a row
    m_envRemove->setAutoDefault(false);
    m_envRemove->setToolTip(tr("Remove the selected variable from the environment table"));
    connect(m_envAdd, &QPushButton::clicked, this, [this] {
        addEnvironmentRow(QString(), QString());
        m_env->setCurrentCell(m_env->rowCount() - 1, 0);
        m_env->editItem(m_env->item(m_env->rowCount() - 1, 0));
    });
    connect(m_envRemove, &QPushButton::clicked, this, [this] {
        if (m_env->currentRow() >= 0)
            m_env->removeRow(m_env->currentRow());
        validate();
    });
    connect(m_env, &QTableWidget::itemChanged, this, &WorkloadEditor::validate);
    auto *envButtons = new QVBoxLayout;
    envButtons->addWidget(m_envAdd);
    envButtons->addWidget(m_envRemove);
    envButtons->addStretch(1);
    auto *envRow = new QHBoxLayout;
    envRow->setContentsMargins(0, 0, 0, 0);
    envRow->addWidget(m_env, 1);
    envRow->addLayout(envButtons);

    m_recogniser = new QComboBox(this);
    m_recogniser->setObjectName(QStringLiteral("recogniserCombo"));
    for (const RecogniserChoice &choice : kRecognisers)
        m_recogniser->addItem(tr(choice.label), int(choice.recogniser));
    m_recogniser->setToolTip(tr("How the agent recognises that a minibatch has finished, and how "
                                "long it took"));
    m_recogniserHelp = new QLabel(this);
    m_recogniserHelp->setObjectName(QStringLiteral("recogniserHelp"));
    m_recogniserHelp->setWordWrap(true);
    m_recogniserHelp->setToolTip(tr("What the chosen recogniser expects of the script"));
    QPalette muted = m_recogniserHelp->palette();
    muted.setColor(QPalette::WindowText, muted.color(QPalette::PlaceholderText));
    m_recogniserHelp->setPalette(muted);

    m_pattern = new QLineEdit(this);
    m_pattern->setObjectName(QStringLiteral("patternEdit"));
    m_pattern->setPlaceholderText(QStringLiteral("(?P<rate>[0-9.]+)it/s"));
    m_pattern->setToolTip(tr("A regular expression (Python re syntax) matched anywhere in each "
                             "output line, with exactly one named group (?P<name>…) around the "
                             "number"));
    m_unit = new QComboBox(this);
    m_unit->setObjectName(QStringLiteral("unitCombo"));
    for (const UnitChoice &choice : kUnits)
        m_unit->addItem(tr(choice.label), int(choice.unit));
    m_unit->setToolTip(tr("What the group's number is: milliseconds or seconds per minibatch, or "
                          "minibatches per second (a tqdm bar's it/s)"));
    m_sample = new QLineEdit(this);
    m_sample->setObjectName(QStringLiteral("sampleEdit"));
    m_sample->setPlaceholderText(tr("paste a line your script prints"));
    m_sample->setToolTip(tr("A line of your script's output to try the pattern on, here on the "
                            "desktop; it is not saved"));
    m_sampleResult = new QLabel(this);
    m_sampleResult->setObjectName(QStringLiteral("sampleResult"));
    m_sampleResult->setTextFormat(Qt::PlainText);
    m_sampleResult->setWordWrap(true);
    m_sampleResult->setToolTip(tr("What the pattern reads from the sample line"));
    auto spin = [this](const QString &name, int min, int max, const QString &suffix,
                       const QString &tip) {
        auto *box = new QSpinBox(this);
        box->setObjectName(name);
        box->setRange(min, max);
        box->setSuffix(suffix);
        box->setToolTip(tip);
        return box;
    };
    m_skip = spin(QStringLiteral("skipSpin"), 0, WorkloadDefinition::kMaxMinibatches, QString(),
                  tr("Minibatches at the start of each mode that are never measured (warm-up: "
                     "data loading, compilation, caches)"));
    m_keep = spin(QStringLiteral("keepSpin"), 1, WorkloadDefinition::kMaxMinibatches, QString(),
                  tr("Minibatches measured in each mode after the skipped ones; a sweep runs "
                     "skip + keep per mode"));
    m_timeout =
        spin(QStringLiteral("timeoutSpin"), 1, WorkloadDefinition::kMaxTimeoutSeconds, tr(" s"),
             tr("When no minibatch is recognised within this many seconds (on the "
                "device) the mode fails, with the script's last output lines"));

    auto *counts = new QWidget(this);
    auto *countsRow = new QHBoxLayout(counts);
    countsRow->setContentsMargins(0, 0, 0, 0);
    countsRow->addWidget(new QLabel(tr("skip"), counts));
    countsRow->addWidget(m_skip);
    countsRow->addWidget(new QLabel(tr("then keep"), counts));
    countsRow->addWidget(m_keep);
    countsRow->addWidget(new QLabel(tr("minibatches"), counts));
    countsRow->addStretch(1);
    counts->setFocusProxy(m_skip);
    auto *env = new QWidget(this);
    env->setLayout(envRow);
    env->setFocusProxy(m_env);

    auto *form = m_form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("&Name:"), withErrors(m_name, {QStringLiteral("name")}));
    form->addRow(tr("&Device kind:"), m_deviceKind);
    form->addRow(tr("&Command:"), withErrors(m_command, {QStringLiteral("argv")}, m_argv));
    form->addRow(tr("&Working directory:"), withErrors(m_cwd, {QStringLiteral("cwd")}));
    form->addRow(tr("&Environment:"), withErrors(env, {QStringLiteral("env")}));
    form->addRow(tr("&Recognise minibatches by:"), withErrors(m_recogniser, {}, m_recogniserHelp));
    // The regular expression's rows, shown for that recogniser only.
    QWidget *pattern = withErrors(m_pattern, {QStringLiteral("pattern")});
    form->addRow(tr("&Pattern:"), pattern);
    form->addRow(tr("Its n&umber is:"), m_unit);
    form->addRow(tr("Sample &line:"), m_sample);
    form->addRow(QString(), m_sampleResult);
    m_regexRows = {pattern, m_unit, m_sample, m_sampleResult};
    form->addRow(tr("&Minibatches per mode:"),
                 withErrors(counts, {QStringLiteral("skip"), QStringLiteral("keep")}));
    form->addRow(tr("&Timeout:"), withErrors(m_timeout, {QStringLiteral("timeout")}));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_builtinNote);
    layout->addLayout(form);
    layout->addStretch(1);

    for (QLineEdit *edit : {m_name, m_command, m_cwd, m_pattern})
        connect(edit, &QLineEdit::textChanged, this, &WorkloadEditor::validate);
    connect(m_command, &QLineEdit::textChanged, this, &WorkloadEditor::updateArgv);
    connect(m_pattern, &QLineEdit::textChanged, this, &WorkloadEditor::updateSample);
    connect(m_sample, &QLineEdit::textChanged, this, &WorkloadEditor::updateSample);
    connect(m_unit, &QComboBox::currentIndexChanged, this, [this] {
        updateSample();
        validate();
    });
    connect(m_deviceKind, &QComboBox::currentIndexChanged, this, &WorkloadEditor::validate);
    connect(m_recogniser, &QComboBox::currentIndexChanged, this, [this] {
        updateRecogniser();
        validate();
    });
    for (QSpinBox *box : {m_skip, m_keep, m_timeout})
        connect(box, &QSpinBox::valueChanged, this, &WorkloadEditor::validate);

    setDefinition(WorkloadDefinition());
}

QWidget *WorkloadEditor::withErrors(QWidget *field, const QStringList &errors, QWidget *note)
{
    // The field, a note under it, and its error labels, which take no room while hidden.
    auto *cell = new QWidget(this);
    auto *layout = new QVBoxLayout(cell);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(field);
    if (note)
        layout->addWidget(note);
    for (const QString &error : errors)
        layout->addWidget(errorLabel(error));
    cell->setFocusProxy(field);
    return cell;
}

QLabel *WorkloadEditor::errorLabel(const QString &field)
{
    auto *label = new QLabel(this);
    label->setObjectName(field + QStringLiteral("Error"));
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, kErrorColor);
    label->setPalette(palette);
    label->setVisible(false);
    m_errors.insert(field, label);
    return label;
}

void WorkloadEditor::addEnvironmentRow(const QString &name, const QString &value)
{
    const int row = m_env->rowCount();
    m_env->insertRow(row);
    m_env->setItem(row, 0, new QTableWidgetItem(name));
    m_env->setItem(row, 1, new QTableWidgetItem(value));
}

WorkloadDefinition WorkloadEditor::definition() const
{
    WorkloadDefinition d;
    d.name = m_name->text().trimmed();
    d.deviceKind = m_deviceKind->currentData().toString();
    d.argv = QProcess::splitCommand(m_command->text());
    d.workingDirectory = m_cwd->text().trimmed();
    for (int row = 0; row < m_env->rowCount(); ++row) {
        const QString name =
            m_env->item(row, 0) ? m_env->item(row, 0)->text().trimmed() : QString();
        const QString value = m_env->item(row, 1) ? m_env->item(row, 1)->text() : QString();
        if (name.isEmpty() && value.isEmpty())
            continue;  // a row added and left empty
        d.environment.append({name, value});
    }
    d.recogniser = WorkloadDefinition::Recogniser(m_recogniser->currentData().toInt());
    if (d.recogniser == WorkloadDefinition::Recogniser::Regex) {
        d.pattern = m_pattern->text();
        d.unit = WorkloadDefinition::RateUnit(m_unit->currentData().toInt());
    }
    d.skip = m_skip->value();
    d.keep = m_keep->value();
    d.timeoutSeconds = m_timeout->value();
    d.createdAt = m_createdAt;
    d.updatedAt = m_updatedAt;
    return d;
}

void WorkloadEditor::setDefinition(const WorkloadDefinition &d)
{
    m_loading = true;
    m_builtin = false;
    m_builtinNote->setVisible(false);
    m_name->setText(d.name);
    m_deviceKind->setCurrentIndex(std::max(0, m_deviceKind->findData(d.deviceKind)));
    m_command->setText(commandText(d.argv));
    m_cwd->setText(d.workingDirectory);
    m_env->setRowCount(0);
    for (const auto &[name, value] : d.environment)
        addEnvironmentRow(name, value);
    m_recogniser->setCurrentIndex(std::max(0, m_recogniser->findData(int(d.recogniser))));
    m_pattern->setText(d.pattern);
    m_unit->setCurrentIndex(std::max(0, m_unit->findData(int(d.unit))));
    m_skip->setValue(d.skip);
    m_keep->setValue(d.keep);
    m_timeout->setValue(d.timeoutSeconds);
    m_createdAt = d.createdAt;
    m_updatedAt = d.updatedAt;
    m_loading = false;
    setEditable(true);
    updateArgv();
    updateRecogniser();
    updateSample();
    validate();
}

void WorkloadEditor::showBuiltin(const QString &name)
{
    WorkloadDefinition d;
    d.name = name;
    setDefinition(d);
    m_loading = true;
    m_command->clear();
    m_argv->setText(tr("Run by the agent itself (a built-in training loop)"));
    m_loading = false;
    m_builtin = true;
    m_builtinNote->setVisible(true);
    for (QLabel *label : std::as_const(m_errors))
        label->setVisible(false);
    m_problem = tr("%1 is a built-in workload: read-only").arg(name);
    setEditable(false);
}

void WorkloadEditor::setEditable(bool editable)
{
    for (QWidget *w : std::initializer_list<QWidget *> {
             m_name, m_deviceKind, m_command, m_cwd, m_env, m_envAdd, m_envRemove, m_recogniser,
             m_pattern, m_unit, m_skip, m_keep, m_timeout})
        w->setEnabled(editable);
}

QString WorkloadEditor::fieldError(const QString &field) const
{
    const QLabel *label = m_errors.value(field);
    return label && !label->isHidden() ? label->text() : QString();
}

QString WorkloadEditor::sampleResult() const
{
    return m_sampleResult->text();
}

void WorkloadEditor::setSampleLine(const QString &line)
{
    m_sample->setText(line);
}

void WorkloadEditor::focusName()
{
    m_name->setFocus();
    m_name->selectAll();
}

QString WorkloadEditor::commandText(const QStringList &argv)
{
    // QProcess::splitCommand's quoting: "..." keeps spaces, a literal quote is tripled.
    static const QRegularExpression plain(QStringLiteral("^[^\\s\"]+$"));
    QStringList words;
    for (const QString &arg : argv) {
        if (plain.match(arg).hasMatch())
            words.append(arg);
        else
            words.append(QLatin1Char('"') +
                         QString(arg).replace(QLatin1Char('"'), QLatin1String("\"\"\"")) +
                         QLatin1Char('"'));
    }
    return words.join(QLatin1Char(' '));
}

void WorkloadEditor::updateArgv()
{
    if (m_builtin)
        return;
    const QStringList argv = QProcess::splitCommand(m_command->text());
    if (argv.isEmpty()) {
        m_argv->setText(tr("Runs: nothing yet"));
        return;
    }
    QStringList quoted;
    for (const QString &arg : argv)
        quoted.append(QStringLiteral("\u201c%1\u201d").arg(arg));
    QString text = argv.size() == 1
        ? tr("Runs 1 argument: %1").arg(quoted.first())
        : tr("Runs %1 arguments: %2").arg(argv.size()).arg(quoted.join(QLatin1Char(' ')));
    if (looksLikeShell(argv))
        text += QLatin1Char('\n') +
            tr("No shell runs it: | ; > $ * ~ reach the program as they are. For a pipeline, "
               "write a small script and run that.");
    m_argv->setText(text);
}

void WorkloadEditor::updateRecogniser()
{
    const int index = std::max(0, m_recogniser->currentIndex());
    m_recogniserHelp->setText(tr(kRecognisers[index].help));
    const bool regex = kRecognisers[index].recogniser == WorkloadDefinition::Recogniser::Regex;
    for (QWidget *row : std::as_const(m_regexRows))
        m_form->setRowVisible(row, regex);
}

void WorkloadEditor::updateSample()
{
    QPalette palette = m_sampleResult->palette();
    if (m_sample->text().isEmpty() || m_pattern->text().isEmpty()) {
        m_sampleResult->setText(tr("Type a line of your script's output above to see what the "
                                   "pattern reads from it."));
        palette.setColor(QPalette::WindowText, palette.color(QPalette::PlaceholderText));
        m_sampleResult->setPalette(palette);
        return;
    }
    QString why;
    WorkloadDefinition regex;
    regex.pattern = m_pattern->text();
    regex.unit = WorkloadDefinition::RateUnit(m_unit->currentData().toInt());
    const std::optional<double> ms = regex.minibatchMsIn(m_sample->text(), &why);
    if (ms) {
        m_sampleResult->setText(
            tr("\u2714 A minibatch of %1 ms").arg(*ms, 0, 'f', *ms < 10 ? 2 : 1));
        palette.setColor(QPalette::WindowText, QColor(0x2e, 0x7d, 0x32));
    } else {
        m_sampleResult->setText(QStringLiteral("\u2718 ") + why);
        palette.setColor(QPalette::WindowText, kErrorColor);
    }
    m_sampleResult->setPalette(palette);
}

void WorkloadEditor::validate()
{
    if (m_loading || m_builtin)
        return;
    const WorkloadDefinition d = definition();
    m_problem = d.problem();
    const QString field = d.problemField();
    for (auto it = m_errors.cbegin(); it != m_errors.cend(); ++it) {
        QLabel *label = it.value();
        const bool here = it.key() == field;
        if (here) {
            // "field: text": the label sits under the field, so the text alone; env names its row.
            QString text = m_problem.section(QStringLiteral(": "), 1);
            if (field == QLatin1String("env")) {
                const QString which = m_problem.section(QStringLiteral(": "), 0, 0);
                const int row = which.mid(4, which.size() - 5).toInt();
                text = tr("Row %1: %2").arg(row).arg(text);
            }
            label->setText(text);
        }
        label->setVisible(here);
    }
    Q_EMIT changed();
}

}  // namespace ptwb::ui
