#include "batchcard.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace ptwb::ui {

namespace {

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(label, value);
}

QString targetText(const ConvergenceRelation &relation)
{
    return relation.targetAccuracy
        ? BatchCard::tr("accuracy %1 %").arg(100 * *relation.targetAccuracy, 0, 'f', 1)
        : BatchCard::tr("the target accuracy");
}

}  // namespace

BatchCard::BatchCard(QWidget *parent)
    : QFrame(parent)
    , m_title(new QLabel(this))
    , m_modeLabel(new QLabel(this))
    , m_numbers(new QLabel(this))
    , m_provenance(new QLabel(this))
    , m_tableTitle(new QLabel(tr("Best mode of each batch size under the cap"), this))
    , m_table(new QTableWidget(0, 5, this))
    , m_sources(new QLabel(this))
{
    setObjectName(QStringLiteral("batchCard"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    QFont modeFont = m_modeLabel->font();
    modeFont.setPointSizeF(modeFont.pointSizeF() * 1.4);
    modeFont.setBold(true);
    m_modeLabel->setFont(modeFont);
    m_modeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_modeLabel->setWordWrap(true);
    m_numbers->setObjectName(QStringLiteral("batchNumbers"));
    m_numbers->setTextFormat(Qt::RichText);
    m_numbers->setWordWrap(true);
    m_provenance->setObjectName(QStringLiteral("batchProvenance"));
    m_provenance->setTextFormat(Qt::RichText);
    m_provenance->setWordWrap(true);

    m_table->setObjectName(QStringLiteral("batchPerBatchTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Batch"), tr("Mode"), tr("Time"), tr("Energy"), tr("Peak W")});
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->setToolTip(tr("Per batch size, the mode with the least time (or energy) to the "
                           "target accuracy whose peak stays under the cap; a batch size none "
                           "of whose modes fits is left out"));

    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_sources->setObjectName(QStringLiteral("batchSources"));
    m_sources->setWordWrap(true);
    m_sources->setForegroundRole(QPalette::PlaceholderText);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_modeLabel);
    layout->addWidget(m_numbers);
    layout->addSpacing(4);
    layout->addWidget(m_provenance);
    layout->addSpacing(6);
    layout->addWidget(m_tableTitle);
    layout->addWidget(m_table);
    layout->addWidget(m_sources);
    layout->addStretch(1);
    showMessage(tr("No workload yet"), QString());
}

QString BatchCard::durationText(double seconds)
{
    if (!std::isfinite(seconds))
        return QStringLiteral("–");
    if (seconds >= 3600)
        return tr("%1 h").arg(seconds / 3600, 0, 'f', 2);
    if (seconds >= 60)
        return tr("%1 min").arg(seconds / 60, 0, 'f', 1);
    return tr("%1 s").arg(seconds, 0, 'f', 1);
}

QString BatchCard::energyText(double joules)
{
    if (!std::isfinite(joules))
        return QStringLiteral("–");
    return joules >= 1e6 ? tr("%1 MJ").arg(joules / 1e6, 0, 'f', 2)
                         : tr("%1 kJ").arg(joules / 1e3, 0, 'f', 1);
}

void BatchCard::showPick(const workflows::BatchSpace &space, const BatchPick &pick,
                         const QVector<BatchPick> &perBatch, double capW,
                         AccuracyObjective objective)
{
    m_batch = pick.batch;
    m_mode = pick.mode;
    const QLocale locale;
    m_title->setText(objective == AccuracyObjective::Time
                         ? tr("Fastest to accuracy: batch %1").arg(pick.batch)
                         : tr("Least energy to accuracy: batch %1").arg(pick.batch));
    m_modeLabel->setText(
        QStringLiteral("%1\n%2").arg(pick.mode.toShort(), pick.mode.toCanonical()));
    QString table = QStringLiteral("<table>");
    table +=
        row(tr("To %1").arg(targetText(space.relation)),
            tr("<b>%1</b>, <b>%2</b>").arg(durationText(pick.seconds), energyText(pick.joules)));
    table += row(tr("Minibatches"),
                 tr("%1 of %2 samples")
                     .arg(locale.toString(qint64(std::ceil(pick.minibatches))))
                     .arg(pick.batch));
    table += row(tr("Per minibatch"), tr("%1 ms").arg(pick.timeMs, 0, 'f', 1));
    table += row(tr("Power"),
                 tr("median %1 W, peak %2 W (cap %3 W)")
                     .arg(pick.powerW, 0, 'f', 1)
                     .arg(pick.peakW, 0, 'f', 1)
                     .arg(capW, 0, 'f', 1));
    table += QStringLiteral("</table>");
    m_numbers->setText(table);
    showProvenance(space);
    fillTable(perBatch, pick.batch);
    m_sources->setText(space.sources.join(QLatin1Char('\n')));
}

