#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace ptwb {

// Building the one command line an SSH exec channel takes. The remote side hands that line to
// the user's login shell, so every token is quoted: the line is made only of our own fixed
// tokens (program, paths, options), each one wrapped in single quotes. Nothing a person typed
// ever goes here; requests travel as JSON on stdin (docs/device-protocol.md).
namespace ShellQuote {

// One token in POSIX single quotes: 'it'\''s' for it's. Every byte but the single quote is
// literal inside single quotes (newlines, $, `, \, ;, spaces included), so the shell passes the
// token byte-exact. The empty token becomes ''.
QByteArray quote(const QByteArray &token);
QByteArray quote(const QString &token);  // UTF-8
// The tokens quoted and joined by spaces.
QByteArray join(const QStringList &argv);

}  // namespace ShellQuote

}  // namespace ptwb
