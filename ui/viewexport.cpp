#include "viewexport.h"

#include <QAbstractItemView>
#include <QFileDialog>
#include <QLabel>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace ptwb::ui::ViewExport {

namespace {

QByteArray csvField(const QString &text)
{
    QString t = text;
    t.replace(QChar(0x2212), QLatin1Char('-'));  // typographic minus, as shown
    if (t.contains(QLatin1Char(',')) || t.contains(QLatin1Char('"')) ||
        t.contains(QLatin1Char('\n'))) {
        t.replace(QLatin1String("\""), QLatin1String("\"\""));
        t = QLatin1Char('"') + t + QLatin1Char('"');
    }
    return t.toUtf8();
}

}  // namespace

QByteArray tableCsv(const QAbstractItemModel &model)
{
    QByteArray out;
    const int columns = model.columnCount();
    for (int c = 0; c < columns; ++c) {
        if (c > 0)
            out += ',';
        out += csvField(model.headerData(c, Qt::Horizontal).toString());
    }
    out += '\n';
    for (int r = 0; r < model.rowCount(); ++r) {
        for (int c = 0; c < columns; ++c) {
            if (c > 0)
                out += ',';
            out += csvField(model.data(model.index(r, c)).toString());
        }
        out += '\n';
    }
    return out;
}

QAbstractItemView *visibleTable(QWidget *root)
{
    if (!root)
        return nullptr;
    const QList<QAbstractItemView *> views = root->findChildren<QAbstractItemView *>();
    for (QAbstractItemView *view : views) {
        // Lists inside combo boxes are item views too; a table has a header.
        if (view->isVisible() && view->model() && view->model()->columnCount() > 1)
            return view;
    }
    return nullptr;
}

bool writeFile(const QString &path, const QByteArray &data, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool writeImage(QWidget *widget, const QString &path, QString *error)
{
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(widget->size());
        svg.setViewBox(widget->rect());
        svg.setTitle(widget->windowTitle());
        QPainter painter;
        if (!painter.begin(&svg)) {
            if (error)
                *error = QStringLiteral("%1: cannot write an SVG file here").arg(path);
            return false;
        }
        widget->render(&painter);
        painter.end();
        return true;
    }
    if (!widget->grab().save(path, "PNG")) {
        if (error)
            *error = QStringLiteral("%1: cannot write a PNG file here").arg(path);
        return false;
    }
    return true;
}

std::optional<SavedImage> chooseAndWriteCharts(QWidget *charts, const QString &suggestedName,
                                               QLabel *status)
{
    const QString path =
        QFileDialog::getSaveFileName(charts, QObject::tr("Export the charts"), suggestedName,
                                     QObject::tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return std::nullopt;
    SavedImage saved {path, {}};
    if (!writeImage(charts, path, &saved.error) && saved.error.isEmpty())
        saved.error = QObject::tr("Could not write %1").arg(path);
    status->setText(saved.ok() ? QObject::tr("Saved %1").arg(path) : saved.error);
    status->setVisible(true);
    return saved;
}

}  // namespace ptwb::ui::ViewExport
