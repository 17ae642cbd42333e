#include "cfi_cache_dir.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace cpcprof::record {

CfiCacheDir::CfiCacheDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/cpcprof-cfi-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr)
        path_ = buf.data();
}

CfiCacheDir::~CfiCacheDir() {
    if (path_.empty())
        return;
    // Only files, written by the agents: no subdirectories to walk.
    if (DIR *d = opendir(path_.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name != "." && name != "..")
                unlink((path_ + "/" + name).c_str());
        }
        closedir(d);
    }
    rmdir(path_.c_str());
}

} // namespace cpcprof::record
