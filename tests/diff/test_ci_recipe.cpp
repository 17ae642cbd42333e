// SPDX-License-Identifier: MIT
// docs/ci.md's gate script, taken from the page as a user copies it, run
// as a CI job runs it: on main (no baseline: it records and draws), then
// on a branch whose program has a regression (fw_injected takes 20 % more
// of the run: the gate fails and every output names it), then on a branch
// of the same program (the gate passes).  The program is the bundled
// bench_fixed_work, whose work is fixed.
//
// Then the page's two CI recipes, the GitHub Actions workflow and the
// GitLab CI job, step by step: each shell step as the YAML writes it, in a
// job folder holding the script as ci/cpcprof-gate.sh and a test command
// at ./build/tests/whatever, with the environment the CI system sets.
// What the CI system itself does is played by the test: GitHub's artifact
// upload and download (the files of cpcprof-out/ into main-artifact/),
// GitLab's job-artifacts API (a loopback HTTP server that serves main's
// artifacts as a zip, only to the job's token).  The install and build
// steps are not run here: install.prefix runs `cmake --install`, and the
// README's commands build with the same script; the test checks that the
// presets those steps name exist.
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace cpcprof::test {
namespace {

// The script of docs/ci.md's "The script": the ```sh block that starts
// with its #! line.
std::string gate_script() {
    std::string page = read_file(SOURCE_DIR "/docs/ci.md");
    const std::string open = "```sh\n#!/bin/sh\n# cpcprof-gate.sh";
    size_t from = page.find(open);
    if (from == std::string::npos)
        return "";
    from += 6; // past "```sh\n"
    size_t to = page.find("\n```\n", from);
    return to == std::string::npos ? "" : page.substr(from, to - from + 1);
}

struct Job {
    RunResult result;
    std::string out; // the job's OUT folder
};

// One CI job: the script in dir with the environment a job sets.
Job run_job(const TempDir &dir, const std::string &name, const std::string &baseline,
            const std::vector<std::string> &test_command,
            const std::vector<std::string> &more_env = {}) {
    Job job;
    job.out = dir.file(name);
    std::vector<std::string> argv = {"/bin/sh", dir.file("cpcprof-gate.sh")};
    argv.insert(argv.end(), test_command.begin(), test_command.end());
    ProgramOptions o;
    o.env = {std::string("CPCPROF=") + CPCPROF_EXE, "BASELINE=" + baseline, "RUNS=2",
             "OUT=" + job.out, "GITHUB_STEP_SUMMARY=" + dir.file(name + "-summary")};
    o.env.insert(o.env.end(), more_env.begin(), more_env.end());
    o.own_group = true;
    o.out = name + ".stdout";
    o.err = name + ".stderr";
    pid_t pid = start_program(dir, argv, o);
    job.result = wait_program(dir, pid, o, 90);
    return job;
}

bool exists(const std::string &path) {
    return std::filesystem::exists(path);
}

TEST(CiRecipe, TheGateScriptOfTheDocsCatchesARegressionAndPassesTheSameBuild) {
    SKIP_WITHOUT_DEMO_RECORDING(); // the agent is preloaded into bench_fixed_work
    const std::string script = gate_script();
    ASSERT_FALSE(script.empty()) << "no cpcprof-gate.sh block in docs/ci.md";
    TempDir dir;
    {
        std::ofstream f(dir.file("cpcprof-gate.sh"));
        f << script;
    }
    const std::vector<std::string> same = {FIXED_WORK_EXE, "1"};
    const std::vector<std::string> slower = {FIXED_WORK_EXE, "1", "20"};

    // main: nothing to compare with; its runs are the next baseline.
    Job main = run_job(dir, "main", dir.file("main-profiles"), same);
    ASSERT_EQ(main.result.status, 0) << main.result.out << main.result.err;
    EXPECT_NE(main.result.out.find("nothing to compare with"), std::string::npos)
        << main.result.out;
    for (const char *f : {"/run-1.cpcprof", "/run-2.cpcprof", "/flame.html"})
        EXPECT_TRUE(exists(main.out + f)) << f;
    EXPECT_FALSE(exists(main.out + "/diff.txt"));
    std::filesystem::rename(main.out, dir.file("main-profiles"));

    // A branch with a regression: exit 3, named in every output.
    Job bad = run_job(dir, "bad", dir.file("main-profiles"), slower);
    EXPECT_EQ(bad.result.status, 3) << bad.result.out << bad.result.err;
    EXPECT_NE(bad.result.err.find("regression"), std::string::npos) << bad.result.err;
    EXPECT_NE(bad.result.err.find("fw_injected"), std::string::npos) << bad.result.err;
    EXPECT_NE(bad.result.out.find("Welch's t-test over runs"), std::string::npos) << bad.result.out;
    std::string junit = read_file(bad.out + "/junit.xml");
    EXPECT_NE(junit.find("name=\"fw_injected (bench_fixed_work)\">\n      <failure"),
              std::string::npos)
        << junit;
    std::string summary = read_file(bad.out + "/summary.md");
    EXPECT_NE(summary.find("**Regression**"), std::string::npos) << summary;
    EXPECT_NE(summary.find("| **regression** | fw\\_injected |"), std::string::npos) << summary;
    EXPECT_EQ(read_file(dir.file("bad-summary")), summary) << "appended to GITHUB_STEP_SUMMARY";
    for (const char *f : {"/diff.txt", "/diff.html", "/flame.html"})
        EXPECT_TRUE(exists(bad.out + f)) << f;

    // The same build: the gate passes; fw_injected is nowhere.
    Job good = run_job(dir, "good", dir.file("main-profiles"), same);
    EXPECT_EQ(good.result.status, 0) << good.result.out << good.result.err;
    EXPECT_NE(good.result.out.find("no function's self share grew"), std::string::npos)
        << good.result.out;
    EXPECT_NE(read_file(good.out + "/junit.xml").find("failures=\"0\""), std::string::npos);
    EXPECT_NE(read_file(good.out + "/summary.md").find("**No regression**"), std::string::npos);
}

// With BASE_COMMAND the script records main's build itself, its runs
// taking turns with the branch's, and gates on those: no kept baseline
// is read (BASELINE names a folder that does not exist).
TEST(CiRecipe, TheGateScriptRecordsTheBaseInTurnsWithTheBranchWhenGivenItsCommand) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string script = gate_script();
    ASSERT_FALSE(script.empty()) << "no cpcprof-gate.sh block in docs/ci.md";
    TempDir dir;
    {
        std::ofstream f(dir.file("cpcprof-gate.sh"));
        f << script;
    }
    const std::string base_command = std::string("BASE_COMMAND=") + FIXED_WORK_EXE + " 1";
    const std::string nowhere = dir.file("no-kept-profiles");

    Job bad = run_job(dir, "bad", nowhere, {FIXED_WORK_EXE, "1", "20"}, {base_command});
    EXPECT_EQ(bad.result.status, 3) << bad.result.out << bad.result.err;
    EXPECT_NE(bad.result.err.find("fw_injected"), std::string::npos) << bad.result.err;
    EXPECT_NE(bad.result.out.find("Welch's t-test over runs"), std::string::npos) << bad.result.out;
    // The order the four recordings were written in: base, branch, then
    // branch, base (RUNS=2).
    std::vector<std::pair<std::filesystem::file_time_type, std::string>> order;
    for (const char *f : {"base-1", "run-1", "run-2", "base-2"}) {
        std::string path = bad.out + "/" + f + ".cpcprof";
        ASSERT_TRUE(exists(path)) << path;
        order.emplace_back(std::filesystem::last_write_time(path), f);
    }
    std::sort(order.begin(), order.end());
    std::string written;
    for (const auto &[when, name] : order)
        written += name + " ";
    EXPECT_EQ(written, "base-1 run-1 run-2 base-2 ");

    Job good = run_job(dir, "good", nowhere, {FIXED_WORK_EXE, "1"}, {base_command});
    EXPECT_EQ(good.result.status, 0) << good.result.out << good.result.err;
    EXPECT_NE(good.result.out.find("no function's self share grew"), std::string::npos)
        << good.result.out;
}

// ---- The CI recipes of docs/ci.md ----

// The ```yaml block that follows HEADING in docs/ci.md.
std::string yaml_after(const std::string &heading) {
    std::string page = read_file(SOURCE_DIR "/docs/ci.md");
    size_t at = page.find("\n" + heading + "\n");
    if (at == std::string::npos)
        return "";
    size_t from = page.find("```yaml\n", at);
    if (from == std::string::npos)
        return "";
    from += 8;
    size_t to = page.find("\n```\n", from);
    return to == std::string::npos ? "" : page.substr(from, to - from + 1);
}

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

size_t indent(const std::string &l) {
    return l.find_first_not_of(' ');
}

// A YAML scalar after "key:" or "- ": "|" takes the lines indented deeper
// than the key's line that follow (a literal block); quotes are dropped.
std::string scalar(const std::vector<std::string> &lines, size_t *i, const std::string &rest) {
    if (rest != "|") {
        if (rest.size() >= 2 && (rest.front() == '"' || rest.front() == '\'') &&
            rest.back() == rest.front())
            return rest.substr(1, rest.size() - 2);
        return rest;
    }
    size_t base = indent(lines[*i]);
    std::string block;
    size_t deeper = std::string::npos;
    while (*i + 1 < lines.size() && (lines[*i + 1].empty() || indent(lines[*i + 1]) > base)) {
        ++*i;
        if (deeper == std::string::npos && !lines[*i].empty())
            deeper = indent(lines[*i]);
        block += (lines[*i].empty() ? "" : lines[*i].substr(deeper)) + "\n";
    }
    return block;
}

// A GitLab job's script: the items of its "script:" list, in order.
std::vector<std::string> gitlab_script(const std::string &yaml) {
    std::vector<std::string> lines = split_lines(yaml), items;
    bool in = false;
    size_t list_indent = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &l = lines[i];
        if (l.empty())
            continue;
        size_t ind = indent(l);
        if (l.substr(ind) == "script:") {
            in = true;
            list_indent = ind + 2;
            continue;
        }
        if (!in)
            continue;
        if (ind != list_indent || l.compare(ind, 2, "- ") != 0)
            break;
        items.push_back(scalar(lines, &i, l.substr(ind + 2)));
    }
    return items;
}

