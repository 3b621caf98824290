#include "util/installlayout.h"

#include <unistd.h>

#include <climits>

namespace ptwb::install {

std::string executableDirectory()
{
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0)
        return {};
    const std::string text(path, size_t(length));
    return text.substr(0, text.rfind('/'));
}

bool runningFromBuildTree()
{
    const std::string buildTree = PTWB_BUILD_TREE;
    const std::string bin = executableDirectory();
    return !bin.empty() && bin.compare(0, buildTree.size(), buildTree) == 0 &&
        (bin.size() == buildTree.size() || bin[buildTree.size()] == '/');
}

std::string privateLibraryDirectory()
{
    return executableDirectory() + "/" PTWB_BIN_TO_PRIVATE_LIB;
}

std::string dataDirectory()
{
    return executableDirectory() + "/" PTWB_BIN_TO_DATA;
}

}  // namespace ptwb::install
