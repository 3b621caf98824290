#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

class QAbstractItemModel;
class QLabel;
class QAbstractItemView;
class QWidget;

namespace ptwb::ui {

// Exports of what is on screen: any table as CSV (what it displays, with its headers), and any
// view as PNG or SVG (by the file's suffix).
namespace ViewExport {

QByteArray tableCsv(const QAbstractItemModel &model);
// The first visible table or tree inside `root` (the one a person would mean), or null.
QAbstractItemView *visibleTable(QWidget *root);
// PNG or SVG by suffix; `error` says why not.
bool writeImage(QWidget *widget, const QString &path, QString *error);
// Writes `data`, replacing the file only once it is complete.
bool writeFile(const QString &path, const QByteArray &data, QString *error);

// Where a view's "Export charts…" went: the file, and why it could not be written ("" if it was).
struct SavedImage
{
    QString path;
    QString error;
    bool ok() const { return error.isEmpty(); }
};
// A view's "Export charts…": asks where to save `charts` as PNG or SVG (offering
// `suggestedName`), writes it and says "Saved PATH" or the error in `status`. Nothing when the
// person cancelled.
std::optional<SavedImage> chooseAndWriteCharts(QWidget *charts, const QString &suggestedName,
                                               QLabel *status);

}  // namespace ViewExport

}  // namespace ptwb::ui
