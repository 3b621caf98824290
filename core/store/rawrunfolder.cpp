#include "store/rawrunfolder.h"

#include "modes/plausibility.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ptwb {

namespace {

constexpr qint64 kMaxLogBytes = 64 * 1024 * 1024;  // far above a run's log (tens of kB)
constexpr qint64 kMaxClockDumpBytes = 1024 * 1024;

// The one file in `dir` matching `pattern`, or why there is none or more than one.
Expected<QString> onlyFile(const QDir &dir, const QString &pattern, const QString &what)
{
    const QStringList names = dir.entryList({pattern}, QDir::Files, QDir::Name);
    if (names.isEmpty()) {
        return Expected<QString>::failure(
            QStringLiteral("%1: no %2 file; expected %3").arg(dir.dirName(), pattern, what),
            ErrorKind::BadInput);
    }
    if (names.size() > 1) {
        return Expected<QString>::failure(QStringLiteral("%1: %2 files match %3 (%4); expected "
                                                         "one")
                                              .arg(dir.dirName())
                                              .arg(names.size())
                                              .arg(pattern, names.join(QStringLiteral(", "))),
                                          ErrorKind::BadInput);
    }
    return names.front();
}

Expected<QByteArray> readBounded(const QDir &dir, const QString &name, qint64 limit)
{
    QFile file(dir.filePath(name));
    const QString shown = dir.dirName() + QLatin1Char('/') + name;
    if (!file.open(QIODevice::ReadOnly)) {
        return Expected<QByteArray>::failure(
            QStringLiteral("%1: cannot read: %2").arg(shown, file.errorString()),
            ErrorKind::BadInput);
    }
    if (file.size() > limit) {
        return Expected<QByteArray>::failure(QStringLiteral("%1: %2 bytes; expected at most %3 "
                                                            "for one run's log")
                                                 .arg(shown)
                                                 .arg(file.size())
                                                 .arg(limit),
                                             ErrorKind::BadInput);
    }
    return file.read(limit);
}

}  // namespace

RawRunFolder::RawRunFolder(const ModeSpace &space, RunReductionOptions options, QString socFamily)
    : m_space(space)
    , m_options(options)
    , m_socFamily(std::move(socFamily))
{
}

bool RawRunFolder::looksLikeRunFolder(const QString &name)
{
    return name.startsWith(QLatin1String("pm_"));
}

Expected<QStringList> RawRunFolder::find(const QString &path)
{
    const QFileInfo info(path);
    if (!info.isDir()) {
        return Expected<QStringList>::failure(QStringLiteral("%1: not a folder").arg(path),
                                              ErrorKind::BadInput);
    }
    if (looksLikeRunFolder(info.fileName()))
        return QStringList {info.absoluteFilePath()};
    QStringList folders;
    const QDir dir(path);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (looksLikeRunFolder(name))
            folders.append(dir.absoluteFilePath(name));
    }
    if (folders.isEmpty()) {
        return Expected<QStringList>::failure(
            QStringLiteral("%1: no run folders; expected a summary CSV, a run folder, or a "
                           "folder of run folders named pm_<cores>_<cpu kHz>_<gpu Hz>_<mem Hz> "
                           "as the PowerTrain study's scripts write them")
                .arg(path),
            ErrorKind::BadInput);
    }
    return folders;
}

