package testenv

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// Nobody is the unprivileged identity (uid and gid) that RunTestAsNobody
// drops to: root bypasses permission bits, so a test of "permission
// denied" run as root must run its cases as someone else.
const Nobody = 65534

// RunTestAsNobody runs the single test named test of the current test
// binary again, as Nobody, in dir, with extra "KEY=value" entries added to
// the environment (the child finds its cases through them). The binary is
// first copied into dir, since the build directory is private to the user
// who built it; dir must be searchable by Nobody. It returns the child's
// combined output and an error if the child failed or did not report that
// test as passed.
func RunTestAsNobody(dir, test string, env ...string) ([]byte, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	bin := filepath.Join(dir, filepath.Base(self))
	if err := copyFile(self, bin); err != nil {
		return nil, fmt.Errorf("testenv: copy the test binary: %w", err)
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(test)+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("testenv: %s as uid %d: %w", test, Nobody, err)
	}
	if !strings.Contains(string(out), "--- PASS: "+test) {
		return out, fmt.Errorf("testenv: %s as uid %d did not pass", test, Nobody)
	}
	return out, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