void BatchCard::showNothing(const workflows::BatchSpace &space, double capW, double lowestPeakW)
{
    m_batch = 0;
    m_mode = PowerMode();
    m_title->setText(tr("Nothing fits under %1 W").arg(capW, 0, 'f', 1));
    m_modeLabel->clear();
    m_numbers->setText(
        std::isfinite(lowestPeakW)
            ? tr("No mode of any batch size keeps its peak power under the cap; the lowest peak "
                 "is %1 W. Raise the cap.")
                  .arg(lowestPeakW, 0, 'f', 1)
            : tr("No mode of any batch size keeps its peak power under the cap."));
    showProvenance(space);
    fillTable({}, 0);
    m_sources->setText(space.sources.join(QLatin1Char('\n')));
}

void BatchCard::showMessage(const QString &title, const QString &text)
{
    m_batch = 0;
    m_mode = PowerMode();
    m_title->setText(title);
    m_modeLabel->clear();
    m_numbers->setText(text);
    m_provenance->clear();
    fillTable({}, 0);
    m_sources->clear();
}

QString BatchCard::titleText() const
{
    return m_title->text();
}

QString BatchCard::bodyText() const
{
    return m_modeLabel->text() + QLatin1Char('\n') + m_numbers->text();
}

QString BatchCard::provenanceText() const
{
    return m_provenance->text();
}

void BatchCard::showProvenance(const workflows::BatchSpace &space)
{
    const ConvergenceRelation &r = space.relation;
    const bool simulated = r.provenance == QLatin1String(ConvergenceProvenance::kSimulated);
    const QString what = simulated ? tr("<b><span style='color:#c0392b'>SIMULATED</span></b>")
        : r.provenance == QLatin1String(ConvergenceProvenance::kProxy) ? tr("proxy training runs")
                                                                       : tr("entered by you");
    // the label says SIMULATED already: the source need not say it twice
    const QString source = QString(r.source).remove(QStringLiteral(" (SIMULATED)"));
    m_provenance->setText(tr("Samples to accuracy: %1%2")
                              .arg(what,
                                   source.isEmpty()
                                       ? QString()
                                       : QStringLiteral(" (%1)").arg(source.toHtmlEscaped())));
    m_provenance->setToolTip(simulated ? tr("The samples-to-accuracy relation comes from the "
                                            "simulator's convergence model, not from training "
                                            "runs: store a real one with ptwb convergence "
                                            "--workload W --import FILE")
                                       : QString());
}

void BatchCard::fillTable(const QVector<BatchPick> &perBatch, int pickBatch)
{
    m_table->setRowCount(int(perBatch.size()));
    for (int i = 0; i < perBatch.size(); ++i) {
        const BatchPick &p = perBatch[i];
        const QStringList cells {QString::number(p.batch), p.mode.toShort(),
                                 durationText(p.seconds), energyText(p.joules),
                                 QString::number(p.peakW, 'f', 1)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            if (c != 1)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (p.batch == pickBatch) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            if (c == 1)
                item->setToolTip(p.mode.toCanonical());
            m_table->setItem(i, c, item);
        }
    }
    m_tableTitle->setVisible(!perBatch.isEmpty());
    m_table->setVisible(!perBatch.isEmpty());
}

}  // namespace ptwb::ui
