#include "cli_helpers.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace cpcprof::test {

int run_program(const std::vector<std::string> &argv) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        std::vector<char *> args;
        for (const std::string &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

const storage::ModuleRecord *module_of(const storage::Reader &reader, const std::string &path) {
    std::error_code ec;
    std::filesystem::path want = std::filesystem::canonical(path, ec);
    if (ec)
        return nullptr;
    for (const storage::ModuleRecord &m : reader.modules()) {
        std::filesystem::path file = std::filesystem::canonical(m.info.path, ec);
        if (!ec && file == want)
            return &m;
    }
    return nullptr;
}

bool contains(const std::string &text, const std::string &needle) {
    return text.find(needle) != std::string::npos;
}

} // namespace cpcprof::test
