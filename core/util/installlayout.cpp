#include "util/installlayout.h"

#include <unistd.h>

#include <climits>
#include <filesystem>

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
    // /proc/self/exe has its symbolic links resolved; the build tree's path may have some.
    std::error_code ignored;
    const std::string buildTree =
        std::filesystem::weakly_canonical(PTWB_BUILD_TREE, ignored).string();
    const std::string bin = executableDirectory();
    return !bin.empty() && bin.compare(0, buildTree.size(), buildTree) == 0 &&
        (bin.size() == buildTree.size() || bin[buildTree.size()] == '/');
}

namespace {

// bin/../lib/x -> lib/x, so the paths people see (ptwb --version, errors) read plainly.
std::string besideExecutable(const char *relative)
{
    return (std::filesystem::path(executableDirectory()) / relative).lexically_normal().string();
}

}  // namespace

std::string privateLibraryDirectory()
{
    return besideExecutable(PTWB_BIN_TO_PRIVATE_LIB);
}

std::string dataDirectory()
{
    return besideExecutable(PTWB_BIN_TO_DATA);
}

}  // namespace ptwb::install
