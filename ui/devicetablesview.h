#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace ptwb::ui {

// The built-in frequency tables and stock presets of each supported Jetson.
class DeviceTablesView : public QWidget
{
    Q_OBJECT

public:
    explicit DeviceTablesView(QWidget *parent = nullptr);

    QString currentDevice() const;
    void setCurrentDevice(const QString &id);

Q_SIGNALS:
    void currentDeviceChanged(const QString &id);

private:
    void showDevice(const QString &id);

    QComboBox *m_deviceBox;
    QLabel *m_summary;
    QTableWidget *m_frequencies;
    QTableWidget *m_presets;
};

}  // namespace ptwb::ui
