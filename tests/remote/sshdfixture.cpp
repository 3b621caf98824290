#include "sshdfixture.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

const char kSshd[] = "/usr/sbin/sshd";

QString sshKeygen()
{
    return QStandardPaths::findExecutable(QStringLiteral("ssh-keygen"));
}

int freePort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

bool portAccepts(int port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(quint16(port));
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
}

bool runKeygen(const QStringList &arguments, QByteArray *out = nullptr)
{
    QProcess process;
    process.start(sshKeygen(), arguments);
    if (!process.waitForFinished(30000) || process.exitCode() != 0)
        return false;
    if (out)
        *out = process.readAllStandardOutput();
    return true;
}

qint64 parentOf(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');  // the command may hold spaces
    const QList<QByteArray> fields = text.mid(close + 2).split(' ');
    return fields.size() > 1 ? fields.at(1).toLongLong() : -1;
}

}  // namespace

SshdFixture::SshdFixture()
{
    m_user = qEnvironmentVariable("USER");
    if (m_user.isEmpty()) {
        if (const passwd *entry = getpwuid(geteuid()))
            m_user = QString::fromLocal8Bit(entry->pw_name);
    }
}

SshdFixture::~SshdFixture()
{
    stop();
}

QString SshdFixture::missingPrograms()
{
    QStringList missing;
    if (!QFileInfo(QString::fromLatin1(kSshd)).isExecutable())
        missing << QString::fromLatin1(kSshd);
    if (sshKeygen().isEmpty())
        missing << QStringLiteral("ssh-keygen");
    if (missing.isEmpty())
        return {};
    return QStringLiteral("%1 not installed (Debian: openssh-server, openssh-client); the SSH "
                          "transport's tests need a real sshd on 127.0.0.1")
        .arg(missing.join(QStringLiteral(" and ")));
}

QString SshdFixture::makeKey(const QString &name, QString *fingerprint,
                             const QString &passphrase) const
{
    const QString path = m_dir.filePath(name);
    QFile::remove(path);
    QFile::remove(path + QStringLiteral(".pub"));
    if (!runKeygen({QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                    QStringLiteral("-N"), passphrase, QStringLiteral("-C"), name,
                    QStringLiteral("-f"), path}))
        return {};
    if (fingerprint) {
        QByteArray out;
        runKeygen({QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"),
                   QStringLiteral("-f"), path + QStringLiteral(".pub")},
                  &out);
        *fingerprint = QString::fromLatin1(out.split(' ').value(1));
    }
    return path;
}

void SshdFixture::authorize(const QString &privateKeyPath, const QByteArray &keyOptions) const
{
    QFile file(m_dir.filePath(QStringLiteral("authorized_keys")));
    if (file.open(QIODevice::Append))
        file.write((keyOptions.isEmpty() ? QByteArray() : keyOptions + ' ') +
                   publicKey(privateKeyPath) + '\n');
}

