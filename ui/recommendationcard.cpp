#include "recommendationcard.h"

#include "plaintext.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace ptwb::ui {

namespace {

QString signedPercent(double value)
{
    if (!std::isfinite(value))
        return QStringLiteral("–");
    return QStringLiteral("%1%2 %")
        .arg(value >= 0 ? QStringLiteral("+") : QStringLiteral("−"))
        .arg(std::abs(value), 0, 'f', 1);
}

QString watts(double w)
{
    return std::isfinite(w) ? QStringLiteral("%1 W").arg(w, 0, 'f', 1) : QStringLiteral("–");
}

QString joules(double ws)
{
    return std::isfinite(ws) ? QStringLiteral("%1 J").arg(ws, 0, 'f', 2) : QStringLiteral("–");
}

}  // namespace

QString TimeUnit::axisTitle() const
{
    return perEpoch() ? QObject::tr("Time per epoch (s)") : QObject::tr("Time per minibatch (ms)");
}

QString TimeUnit::format(double ms) const
{
    if (!std::isfinite(ms))
        return QStringLiteral("–");
    return QStringLiteral("%1 %2").arg(fromMs(ms), 0, 'f', 1).arg(symbol());
}

QString TimeUnit::format(double ms, double stdMs) const
{
    if (!std::isfinite(ms) || !std::isfinite(stdMs))
        return format(ms);
    return QStringLiteral("%1 ± %2 %3")
        .arg(fromMs(ms), 0, 'f', 1)
        .arg(fromMs(stdMs), 0, 'f', 1)
        .arg(symbol());
}

QString wattsWithSpread(double w, double stdW)
{
    if (!std::isfinite(w) || !std::isfinite(stdW))
        return watts(w);
    return QStringLiteral("%1 ± %2 W").arg(w, 0, 'f', 1).arg(stdW, 0, 'f', 1);
}

RecommendationCard::RecommendationCard(QWidget *parent)
    : QFrame(parent)
    , m_title(new QLabel(this))
    , m_mode(new QLabel(this))
    , m_numbers(new QLabel(this))
    , m_gains(new QLabel(this))
    , m_presets(new QLabel(this))
    , m_applyStatus(plainLabel(this))
    , m_apply(new QPushButton(tr("&Apply to device…"), this))
    , m_cancelApply(new QPushButton(tr("Cancel"), this))
    , m_keepNow(new QPushButton(tr("Keep now"), this))
{
    setObjectName(QStringLiteral("recommendationCard"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    QFont modeFont = m_mode->font();
    modeFont.setPointSizeF(modeFont.pointSizeF() * 1.6);
    modeFont.setBold(true);
    m_mode->setFont(modeFont);
    m_mode->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_numbers->setTextFormat(Qt::RichText);
    m_gains->setTextFormat(Qt::RichText);
    m_gains->setWordWrap(true);
    m_presets->setTextFormat(Qt::RichText);
    m_presets->setObjectName(QStringLiteral("presetTable"));
    m_applyStatus->setWordWrap(true);
    m_applyStatus->setObjectName(QStringLiteral("applyStatus"));

    m_apply->setObjectName(QStringLiteral("applyButton"));
    m_apply->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    m_apply->setToolTip(tr("Apply this mode to the connected device (Ctrl+Shift+A). The device "
                           "goes back to its current mode by itself unless the change is "
                           "confirmed."));
    m_cancelApply->setObjectName(QStringLiteral("cancelApplyButton"));
    m_cancelApply->setToolTip(tr("Put the previous mode back now"));
    m_keepNow->setObjectName(QStringLiteral("keepNowButton"));
    m_keepNow->setToolTip(tr("Confirm the new mode without waiting for the countdown"));
    m_cancelApply->setVisible(false);
    m_keepNow->setVisible(false);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_apply);
    buttons->addWidget(m_keepNow);
    buttons->addWidget(m_cancelApply);
    buttons->addStretch();

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_mode);
    layout->addWidget(m_numbers);
    layout->addWidget(m_gains);
    layout->addSpacing(8);
    layout->addWidget(m_presets);
    layout->addStretch();
    layout->addLayout(buttons);
    layout->addWidget(m_applyStatus);

    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (m_index >= 0)
            Q_EMIT applyRequested(m_index);
    });
    connect(m_cancelApply, &QPushButton::clicked, this, &RecommendationCard::cancelApplyRequested);
    connect(m_keepNow, &QPushButton::clicked, this, &RecommendationCard::keepNowRequested);
    showMessage(tr("No data yet"), tr("Import measurements, run a sweep or train a model."));
}

