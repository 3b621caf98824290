#pragma once

#include <QByteArray>
#include <QString>

#include <functional>
#include <optional>

class QAbstractItemModel;
class QLabel;
class QAbstractItemView;
class QGraphicsView;
class QWidget;

namespace ptwb::ui {

class BackgroundTasks;

// Exports of what is on screen: any table as CSV (what it displays, with its headers), and any
// view as PNG or SVG (by the file's suffix).
namespace ViewExport {

QByteArray tableCsv(const QAbstractItemModel &model);
// The first visible table or tree inside `root` (the one a person would mean), or null.
QAbstractItemView *visibleTable(QWidget *root);
// PNG or SVG by suffix; `error` says why not.
bool writeImage(QWidget *widget, const QString &path, QString *error);
// A chart view as it is on screen (its viewport), PNG at the screen's pixel ratio or SVG with
// `svgTitle`, by the file's suffix; `error` says why not.
bool writeChartView(QGraphicsView *view, const QString &path, const QString &svgTitle,
                    QString *error);
// Writes `data`, replacing the file only once it is complete.
bool writeFile(const QString &path, const QByteArray &data, QString *error);

// Where an export went: the file, and why it could not be written ("" if it was).
struct SavedFile
{
    QString path;
    QString error;
    bool ok() const { return error.isEmpty(); }
};
// A view's "Export charts…": asks where to save `charts` as PNG or SVG (offering
// `suggestedName`), writes it and says "Saved PATH" or the error in `status`. Nothing when the
// person cancelled.
std::optional<SavedFile> chooseAndWriteCharts(QWidget *charts, const QString &suggestedName,
                                              QLabel *status);

// Writes what `data` makes to `path` on a worker of `tasks` (task "export": a newer export
// replaces one not yet shown), then calls `done` on the GUI thread.
void writeFileInBackground(BackgroundTasks &tasks, const QString &path,
                           std::function<QByteArray()> data,
                           std::function<void(const SavedFile &)> done);

}  // namespace ViewExport

}  // namespace ptwb::ui
