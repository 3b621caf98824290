#include "devicespanel.h"

#include "adddevicedialog.h"
#include "deviceclient.h"
#include "devicedetails.h"
#include "devicesetupdialog.h"
#include "devicetransports.h"
#include "plaintext.h"

#include <QAction>
#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

constexpr int kTargetRole = Qt::UserRole;
constexpr int kDetailRole = Qt::UserRole + 1;  // "sim:orin-agx · simulated, built in"
constexpr int kStateColourRole = Qt::UserRole + 2;  // the dot; invalid for no dot

// Two lines per device, the name over a dimmer detail line, and a state dot (with a light ring,
// so it reads on the selection colour too) for the device the window is connected to.
class DeviceItemDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QString name = opt.text;
        opt.text.clear();
        const QWidget *widget = opt.widget;
        QStyle *style = widget ? widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        const QRect area = opt.rect.adjusted(kPadding, kPadding, -kPadding, -kPadding);
        const QColor dot = index.data(kStateColourRole).value<QColor>();
        if (dot.isValid()) {
            const QRectF circle(area.left() + 1, area.top() + (opt.fontMetrics.height() - 10) / 2.0,
                                10, 10);
            painter->setPen(QPen(QColor(255, 255, 255, 160), 1));
            painter->setBrush(dot);
            painter->drawEllipse(circle);
        }
        const bool selected = opt.state & QStyle::State_Selected;
        QColor text = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
        const QRect textArea = area.adjusted(kDotWidth, 0, 0, 0);
        painter->setPen(text);
        painter->setFont(opt.font);
        painter->drawText(textArea, Qt::AlignLeft | Qt::AlignTop,
                          opt.fontMetrics.elidedText(name, Qt::ElideRight, textArea.width()));
        QFont small = option.font;
        small.setPointSizeF(small.pointSizeF() * 0.9);
        text.setAlphaF(0.7);
        painter->setPen(text);
        painter->setFont(small);
        const QRect detailArea = textArea.adjusted(0, opt.fontMetrics.height() + 1, 0, 0);
        painter->drawText(detailArea, Qt::AlignLeft | Qt::AlignTop,
                          QFontMetrics(small).elidedText(index.data(kDetailRole).toString(),
                                                         Qt::ElideRight, detailArea.width()));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QFont small = option.font;
        small.setPointSizeF(small.pointSizeF() * 0.9);
        return {kDotWidth + option.fontMetrics.horizontalAdvance(index.data().toString()) +
                    2 * kPadding,
                option.fontMetrics.height() + QFontMetrics(small).height() + 1 + 2 * kPadding};
    }

private:
    static constexpr int kPadding = 6;
    static constexpr int kDotWidth = 18;
};

QPushButton *actionButton(QAction *action, QWidget *parent)
{
    auto *button = new QPushButton(action->text(), parent);
    button->setToolTip(action->toolTip());
    button->setEnabled(action->isEnabled());
    QObject::connect(button, &QPushButton::clicked, action, &QAction::trigger);
    QObject::connect(action, &QAction::changed, button,
                     [button, action] { button->setEnabled(action->isEnabled()); });
    return button;
}

}  // namespace