QByteArray SshdFixture::publicKey(const QString &privateKeyPath) const
{
    QFile file(privateKeyPath + QStringLiteral(".pub"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QList<QByteArray> parts = file.readAll().trimmed().split(' ');
    return parts.size() >= 2 ? parts.at(0) + ' ' + parts.at(1) : QByteArray();
}

bool SshdFixture::start(QString *error)
{
    if (!m_dir.isValid()) {
        *error = QStringLiteral("no temporary directory");
        return false;
    }
    if (makeKey(QStringLiteral("hostkey"), &m_hostFingerprint).isEmpty() ||
        makeKey(QStringLiteral("userkey")).isEmpty()) {
        *error = QStringLiteral("ssh-keygen failed");
        return false;
    }
    QFile::remove(m_dir.filePath(QStringLiteral("authorized_keys")));
    QFile::copy(m_dir.filePath(QStringLiteral("userkey.pub")),
                m_dir.filePath(QStringLiteral("authorized_keys")));
    // sshd refuses to start as root without its privilege-separation directory, which only
    // the openssh-server service normally creates.
    if (geteuid() == 0 && !QFileInfo::exists(QStringLiteral("/run/sshd"))) {
        if (mkdir("/run/sshd", 0755) != 0) {
            *error = QStringLiteral("cannot create /run/sshd");
            return false;
        }
    }

    for (int attempt = 0; attempt < 3; ++attempt) {
        m_port = freePort();
        const QString config = m_dir.filePath(QStringLiteral("sshd_config"));
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            *error = QStringLiteral("cannot write %1").arg(config);
            return false;
        }
        const QString dir = m_dir.path();
        file.write(QStringLiteral("Port %1\n"
                                  "ListenAddress 127.0.0.1\n"
                                  "HostKey %2/hostkey\n"
                                  "AuthorizedKeysFile %2/authorized_keys\n"
                                  "PidFile %2/sshd.pid\n"
                                  "StrictModes no\n"
                                  "UsePAM no\n"
                                  "PubkeyAuthentication yes\n"
                                  "PasswordAuthentication no\n"
                                  "KbdInteractiveAuthentication no\n"
                                  "PermitRootLogin prohibit-password\n"
                                  // Only PATH, and only where a test's key sets it with
                                  // environment="PATH=..." (authorize()): a login PATH of the
                                  // test's choosing, e.g. with stand-ins for sudo and python3.
                                  "PermitUserEnvironment PATH\n"
                                  "Subsystem sftp internal-sftp\n"
                                  "MaxStartups 100\n"
                                  "LogLevel VERBOSE\n")
                       .arg(m_port)
                       .arg(dir)
                       .toUtf8());
        file.close();

        m_sshd = std::make_unique<QProcess>();
        m_sshd->setStandardOutputFile(m_dir.filePath(QStringLiteral("sshd.log")),
                                      QIODevice::Append);
        m_sshd->setStandardErrorFile(m_dir.filePath(QStringLiteral("sshd.log")), QIODevice::Append);
        // sshd re-executes itself and so needs its absolute path.
        m_sshd->start(QString::fromLatin1(kSshd),
                      {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), config});
        if (!m_sshd->waitForStarted(10000)) {
            *error = QStringLiteral("sshd did not start: ") + m_sshd->errorString();
            return false;
        }
        for (int i = 0; i < 100 && m_sshd->state() == QProcess::Running; ++i) {
            if (portAccepts(m_port))
                return true;
            QThread::msleep(50);
        }
        stop();  // the port was taken meanwhile, or sshd refused the config: try again
    }
    *error = QStringLiteral("sshd did not come up; its log:\n") + log();
    return false;
}

void SshdFixture::stop()
{
    if (!m_sshd)
        return;
    signalSessions(SIGKILL);
    if (m_sshd->state() != QProcess::NotRunning) {
        m_sshd->terminate();
        if (!m_sshd->waitForFinished(5000)) {
            m_sshd->kill();
            m_sshd->waitForFinished(5000);
        }
    }
    m_sshd.reset();
}

QString SshdFixture::log() const
{
    QFile file(m_dir.filePath(QStringLiteral("sshd.log")));
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

QList<qint64> SshdFixture::sessionPids() const
{
    QList<qint64> result;
    if (!m_sshd || m_sshd->state() != QProcess::Running)
        return result;
    QList<qint64> parents {m_sshd->processId()};
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    // Walk down from the listener; only the sshd processes, not what they run.
    while (!parents.isEmpty()) {
        const qint64 parent = parents.takeFirst();
        for (const QString &entry : entries) {
            bool isNumber = false;
            const qint64 pid = entry.toLongLong(&isNumber);
            if (!isNumber || parentOf(pid) != parent)
                continue;
            QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
            if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "sshd") {
                result.append(pid);
                parents.append(pid);
            }
        }
    }
    return result;
}

void SshdFixture::signalSessions(int signal) const
{
    for (qint64 pid : sessionPids())
        ::kill(pid_t(pid), signal);
}