// A GitHub workflow's steps: name, `run`, `env`, and the action it `uses`
// (the CI system's part) `with` its inputs.
struct Step {
    std::string name, run, uses;
    std::map<std::string, std::string> env, with;
};

std::vector<Step> github_steps(const std::string &yaml) {
    std::vector<std::string> lines = split_lines(yaml);
    std::vector<Step> steps;
    size_t step_indent = std::string::npos;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &l = lines[i];
        if (l.empty())
            continue;
        size_t ind = indent(l);
        if (l.substr(ind) == "steps:") {
            step_indent = ind + 2;
            continue;
        }
        if (step_indent == std::string::npos || ind < step_indent)
            continue;
        std::string item = l.substr(ind);
        if (ind == step_indent && item.compare(0, 2, "- ") == 0) {
            steps.emplace_back();
            item = item.substr(2);
        } else if (ind != step_indent + 2 || steps.empty()) {
            continue;
        }
        size_t colon = item.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = item.substr(0, colon);
        std::string rest = colon + 1 < item.size() ? item.substr(colon + 2) : "";
        Step &step = steps.back();
        if (key == "name")
            step.name = scalar(lines, &i, rest);
        else if (key == "run")
            step.run = scalar(lines, &i, rest);
        else if (key == "uses")
            step.uses = rest;
        else if (key == "env" || key == "with")
            while (i + 1 < lines.size() && !lines[i + 1].empty() &&
                   indent(lines[i + 1]) > step_indent + 2) {
                ++i;
                std::string kv = lines[i].substr(indent(lines[i]));
                size_t c = kv.find(':');
                (key == "env" ? step.env : step.with)[kv.substr(0, c)] =
                    scalar(lines, &i, kv.substr(c + 2));
            }
    }
    return steps;
}

