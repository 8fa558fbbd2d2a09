//go:build !linux

package proc

import (
	"context"
	"io"
)

// Process is a started program; see the Linux documentation.
type Process struct{}

// Start fails with ErrUnsupported: proc's guarantees (kill the whole group,
// never signal a recycled pid) rest on Linux's waitid(WNOWAIT).
func Start(ctx context.Context, spec Spec) (*Process, error) {
	prog := ""
	if len(spec.Argv) > 0 {
		prog = spec.Argv[0]
	}
	return nil, &Error{Op: "spawn", Prog: prog, Code: "ENOSYS", Err: ErrUnsupported}
}

// Pid returns 0.
func (p *Process) Pid() int { return 0 }

// Stdin returns nil.
func (p *Process) Stdin() io.WriteCloser { return nil }

// Kill does nothing.
func (p *Process) Kill() {}

// Done returns a closed channel.
func (p *Process) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Wait returns ErrUnsupported.
func (p *Process) Wait() (Exit, error) { return Exit{Code: -1}, ErrUnsupported }

// BecomeSubreaper returns ErrUnsupported.
func BecomeSubreaper() error { return ErrUnsupported }

// Terminate does nothing.
func (p *Process) Terminate() {}

// TreeEnv names the environment variable that tags a program's tree on
// Linux.
const TreeEnv = "PMACS_PROC_TREE"

// EndAll returns nil: Start starts nothing here.
func EndAll(ctx context.Context) error { return nil }

// ReapOrphans does nothing: Start starts nothing here.
func ReapOrphans(ctx context.Context) {}
