#include "viewexport.h"

#include "backgroundtasks.h"
#include "plaintext.h"

#include <QAbstractItemView>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsView>
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

bool writeChartView(QGraphicsView *view, const QString &path, const QString &svgTitle,
                    QString *error)
{
    const auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize size = view->viewport()->size();
    const QRectF target(QPointF(0, 0), QSizeF(size));
    if (suffix == QLatin1String("png")) {
        const qreal dpr = view->devicePixelRatioF();
        QImage image(size * dpr, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(dpr);
        image.fill(view->palette().color(QPalette::Window));
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            view->render(&painter, target, view->viewport()->rect());
        }
        return image.save(path, "PNG") || fail(QObject::tr("Could not write %1").arg(path));
    }
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(), size));
        generator.setTitle(svgTitle);
        generator.setDescription(QObject::tr("Exported from PowerTrain Workbench"));
        QPainter painter;
        if (!painter.begin(&generator))
            return fail(QObject::tr("Could not write %1").arg(path));
        painter.setRenderHint(QPainter::Antialiasing);
        view->render(&painter, target, view->viewport()->rect());
        painter.end();
        return QFileInfo(path).size() > 0 || fail(QObject::tr("Could not write %1").arg(path));
    }
    return fail(QObject::tr("%1: unknown picture format; use .png or .svg").arg(path));
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

std::optional<SavedFile> chooseAndWriteCharts(QWidget *charts, const QString &suggestedName,
                                              QLabel *status)
{
    const QString path =
        QFileDialog::getSaveFileName(charts, QObject::tr("Export the charts"), suggestedName,
                                     QObject::tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return std::nullopt;
    SavedFile saved {path, {}};
    if (!writeImage(charts, path, &saved.error) && saved.error.isEmpty())
        saved.error = QObject::tr("Could not write %1").arg(path);
    makePlain(status);
    status->setText(saved.ok() ? QObject::tr("Saved %1").arg(path) : saved.error);
    status->setVisible(true);
    return saved;
}

void writeFileInBackground(BackgroundTasks &tasks, const QString &path,
                           std::function<QByteArray()> data,
                           std::function<void(const SavedFile &)> done)
{
    tasks.run(
        QStringLiteral("export"),
        [path, data = std::move(data)](const TaskContext &) {
            QString error;
            return writeFile(path, data(), &error) ? QString() : error;
        },
        [path, done = std::move(done)](const QString &error) {
            done({path, error});
        });
}

}  // namespace ptwb::ui::ViewExport