RunFolderResult RawRunFolder::read(const QString &path) const
{
    const QDir dir(path);
    RunFolderResult result;
    result.folder = dir.dirName();
    const auto failed = [&result](const QString &error) {
        result.error = error;
        return result;
    };

    const Expected<PowerMode> mode = RawRunFiles::modeFromFolderName(result.folder);
    if (!mode)
        return failed(mode.error());
    if (Status valid = m_space.validate(*mode); !valid) {
        return failed(QStringLiteral("%1: the folder names a mode the %2 does not offer: %3")
                          .arg(result.folder, m_space.device().name(), valid.error()));
    }

    const Expected<QString> epochName =
        onlyFile(dir, QStringLiteral("*_epoch_stats.csv"),
                 QStringLiteral("the per-minibatch log (epochtime_ms, log_time)"));
    if (!epochName)
        return failed(epochName.error());
    const Expected<QString> powerName =
        onlyFile(dir, QStringLiteral("*_tegrastats.csv"),
                 QStringLiteral("the jtop/tegrastats samples (power cur, log_time)"));
    if (!powerName)
        return failed(powerName.error());
    const Expected<QString> dumpName =
        onlyFile(dir, QStringLiteral("log_file_pm_*"),
                 QStringLiteral("the nvpmodel/jetson_clocks dump of the run's clocks"));
    if (!dumpName)
        return failed(dumpName.error());

    QCryptographicHash hash(QCryptographicHash::Sha256);
    QByteArray contents[3];
    const QString names[3] = {*epochName, *powerName, *dumpName};
    for (int i = 0; i < 3; ++i) {
        Expected<QByteArray> data =
            readBounded(dir, names[i], i == 2 ? kMaxClockDumpBytes : kMaxLogBytes);
        if (!data)
            return failed(data.error());
        contents[i] = std::move(data).value();
        hash.addData(names[i].toUtf8());
        hash.addData(QByteArrayView("\0", 1));
        hash.addData(contents[i]);
        hash.addData(QByteArrayView("\0", 1));
    }
    result.sha256 = QString::fromLatin1(hash.result().toHex());
    const auto shown = [&result](const QString &name) {
        return result.folder + QLatin1Char('/') + name;
    };

    const Expected<RawRunFiles::ClockDump> dump =
        RawRunFiles::parseClockDump(contents[2], shown(*dumpName));
    if (!dump)
        return failed(dump.error());
    result.machine = dump->machine;
    if (QString mismatch = checkClocks(*mode, *dump, shown(*dumpName)); !mismatch.isEmpty())
        return failed(mismatch);

    const Expected<QVector<RawRunFiles::Minibatch>> minibatches =
        RawRunFiles::parseEpochStats(contents[0], shown(*epochName));
    if (!minibatches)
        return failed(minibatches.error());
    const Expected<QVector<RawRunFiles::PowerSample>> samples =
        RawRunFiles::parseTegrastats(contents[1], shown(*powerName));
    if (!samples)
        return failed(samples.error());
    const Expected<ReducedRun> reduced =
        reduceRun(*minibatches, *samples, m_options, shown(*epochName), shown(*powerName));
    if (!reduced)
        return failed(reduced.error());

    // The reduced medians within what this device kind measures (plausibility.h); each sample
    // was already finite, positive and below the files' own bounds.
    const PlausibleRanges ranges = plausibleRangesFor(m_space.device());
    QString implausibleMedian =
        implausibleValue(QStringLiteral("%1: median minibatch time").arg(shown(*epochName)),
                         reduced->timeMs, ranges.minibatchMs, ranges.device);
    if (implausibleMedian.isEmpty()) {
        implausibleMedian =
            implausibleValue(QStringLiteral("%1: median power").arg(shown(*powerName)),
                             reduced->powerW, ranges.powerW, ranges.device);
    }
    if (!implausibleMedian.isEmpty())
        return failed(implausibleMedian);

    result.reduction = *reduced;
    Measurement measurement;
    measurement.mode = *mode;
    measurement.timeMs = reduced->timeMs;
    measurement.powerW = reduced->powerW;
    measurement.timeSpreadMs = reduced->timeSpreadMs;
    measurement.powerSpreadW = reduced->powerSpreadW;
    measurement.minibatches = reduced->minibatches;
    result.measurement = measurement;
    return result;
}

QString RawRunFolder::checkClocks(const PowerMode &mode, const RawRunFiles::ClockDump &dump,
                                  const QString &logName) const
{
    const auto mismatch = [&logName](const QString &what, qint64 logged, qint64 named) {
        return QStringLiteral("%1: the log says %2 %3, the folder name %4; expected the clocks "
                              "the folder name gives")
            .arg(logName, what)
            .arg(logged)
            .arg(named);
    };
    if (!m_socFamily.isEmpty() && dump.socFamily != m_socFamily) {
        return QStringLiteral("%1: the log's SOC family is %2 (machine '%3'), not the %4's %5; "
                              "expected a run on that device kind")
            .arg(logName, dump.socFamily, dump.machine, m_space.device().name(), m_socFamily);
    }
    if (dump.onlineCores != mode.cores)
        return mismatch(QStringLiteral("CPU cores online:"), dump.onlineCores, mode.cores);
    for (qint64 khz : dump.onlineCpuKHz) {
        if (khz != mode.cpuKHz)
            return mismatch(QStringLiteral("an online CPU runs at (kHz)"), khz, mode.cpuKHz);
    }
    if (dump.gpuHz != mode.gpuHz)
        return mismatch(QStringLiteral("the GPU runs at (Hz)"), dump.gpuHz, mode.gpuHz);
    if (dump.emcHz != mode.emcHz)
        return mismatch(QStringLiteral("the memory runs at (Hz)"), dump.emcHz, mode.emcHz);
    return {};
}

}  // namespace ptwb
