//go:build linux

package proc

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procInfo is what /proc/<pid>/stat says about a process.
type procInfo struct {
	pid, ppid, pgid int
	state           byte
	comm            string
}

// scanProcs lists every process visible in /proc.
func scanProcs() []procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		s := string(b)
		// comm may hold spaces and parens: the fields start after the last ')'.
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 || close+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[close+2:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out = append(out, procInfo{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0], comm: s[open+1 : close]})
	}
	return out
}

// groupMembers returns the processes (alive or zombie) of the given groups.
func groupMembers(pgids map[int]bool) []procInfo {
	var out []procInfo
	for _, p := range scanProcs() {
		if pgids[p.pgid] {
			out = append(out, p)
		}
	}
	return out
}

// children returns this process's children, zombies included.
func children() []procInfo {
	self := os.Getpid()
	var out []procInfo
	for _, p := range scanProcs() {
		if p.ppid == self {
			out = append(out, p)
		}
	}
	return out
}

// waitGroupSize polls until the group has at least n members, failing the
// test after a generous limit.
func waitGroupSize(t *testing.T, pgid, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(groupMembers(map[int]bool{pgid: true})) < n {
		if time.Now().After(deadline) {
			t.Fatalf("group %d never reached %d members", pgid, n)
		}
		time.Sleep(time.Millisecond)
	}
}
