#pragma once

#include <QVector>
#include <QWidget>

namespace ptwb::ui {

// A small live plot of the latest values of one reading (the device's total power): the line,
// the current value large, and the minimum and maximum of what is on screen. The samples span
// the whole width, newest at the right edge; beyond `capacity` the oldest fall off, so once full
// the line scrolls left.
class Sparkline : public QWidget
{
    Q_OBJECT

public:
    // The largest magnitude plotted: beyond it a sample is dropped, so the scale stays finite.
    static constexpr double kMaxDrawable = 1e12;

    explicit Sparkline(QWidget *parent = nullptr);

    // How many samples fit across (e.g. 240 for 2 minutes at 500 ms). Keeps the newest.
    void setCapacity(int samples);
    int capacity() const { return m_capacity; }
    void setUnit(const QString &unit);
    // A short text under the value, followed by the span shown: "Total power · last 40 s".
    void setCaption(const QString &caption);
    // The time between samples, for that span; 0 leaves it out.
    void setSampleIntervalMs(int intervalMs);
    // Shown instead of the line when there is nothing to plot.
    void setPlaceholderText(const QString &text);

    void addSample(double value);
    void clear();
    int sampleCount() const { return int(m_values.size()); }
    const QVector<double> &samples() const { return m_values; }
    double current() const;
    double minimum() const { return m_min; }
    double maximum() const { return m_max; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void recomputeRange();
    QString format(double value) const;
    QString captionText() const;

    QVector<double> m_values;
    int m_capacity = 240;
    int m_intervalMs = 0;
    double m_min = 0;
    double m_max = 0;
    QString m_unit = QStringLiteral("W");
    QString m_caption;
    QString m_placeholder;
};

}  // namespace ptwb::ui
