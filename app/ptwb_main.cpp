// ptwb: the command line. Parses nothing itself: cli::run does.
#include "cli/cli.h"
#include "util/appidentity.h"

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    ptwb::setApplicationIdentity();
    QTextStream out(stdout);
    QTextStream err(stderr);
    return ptwb::cli::run(QCoreApplication::arguments(), out, err);
}