DevicesPanel::DevicesPanel(QWidget *parent)
    : QWidget(parent)
    , m_entries(DeviceList::load())
    , m_list(new QListWidget(this))
    , m_details(new DeviceDetailsView(this))
    , m_undoText(plainLabel(this))
    , m_undoButton(new QPushButton(tr("&Undo"), this))
{
    setObjectName(QStringLiteral("devicesPanel"));
    m_list->setObjectName(QStringLiteral("deviceList"));
    m_list->setItemDelegate(new DeviceItemDelegate(m_list));
    m_list->setSpacing(1);
    m_list->setToolTip(tr("Double-click or press Enter to connect"));

    // Shortcuts work while the focus is anywhere in the panel.
    m_addAction = new QAction(tr("&Add device…"), this);
    m_addAction->setShortcut(QKeySequence::New);
    m_addAction->setToolTip(tr("Add a Jetson reached over SSH (Ctrl+N)"));
    m_removeAction = new QAction(tr("&Remove"), this);
    m_removeAction->setShortcut(QKeySequence::Delete);
    m_removeAction->setToolTip(tr("Remove the selected device from the list (Del); the "
                                  "simulated ones are built in"));
    m_connectAction = new QAction(tr("&Connect"), this);
    m_connectAction->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    m_connectAction->setToolTip(tr("Connect to the selected device (Ctrl+Enter, or double-click)"));
    m_setupAction = new QAction(tr("Set &up…"), this);
    m_setupAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    m_setupAction->setToolTip(tr("Install the workbench's privileged helper on the selected "
                                 "Jetson, once, with your sudo password (Ctrl+Shift+U); the "
                                 "simulated ones need none"));
    for (QAction *action : {m_addAction, m_removeAction, m_setupAction, m_connectAction}) {
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        QWidget::addAction(action);
    }
    connect(m_addAction, &QAction::triggered, this, &DevicesPanel::addDevice);
    connect(m_removeAction, &QAction::triggered, this, &DevicesPanel::removeCurrent);
    connect(m_connectAction, &QAction::triggered, this, &DevicesPanel::connectCurrent);
    connect(m_setupAction, &QAction::triggered, this, &DevicesPanel::setupCurrent);
    connect(m_list, &QListWidget::itemActivated, this, &DevicesPanel::connectCurrent);
    connect(m_list, &QListWidget::currentRowChanged, this, &DevicesPanel::updateActions);
    connect(m_details, &DeviceDetailsView::setupRequested, this, [this] {
        if (setCurrentTarget(m_activeTarget))
            setupCurrent();
    });
    // The details view follows the client's signals; the list's dot and Connect follow it.
    connect(m_details, &DeviceDetailsView::stateChanged, this, [this] {
        updateStateIcons();
        updateActions();
    });

    auto *heading = new QLabel(tr("Devices"), this);
    QFont headingFont = heading->font();
    headingFont.setBold(true);
    heading->setFont(headingFont);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(actionButton(m_addAction, this));
    buttons->addWidget(actionButton(m_removeAction, this));
    buttons->addWidget(actionButton(m_setupAction, this));
    buttons->addStretch();
    m_connectButton = actionButton(m_connectAction, this);
    m_connectButton->setDefault(true);
    buttons->addWidget(m_connectButton);

    m_undoText->setObjectName(QStringLiteral("undoText"));
    m_undoText->setWordWrap(true);
    m_undoButton->setToolTip(tr("Put the removed device back"));
    connect(m_undoButton, &QPushButton::clicked, this, &DevicesPanel::undoRemove);
    auto *undoRow = new QHBoxLayout;
    undoRow->addWidget(m_undoText, 1);
    undoRow->addWidget(m_undoButton);
    m_undoText->hide();
    m_undoButton->hide();

    auto *left = new QVBoxLayout;
    left->addWidget(heading);
    left->addWidget(m_list, 1);
    left->addLayout(buttons);
    left->addLayout(undoRow);

    auto *leftWidget = new QWidget(this);
    leftWidget->setLayout(left);
    leftWidget->setMinimumWidth(260);
    leftWidget->setMaximumWidth(360);
    left->setContentsMargins(0, 0, 0, 0);

    auto *layout = new QHBoxLayout(this);
    layout->addWidget(leftWidget);
    layout->addSpacing(12);
    layout->addWidget(m_details, 1);

    rebuildList(DeviceList::currentTarget());
    setClient(nullptr);
}

int DevicesPanel::indexOfTarget(const QString &target) const
{
    for (int i = 0; i < m_entries.size(); ++i) {
        if (m_entries.at(i).target == target)
            return i;
    }
    return -1;
}

void DevicesPanel::rebuildList(const QString &selectTarget)
{
    m_list->clear();
    for (const DeviceEntry &entry : std::as_const(m_entries)) {
        const QString detail =
            entry.simulated() ? tr("%1 · simulated, built in").arg(entry.target) : entry.target;
        auto *item = new QListWidgetItem(entry.name, m_list);
        item->setData(kDetailRole, detail);
        item->setData(kTargetRole, entry.target);
        QStringList tip {entry.name, entry.target};
        if (entry.simulated())
            tip << tr("A simulated Jetson on this computer; its numbers are not measurements.");
        if (!entry.keyFile.isEmpty())
            tip << tr("Key file: %1").arg(entry.keyFile);
        item->setToolTip(plainTip(tip.join(QLatin1Char('\n'))));
    }
    const int selected = indexOfTarget(selectTarget);
    m_list->setCurrentRow(selected >= 0 ? selected : 0);
    updateStateIcons();
    updateActions();
}

