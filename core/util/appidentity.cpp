#include "util/appidentity.h"

#include <QCoreApplication>

namespace ptwb {

void setApplicationIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("powertrain-workbench"));
    QCoreApplication::setApplicationName(QStringLiteral("powertrain-workbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PTWB_VERSION));
}

}  // namespace ptwb