// The install and build commands a recipe runs before the gate: not run
// here (see the top of this file); the presets they name must exist.
bool is_install_or_build(const std::string &command) {
    for (const char *word : {"apt-get ", "install-deps.sh", "cmake "})
        if (command.find(word) != std::string::npos)
            return true;
    return false;
}

void expect_presets_exist(const std::string &command) {
    nlohmann::json presets = nlohmann::json::parse(read_file(SOURCE_DIR "/CMakePresets.json"));
    const std::pair<const char *, std::string> uses[] = {
        {"configurePresets", "cmake --preset "}, {"buildPresets", "cmake --build --preset "}};
    for (const auto &[kind, words] : uses)
        for (size_t at = command.find(words); at != std::string::npos;
             at = command.find(words, at + 1)) {
            std::string name = command.substr(at + words.size());
            name = name.substr(0, name.find_first_of(" \n&;"));
            bool found = false;
            for (const auto &p : presets[kind])
                found = found || p.value("name", "") == name;
            EXPECT_TRUE(found) << kind << " has no \"" << name << "\" (" << command << ")";
        }
    if (command.find("install-deps.sh") != std::string::npos) {
        EXPECT_TRUE(exists(SOURCE_DIR "/packaging/install-deps.sh"));
    }
}

// A job's folder: the gate script at ci/cpcprof-gate.sh, `cpcprof` on PATH
// (bin/cpcprof: the build tree's, which finds its agent from its own
// path), and ./build/tests/whatever, the test command of the recipes,
// running bench_fixed_work (with its regression when EXTRA_PERCENT is not
// empty).
std::string make_job_folder(const TempDir &dir, const std::string &name,
                            const std::string &extra_percent) {
    namespace fs = std::filesystem;
    std::string job = dir.file(name);
    fs::create_directories(job + "/ci");
    fs::create_directories(job + "/bin");
    fs::create_directories(job + "/build/tests");
    {
        std::ofstream f(job + "/ci/cpcprof-gate.sh");
        f << gate_script();
    }
    fs::create_symlink(CPCPROF_EXE, job + "/bin/cpcprof");
    {
        std::ofstream f(job + "/build/tests/whatever");
        f << "#!/bin/sh\nexec " << FIXED_WORK_EXE << " 1 " << extra_percent << "\n";
    }
    fs::permissions(job + "/build/tests/whatever", fs::perms::owner_all, fs::perm_options::add);
    return job;
}