DeviceEntry DevicesPanel::currentEntry() const
{
    const int row = m_list->currentRow();
    return row >= 0 && row < m_entries.size() ? m_entries.at(row) : DeviceEntry();
}

bool DevicesPanel::setCurrentTarget(const QString &target)
{
    const int index = indexOfTarget(target);
    if (index < 0)
        return false;
    m_list->setCurrentRow(index);
    return true;
}

DeviceClient *DevicesPanel::client() const
{
    return m_client;
}

void DevicesPanel::setClient(DeviceClient *client)
{
    m_client = client;
    if (client) {
        if (m_activeTarget.isEmpty())
            m_activeTarget = currentEntry().target;
        const int index = indexOfTarget(m_activeTarget);
        if (index >= 0)
            m_details->setEntry(m_entries.at(index));
    } else {
        m_details->setEntry(currentEntry());
    }
    m_details->setClient(client);
    updateStateIcons();
    updateActions();
}

void DevicesPanel::updateStateIcons()
{
    QColor active;
    QString state;
    if (m_client) {
        switch (m_details->state()) {
        case DeviceDetailsView::State::Connected:
            active = QColor(0x2e, 0xa0, 0x43);
            break;
        case DeviceDetailsView::State::Connecting:
            active = QColor(0xd9, 0x8e, 0x04);
            break;
        case DeviceDetailsView::State::Disconnected:
            active = QColor(0xd0, 0x3b, 0x3b);
            break;
        case DeviceDetailsView::State::NoClient:
            break;
        }
    }
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        const bool isActive = m_client && item->data(kTargetRole).toString() == m_activeTarget;
        item->setData(kStateColourRole, isActive ? active : QColor());
        QFont font = m_list->font();
        font.setBold(isActive);
        item->setFont(font);
    }
}

void DevicesPanel::updateActions()
{
    const DeviceEntry entry = currentEntry();
    m_removeAction->setEnabled(!entry.target.isEmpty() && !entry.simulated());
    m_setupAction->setEnabled(!entry.target.isEmpty() && !entry.simulated());
    const bool alreadyConnected = m_client && m_client->isReady() && entry.target == m_activeTarget;
    m_connectAction->setEnabled(!entry.target.isEmpty() && !alreadyConnected);
    m_connectButton->setText(alreadyConnected ? tr("Connected") : tr("&Connect"));
}

void DevicesPanel::addEntry(const DeviceEntry &entry, int index)
{
    if (index < 0 || index > m_entries.size())
        index = int(m_entries.size());
    m_entries.insert(index, entry);
    DeviceList::save(m_entries);
    rebuildList(entry.target);
}

void DevicesPanel::addDevice()
{
    auto *dialog = new AddDeviceDialog(m_entries, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        addEntry(dialog->entry());
        m_undoText->hide();
        m_undoButton->hide();
    });
    dialog->open();
}

void DevicesPanel::removeCurrent()
{
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_entries.size() || m_entries.at(row).simulated())
        return;
    m_removed = m_entries.takeAt(row);
    m_removedIndex = row;
    DeviceList::save(m_entries);
    rebuildList(m_entries.value(std::min(row, int(m_entries.size()) - 1)).target);
    m_undoText->setText(tr("Removed “%1”.").arg(m_removed.name));
    m_undoText->show();
    m_undoButton->show();
}

void DevicesPanel::undoRemove()
{
    if (m_removedIndex < 0)
        return;
    addEntry(m_removed, m_removedIndex);
    m_removedIndex = -1;
    m_undoText->hide();
    m_undoButton->hide();
}

void DevicesPanel::setupCurrent()
{
    const DeviceEntry entry = currentEntry();
    if (entry.target.isEmpty() || entry.simulated())
        return;
    auto *dialog =
        new DeviceSetupDialog(entry.target, entry.name, connectionOptions(entry, window()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void DevicesPanel::connectCurrent()
{
    const DeviceEntry entry = currentEntry();
    if (entry.target.isEmpty())
        return;
    m_activeTarget = entry.target;
    DeviceList::setCurrentTarget(entry.target);
    m_details->setEntry(entry);
    Q_EMIT deviceChosen(entry);
}

}  // namespace ptwb::ui