QString RecommendationCard::titleText() const
{
    return m_title->text();
}

QString RecommendationCard::bodyText() const
{
    return m_mode->text() + QLatin1Char('\n') + m_numbers->text() + QLatin1Char('\n') +
        m_gains->text();
}

void RecommendationCard::showMessage(const QString &title, const QString &text)
{
    m_index = -1;
    m_fits = false;
    m_title->setText(title);
    m_mode->clear();
    m_numbers->setText(text);
    m_gains->clear();
    m_presets->clear();
    setApplyAvailable(m_applyAvailable, m_apply->toolTip());
}

void RecommendationCard::showRecommendation(const TradeoffSpace &space, const Recommendation &r,
                                            const Budget &budget, const TimeUnit &unit)
{
    const QString limit =
        budget.kind == Budget::Kind::Power ? watts(budget.value) : unit.format(budget.value);
    const QString objective = budget.objective == Budget::Objective::Energy
        ? tr("lowest energy")
        : (budget.kind == Budget::Kind::Power ? tr("fastest") : tr("lowest power"));
    showIndex(space, r.index, unit);
    m_fits = r.fits;
    m_title->setText(r.fits ? tr("Recommended: the %1 mode within %2").arg(objective, limit)
                            : tr("No mode fits %1. The closest:").arg(limit));
    QStringList gains;
    if (r.safetyCostPercent) {
        const QString what = budget.objective == Budget::Objective::Energy
            ? tr("energy")
            : (budget.kind == Budget::Kind::Power ? tr("time") : tr("power"));
        const QString confidence =
            QStringLiteral("%1 %").arg(100 * Budget::confidenceOf(budget.safetySigmas), 0, 'f', 0);
        gains.append(std::abs(*r.safetyCostPercent) < 0.05
                         ? tr("<b>Safe pick</b> (%1 confidence of fitting): the pick without "
                              "the margin already has it to spare")
                               .arg(confidence)
                         : tr("<b>Safe pick</b> (%1 confidence of fitting): the margin costs %2 %3")
                               .arg(confidence, signedPercent(*r.safetyCostPercent), what));
    }
    if (r.vsMaxn && r.vsMaxn->index != r.index)
        gains.append(comparisonLine(*r.vsMaxn, tr("vs MAXN")));
    if (r.vsPreset && r.vsPreset->index != r.index)
        gains.append(comparisonLine(*r.vsPreset,
                                    tr("vs the best stock preset, %1").arg(r.vsPreset->against)));
    m_gains->setText(gains.join(QStringLiteral("<br>")));
    showPresets(space, &budget, unit);
}

void RecommendationCard::showPresets(const TradeoffSpace &space, const Budget *budget,
                                     const TimeUnit &unit)
{
    if (space.presets().isEmpty()) {
        m_presets->clear();
        return;
    }
    QString table = QStringLiteral("<b>%1</b><table><tr><th align=left>%2&nbsp;&nbsp;</th>"
                                   "<th align=right>%3&nbsp;&nbsp;</th><th align=right>%4&nbsp;"
                                   "&nbsp;</th><th align=right>%5</th></tr>")
                        .arg(tr("Stock presets on this workload"), tr("preset"), tr("time"),
                             tr("power"), tr("energy"));
    for (const auto &[name, index] : space.presets()) {
        const double ms = space.timeMs(index);
        const double w = space.powerW(index);
        const bool fits = !budget ||
            (budget->kind == Budget::Kind::Power ? w <= budget->value : ms <= budget->value);
        const double perEpoch = unit.perEpoch() ? unit.minibatchesPerEpoch : 1;
        // Qt's rich text colours cells, not rows.
        const QString colour = fits ? palette().color(QPalette::Text).name()
                                    : palette().color(QPalette::Disabled, QPalette::Text).name();
        const auto cell = [&colour](const QString &text) {
            return QStringLiteral("<font color='%1'>%2</font>").arg(colour, text);
        };
        table += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td align=right>%2&nbsp;&nbsp;</td>"
                                "<td align=right>%3&nbsp;&nbsp;</td><td align=right>%4</td></tr>")
                     .arg(cell(name), cell(unit.format(ms)), cell(watts(w)),
                          cell(joules(perEpoch * ms * w / 1000)));
    }
    table += QStringLiteral("</table><span style='color:%1'>%2</span>")
                 .arg(palette().color(QPalette::Disabled, QPalette::Text).name(),
                      budget ? tr("Greyed: over the budget.") : QString());
    m_presets->setText(table);
}