// One shell step of a recipe, run by sh in the job's folder.
RunResult run_step(const TempDir &dir, const std::string &job, const std::string &step,
                   const std::vector<std::string> &env, const std::string &label) {
    ProgramOptions o;
    o.env = env;
    o.env.push_back("PATH=" + job + "/bin:" + std::getenv("PATH"));
    o.own_group = true;
    o.out = label + ".stdout";
    o.err = label + ".stderr";
    // start_program runs in dir: the step changes to its job's folder.
    pid_t pid = start_program(dir, {"/bin/sh", "-c", "cd \"$0\" && " + step, job}, o);
    return wait_program(dir, pid, o, 120);
}

// GitLab's job-artifacts API on loopback: GET
// /api/v4/projects/ID/jobs/artifacts/BRANCH/download?job=JOB with the
// header JOB-TOKEN answers a zip of the files under FOLDER (their paths
// relative to its parent, as GitLab keeps an artifact's paths); anything
// else 404, a wrong token 401.  Killed with its process group when it
// goes out of scope.
class ArtifactServer {
  public:
    ArtifactServer(const TempDir &dir, const std::string &folder, const std::string &token) {
        {
            std::ofstream f(dir.file("artifact_server.py"));
            f << R"PY(import http.server, io, os, sys, zipfile
folder, token = sys.argv[1], sys.argv[2]
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    parent = os.path.dirname(folder)
    for root, _, files in os.walk(folder):
        for f in files:
            z.write(os.path.join(root, f), os.path.relpath(os.path.join(root, f), parent))
body = buf.getvalue()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/api/v4/projects/7/jobs/artifacts/main/download?job=profile":
            self.send_error(404)
        elif self.headers.get("JOB-TOKEN") != token:
            self.send_error(401)
        else:
            self.send_response(200)
            self.send_header("Content-Type", "application/zip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    def log_message(self, *a):
        sys.stderr.write(self.requestline + chr(10))
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
)PY";
        }
        ProgramOptions o;
        o.own_group = true;
        o.out = "server.stdout";
        o.err = "server.stderr";
        pid_ = start_program(
            dir, {"/usr/bin/python3", dir.file("artifact_server.py"), folder, token}, o);
        // Its port, once it listens (bounded: a server that does not
        // start fails the test, not hangs it).
        for (int i = 0; i < 200 && port_.empty(); ++i) {
            std::string out = read_file(dir.file("server.stdout"));
            if (out.find('\n') != std::string::npos)
                port_ = out.substr(0, out.find('\n'));
            else
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    ~ArtifactServer() {
        if (pid_ > 0) {
            kill(-pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    ArtifactServer(const ArtifactServer &) = delete;
    ArtifactServer &operator=(const ArtifactServer &) = delete;
    const std::string &port() const { return port_; }

  private:
    pid_t pid_ = -1;
    std::string port_;
};

TEST(CiRecipe, TheGitLabJobKeepsMainsRunsAndGatesAMergeRequestOnThem) {
    SKIP_WITHOUT_DEMO_RECORDING();
    if (!exists("/usr/bin/python3") || run_quiet({"curl", "--version"}) != 0 ||
        run_quiet({"unzip", "-v"}) != 0)
        GTEST_SKIP() << "needs /usr/bin/python3, curl and unzip (sh packaging/install-deps.sh "
                        "--tests installs them)";
    const std::vector<std::string> script = gitlab_script(yaml_after("### GitLab CI"));
    ASSERT_FALSE(script.empty()) << "no GitLab job with a script in docs/ci.md";
    ASSERT_FALSE(gate_script().empty());
    TempDir dir;
    const std::string token = "job-token-of-the-test";
    // A job: every item of its script, as GitLab runs them (the first that
    // fails ends the job with its status).
    auto run_job = [&](const std::string &name, const std::string &extra,
                       const std::vector<std::string> &env) {
        const std::string job = make_job_folder(dir, name, extra);
        RunResult last;
        int k = 0;
        for (const std::string &item : script) {
            if (is_install_or_build(item)) {
                expect_presets_exist(item);
                continue;
            }
            last = run_step(dir, job, item, env, name + "-" + std::to_string(k++));
            if (last.status != 0)
                break;
        }
        return std::make_pair(job, last);
    };
    const std::vector<std::string> gitlab = {"CI_DEFAULT_BRANCH=main", "CI_PROJECT_ID=7",
                                             "CI_JOB_TOKEN=" + token};

    // On main: nothing fetched, nothing to compare with; the runs are kept.
    auto [main_job, on_main] = run_job("main", "", [&] {
        auto env = gitlab;
        env.emplace_back("CI_COMMIT_BRANCH=main");
        env.emplace_back("CI_API_V4_URL=http://127.0.0.1:1/api/v4"); // never asked
        return env;
    }());
    ASSERT_EQ(on_main.status, 0) << on_main.out << on_main.err;
    EXPECT_NE(on_main.out.find("nothing to compare with"), std::string::npos) << on_main.out;
    for (const char *f : {"run-1.cpcprof", "run-2.cpcprof", "run-3.cpcprof", "flame.html"})
        EXPECT_TRUE(exists(main_job + "/cpcprof-out/" + f)) << f;
    EXPECT_FALSE(exists(main_job + "/main-artifact"));

    ArtifactServer server(dir, main_job + "/cpcprof-out", token);
    ASSERT_FALSE(server.port().empty()) << read_file(dir.file("server.stderr"));
    const std::string api = "CI_API_V4_URL=http://127.0.0.1:" + server.port() + "/api/v4";

    // A merge request (no CI_COMMIT_BRANCH in its pipelines) whose program
    // has the regression: main's runs fetched, the gate fails with 3.
    auto [bad_job, bad] = run_job("bad", "20", [&] {
        auto env = gitlab;
        env.push_back(api);
        return env;
    }());
    EXPECT_EQ(bad.status, 3) << bad.out << bad.err;
    EXPECT_TRUE(exists(bad_job + "/main-artifact/cpcprof-out/run-3.cpcprof"))
        << read_file(dir.file("server.stderr"));
    EXPECT_NE(bad.err.find("fw_injected"), std::string::npos) << bad.err;
    EXPECT_NE(bad.out.find("Welch's t-test over runs"), std::string::npos) << bad.out;
    // The job's test report, as its artifacts:reports:junit names it.
    EXPECT_NE(read_file(bad_job + "/cpcprof-out/junit.xml").find("<failure"), std::string::npos);

    // A branch pipeline of the same program: fetched, compared, passes.
    auto [good_job, good] = run_job("good", "", [&] {
        auto env = gitlab;
        env.push_back(api);
        env.emplace_back("CI_COMMIT_BRANCH=feature");
        return env;
    }());
    EXPECT_EQ(good.status, 0) << good.out << good.err;
    EXPECT_NE(good.out.find("no function's self share grew"), std::string::npos) << good.out;

    // A token the API refuses: nothing fetched, the job still runs and says
    // it had nothing to compare with (the fetch's `|| true`).
    auto [refused_job, refused] = run_job("refused", "20", [&] {
        auto env = gitlab;
        env.back() = "CI_JOB_TOKEN=another";
        env.push_back(api);
        return env;
    }());
    EXPECT_EQ(refused.status, 0) << refused.out << refused.err;
    EXPECT_NE(refused.out.find("nothing to compare with"), std::string::npos) << refused.out;
    EXPECT_FALSE(exists(refused_job + "/main-artifact/cpcprof-out"));
}

TEST(CiRecipe, TheGitHubWorkflowKeepsMainsRunsAndGatesAPullRequestOnThem) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::vector<Step> steps = github_steps(yaml_after("## GitHub Actions"));
    ASSERT_FALSE(steps.empty()) << "no workflow steps in docs/ci.md";
    ASSERT_FALSE(gate_script().empty());
    const Step *gate = nullptr, *download = nullptr, *upload = nullptr;
    for (const Step &s : steps) {
        if (!s.run.empty() && is_install_or_build(s.run))
            expect_presets_exist(s.run);
        else if (!s.run.empty())
            gate = &s; // the one shell step besides install and build
        else if (s.uses.rfind("actions/download-artifact@", 0) == 0)
            download = &s;
        else if (s.uses.rfind("actions/upload-artifact@", 0) == 0)
            upload = &s;
    }
    ASSERT_NE(gate, nullptr);
    ASSERT_NE(download, nullptr);
    ASSERT_NE(upload, nullptr);
    // Where the download puts main's files, and what the upload keeps.
    const std::string baseline = download->with.count("path") ? download->with.at("path") : "";
    std::string kept = upload->with.count("path") ? upload->with.at("path") : "";
    ASSERT_FALSE(baseline.empty());
    ASSERT_FALSE(kept.empty());
    if (kept.back() == '/')
        kept.pop_back();
    std::vector<std::string> env;
    for (const auto &[k, v] : gate->env) {
        env.push_back(k + "=");
        env.back() += v;
    }
    TempDir dir;

    // A push to main: no artifact fetched (the steps that would are
    // skipped on a push), nothing to compare with; the job's cpcprof-out/
    // is uploaded as the artifact.
    const std::string main_job = make_job_folder(dir, "main", "");
    RunResult on_main = run_step(dir, main_job, gate->run, env, "main");
    ASSERT_EQ(on_main.status, 0) << on_main.out << on_main.err;
    EXPECT_NE(on_main.out.find("nothing to compare with"), std::string::npos) << on_main.out;

    // A pull request whose program has the regression: the artifact's files
    // downloaded into BASELINE (download-artifact's `path`), the step run
    // with the step summary GitHub gives it.
    const std::string pr_job = make_job_folder(dir, "pr", "20");
    std::filesystem::copy(main_job + "/" + kept, pr_job + "/" + baseline);
    std::vector<std::string> pr_env = env;
    pr_env.push_back("GITHUB_STEP_SUMMARY=" + dir.file("step-summary"));
    RunResult pr = run_step(dir, pr_job, gate->run, pr_env, "pr");
    EXPECT_EQ(pr.status, 3) << pr.out << pr.err;
    EXPECT_NE(pr.err.find("fw_injected"), std::string::npos) << pr.err;
    EXPECT_NE(pr.out.find("Welch's t-test over runs"), std::string::npos) << pr.out;
    std::string summary = read_file(dir.file("step-summary"));
    EXPECT_NE(summary.find("**Regression**"), std::string::npos) << summary;
    // What the upload step keeps (its `path`).
    const std::string kept_there = pr_job + "/" + kept + "/";
    for (const char *f : {"run-1.cpcprof", "flame.html", "diff.html", "junit.xml", "summary.md"})
        EXPECT_TRUE(exists(kept_there + f)) << f;
}

} // namespace
} // namespace cpcprof::test
