// SPDX-License-Identifier: MIT
// A directory made for one test and removed with everything in it (kept,
// and its path printed, when CPCPROF_TEST_KEEP is set).  Under $TMPDIR, or
// /tmp.
#pragma once

#include <string>

namespace cpcprof::test {

class TempDir {
  public:
    // prefix: the start of the directory's name, to tell whose it is.
    explicit TempDir(const std::string &prefix = "cpcprof-test");
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::string &path() const { return path_; }
    std::string file(const std::string &name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

} // namespace cpcprof::test