void RecommendationCard::showMode(const TradeoffSpace &space, int index, const TimeUnit &unit,
                                  const QString &title)
{
    showIndex(space, index, unit);
    m_fits = true;
    m_title->setText(title.isEmpty() ? tr("Selected mode") : title);
    QStringList gains;
    const std::optional<Comparison> maxn = space.versusMaxn(index);
    if (maxn && maxn->index != index)
        gains.append(comparisonLine(*maxn, tr("vs MAXN")));
    m_gains->setText(gains.join(QStringLiteral("<br>")));
    showPresets(space, nullptr, unit);
}

void RecommendationCard::showIndex(const TradeoffSpace &space, int index, const TimeUnit &unit)
{
    m_index = index;
    const PowerMode &mode = space.mode(index);
    m_mode->setText(mode.toShort());
    m_mode->setToolTip(mode.toCanonical());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto row = [&unit](const QString &label, double ms, double w, double stdMs, double stdW) {
        return QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td align=right>%2&nbsp;&nbsp;</td>"
                              "<td align=right>%3&nbsp;&nbsp;</td><td align=right>%4</td></tr>")
            .arg(
                label, unit.format(ms, stdMs), wattsWithSpread(w, stdW),
                joules(unit.perEpoch() ? ms * unit.minibatchesPerEpoch * w / 1000 : ms * w / 1000));
    };
    QString table = QStringLiteral("<span style='color:gray'>%1</span><table>"
                                   "<tr><td></td><th align=right>%2</th><th align=right>%3</th>"
                                   "<th align=right>%4</th></tr>")
                        .arg(mode.toCanonical(), tr("time"), tr("power"), tr("energy"));
    if (space.hasPredictions())
        table += row(tr("predicted"), space.predictedTimeMs(index), space.predictedPowerW(index),
                     space.predictedTimeStdMs(index), space.predictedPowerStdW(index));
    if (space.isObserved(index))
        table += row(tr("<b>observed</b>"), space.observedTimeMs(index),
                     space.observedPowerW(index), nan, nan);
    else
        table += QStringLiteral("<tr><td colspan=4><i>%1</i></td></tr>").arg(tr("not profiled"));
    m_numbers->setText(table + QStringLiteral("</table>"));
    setApplyAvailable(m_applyAvailable, m_apply->toolTip());
}

QString RecommendationCard::comparisonLine(const Comparison &c, const QString &label) const
{
    return QStringLiteral("<b>%1</b>: time %2, power %3, energy %4")
        .arg(label, signedPercent(c.timePercent), signedPercent(c.powerPercent),
             signedPercent(c.energyPercent));
}

void RecommendationCard::setApplyAvailable(bool available, const QString &why)
{
    m_applyAvailable = available;
    m_apply->setEnabled(available && m_index >= 0 && !m_applying);
    if (!why.isEmpty())
        m_apply->setToolTip(why);
}

void RecommendationCard::showApplyProgress(const QString &text, bool counting)
{
    m_applying = true;
    m_apply->setEnabled(false);
    m_applyStatus->setText(text);
    m_cancelApply->setVisible(true);
    m_keepNow->setVisible(counting);
}

QString RecommendationCard::applyStatusText() const
{
    return m_applyStatus->text();
}

void RecommendationCard::showApplyResult(bool kept, const QString &text)
{
    m_applying = false;
    m_cancelApply->setVisible(false);
    m_keepNow->setVisible(false);
    m_applyStatus->setText(
        QStringLiteral("<b>%1</b> %2").arg(kept ? tr("Applied.") : tr("Not applied."), text));
    setApplyAvailable(m_applyAvailable, QString());
}

}  // namespace ptwb::ui
