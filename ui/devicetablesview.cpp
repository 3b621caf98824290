#include "devicetablesview.h"

#include "modes/modespace.h"
#include "plaintext.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

QTableWidgetItem *numberItem(const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignCenter);
    return item;
}

// MHz shows every table value exactly (114.75, 2201.6, 3199).
QString mhz(Dimension dimension, qint64 value)
{
    const double scale = dimension == Dimension::Cpu ? 1e3 : 1e6;
    return QString::number(value / scale, 'g', 10);
}

}  // namespace

DeviceTablesView::DeviceTablesView(QWidget *parent)
    : QWidget(parent)
    , m_deviceBox(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_frequencies(new QTableWidget(this))
    , m_presets(new QTableWidget(this))
{
    for (const QString &id : DeviceSpec::builtinIds()) {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(id);
        m_deviceBox->addItem(spec ? QStringLiteral("%1 (%2)").arg(spec->name(), id) : id, id);
    }
    m_deviceBox->setToolTip(tr("Built-in tables for offline work; a connected device's live "
                               "tables take precedence."));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    for (QTableWidget *table : {m_frequencies, m_presets}) {
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->setAlternatingRowColors(true);
        table->verticalHeader()->setVisible(false);
        table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    }
    m_frequencies->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_presets->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_presets->horizontalHeader()->setStretchLastSection(true);
    m_frequencies->setObjectName(QStringLiteral("frequencies"));
    m_presets->setObjectName(QStringLiteral("presets"));
    m_frequencies->setColumnCount(4);
    m_frequencies->setHorizontalHeaderLabels(
        {tr("Cores"), tr("CPU (MHz)"), tr("GPU (MHz)"), tr("Memory (MHz)")});
    m_frequencies->setToolTip(tr("Every value each knob takes; a power mode picks one of each."));
    m_presets->setColumnCount(6);
    m_presets->setHorizontalHeaderLabels({tr("Preset"), tr("Cores"), tr("CPU cap (MHz)"),
                                          tr("GPU cap (MHz)"), tr("Memory cap (MHz)"),
                                          tr("Fastest mode within the caps")});
    m_presets->setToolTip(
        tr("Stock nvpmodel presets and the mode each maps to on the full table."));

    auto *form = new QFormLayout;
    form->addRow(tr("&Device:"), m_deviceBox);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_frequencies);
    splitter->addWidget(m_presets);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);

    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString id = m_deviceBox->itemData(index).toString();
        showDevice(id);
        Q_EMIT currentDeviceChanged(id);
    });
    showDevice(currentDevice());
}

QString DeviceTablesView::currentDevice() const
{
    return m_deviceBox->currentData().toString();
}

void DeviceTablesView::setCurrentDevice(const QString &id)
{
    int index = m_deviceBox->findData(id);
    if (index < 0) {
        // A connected device's own tables (a spec it reported): listed once it has been seen.
        const Expected<DeviceSpec> spec = DeviceSpec::lookup(id);
        if (!spec)
            return;
        m_deviceBox->addItem(tr("%1 (its own tables: %2)").arg(spec->name(), id), id);
        index = m_deviceBox->count() - 1;
    }
    m_deviceBox->setCurrentIndex(index);
}

void DeviceTablesView::showDevice(const QString &id)
{
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(id);
    if (!spec) {
        m_summary->setText(escaped(spec.error()));
        return;
    }
    const ModeSpace space(*spec);
    m_summary->setText(tr("<b>%1</b>: %2 power modes = %3 core counts x %4 CPU x %5 GPU x %6 "
                          "memory frequencies. Power rails: %7.")
                           .arg(escaped(spec->name()))
                           .arg(QLocale().toString(space.size()))
                           .arg(spec->values(Dimension::Cores).size())
                           .arg(spec->values(Dimension::Cpu).size())
                           .arg(spec->values(Dimension::Gpu).size())
                           .arg(spec->values(Dimension::Emc).size())
                           .arg(spec->powerRails().join(QStringLiteral(", "))));

    int rows = 0;
    for (Dimension dimension : kAllDimensions)
        rows = std::max(rows, int(spec->values(dimension).size()));
    m_frequencies->clearContents();
    m_frequencies->setRowCount(rows);
    for (Dimension dimension : kAllDimensions) {
        const QVector<qint64> &values = spec->values(dimension);
        for (int row = 0; row < values.size(); ++row) {
            const QString text = dimension == Dimension::Cores ? QString::number(values[row])
                                                               : mhz(dimension, values[row]);
            m_frequencies->setItem(row, static_cast<int>(dimension), numberItem(text));
        }
    }

    m_presets->clearContents();
    m_presets->setRowCount(spec->presets().size());
    for (int row = 0; row < spec->presets().size(); ++row) {
        const Preset &preset = spec->presets()[row];
        const std::optional<PowerMode> mode = space.presetMode(preset);
        m_presets->setItem(row, 0, new QTableWidgetItem(preset.name));
        m_presets->setItem(row, 1, numberItem(QString::number(preset.cores)));
        m_presets->setItem(row, 2, numberItem(mhz(Dimension::Cpu, preset.cpuMaxKHz)));
        m_presets->setItem(row, 3, numberItem(mhz(Dimension::Gpu, preset.gpuMaxHz)));
        m_presets->setItem(row, 4, numberItem(mhz(Dimension::Emc, preset.emcMaxHz)));
        auto *modeItem = new QTableWidgetItem(
            mode ? QStringLiteral("%1  ·  %2").arg(mode->toShort(), mode->toCanonical()) : tr("—"));
        m_presets->setItem(row, 5, modeItem);
    }
}

}  // namespace ptwb::ui
