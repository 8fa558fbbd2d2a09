package testenv

import (
	"fmt"
	"os"
	"os/exec"
)

// GitRepo is an empty git repository in a fresh directory, on branch
// "main", whose git commands see no user or system configuration (so a
// developer's diff settings cannot change what a test compares with).
type GitRepo struct {
	Root string
	git  string
	t    TB
}

// GitEnv is the environment GitRepo runs git in: the process's, without
// the user's and the system's configuration, with a fixed author. A test
// that starts git another way (the editor's jobs) sets these too.
func GitEnv(home string) []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+home,
		"GIT_AUTHOR_NAME=Ada Author", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Author", "GIT_COMMITTER_EMAIL=ada@example.com")
}

// NewGitRepo makes the repository; it skips t when git is missing or older
// than the Git peer asks (or fails it when peers are required).
func NewGitRepo(t interface {
	Skipper
	TB
	TempDir() string
}) *GitRepo {
	t.Helper()
	git := Peer(t, Git)
	r := &GitRepo{Root: t.TempDir(), git: git, t: t}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git with args in the repository and returns its standard
// output, failing the test on an error.
func (r *GitRepo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.Run(args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// Run runs git with args in the repository and returns its standard output
// or its failure (with git's standard error). Unlike Git it may be called
// from any goroutine.
func (r *GitRepo) Run(args ...string) (string, error) {
	cmd := exec.Command(r.git, args...)
	cmd.Dir = r.Root
	cmd.Env = GitEnv(r.Root)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		return string(out), fmt.Errorf("git %v: %w: %s", args, err, msg)
	}
	return string(out), nil
}

// GitStatus runs git with args and returns its exit code and standard
// output; a failure to start fails the test. (git diff --exit-code and
// friends report through the code.)
func (r *GitRepo) GitStatus(args ...string) (int, string) {
	r.t.Helper()
	cmd := exec.Command(r.git, args...)
	cmd.Dir = r.Root
	cmd.Env = GitEnv(r.Root)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		r.t.Fatal(fmt.Errorf("git %v: %w", args, err))
	}
	return 0, string(out)
}
