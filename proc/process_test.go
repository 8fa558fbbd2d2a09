//go:build linux

package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runLines runs argv and returns its lines, its exit and Wait's error.
func runLines(t *testing.T, spec Spec) ([]got, Exit, error) {
	t.Helper()
	var out []got
	spec.Lines = collect(&out)
	ex, err := Run(context.Background(), spec)
	return out, ex, err
}

func sh(script string) []string { return []string{"sh", "-c", script} }

// TestRealProgramLines: the splitting rules hold end to end through a pipe:
// CRLF, NUL, invalid UTF-8, empty lines and a missing final newline.
func TestRealProgramLines(t *testing.T) {
	out, ex, err := runLines(t, Spec{Argv: []string{"printf", `a\r\n\n\000x\n\377\376\nend`}})
	require.NoError(t, err)
	require.Equal(t, Exit{Code: 0}, ex)
	require.Equal(t, []got{
		{Stream: Stdout, Text: "a"},
		{Stream: Stdout, Text: ""},
		{Stream: Stdout, Text: "\x00x"},
		{Stream: Stdout, Text: "\xff\xfe"},
		{Stream: Stdout, Text: "end", Partial: true},
	}, out)
}

// TestInterleavedStreamsKeepOrder: stdout and stderr written alternately
// arrive each in its own order, tagged with its stream.
func TestInterleavedStreamsKeepOrder(t *testing.T) {
	const n = 2000
	out, _, err := runLines(t, Spec{Argv: sh(fmt.Sprintf(
		`i=0; while [ $i -lt %d ]; do echo "o$i"; echo "e$i" >&2; i=$((i+1)); done`, n))})
	require.NoError(t, err)
	var o, e []string
	for _, l := range out {
		if l.Stream == Stdout {
			o = append(o, l.Text)
		} else {
			require.Equal(t, Stderr, l.Stream)
			e = append(e, l.Text)
		}
	}
	require.Len(t, o, n)
	require.Len(t, e, n)
	for i := range n {
		require.Equal(t, fmt.Sprintf("o%d", i), o[i])
		require.Equal(t, fmt.Sprintf("e%d", i), e[i])
	}
}

// TestTwoMiBLineThroughPipe: a 2 MiB line from a real program is cut at
// the default 1 MiB and the next line survives.
func TestTwoMiBLineThroughPipe(t *testing.T) {
	out, _, err := runLines(t, Spec{Argv: sh(`head -c 2097152 /dev/zero | tr '\0' 'z'; echo; echo after`)})
	require.NoError(t, err)
	require.Len(t, out, 2)
	require.True(t, out[0].Truncated)
	require.Equal(t, strings.Repeat("z", DefaultMaxLine), out[0].Text)
	require.Equal(t, got{Stream: Stdout, Text: "after"}, out[1])
}

// TestExitCodeAndSignal: a non-zero exit is a value, not an error; a
// deadly signal is named.
func TestExitCodeAndSignal(t *testing.T) {
	ex, err := Run(context.Background(), Spec{Argv: sh("exit 7")})
	require.NoError(t, err)
	require.Equal(t, Exit{Code: 7}, ex)

	ex, err = Run(context.Background(), Spec{Argv: sh("kill -KILL $$")})
	require.NoError(t, err)
	require.Equal(t, Exit{Code: 128 + 9, Signal: "SIGKILL"}, ex)
}

// TestDirAndEnv: the working directory and the exact environment reach
// the program.
func TestDirAndEnv(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runLines(t, Spec{Argv: sh(`echo "$FOO"; pwd; echo "${HOME-unset}"`), Dir: dir,
		Env: []string{"FOO=one", "PATH=" + os.Getenv("PATH"), "FOO=two"}})
	require.NoError(t, err)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	require.Equal(t, []got{{Stream: Stdout, Text: "two"}, {Stream: Stdout, Text: real}, {Stream: Stdout, Text: "unset"}}, out)
}

// TestStdinBytes: a reader feeds the program's input.
func TestStdinBytes(t *testing.T) {
	out, _, err := runLines(t, Spec{Argv: []string{"cat"}, Stdin: strings.NewReader("x\ny\n")})
	require.NoError(t, err)
	require.Equal(t, []got{{Stream: Stdout, Text: "x"}, {Stream: Stdout, Text: "y"}}, out)
}

// TestStdinPipeCloseEndsCat: closing the pipe ends cat, whose output is
// whatever was written.
func TestStdinPipeCloseEndsCat(t *testing.T) {
	var out []got
	p, err := Start(context.Background(), Spec{Argv: []string{"cat"}, StdinPipe: true, Lines: collect(&out)})
	require.NoError(t, err)
	_, err = io.WriteString(p.Stdin(), "hello\nworld")
	require.NoError(t, err)
	require.NoError(t, p.Stdin().Close())
	ex, err := p.Wait()
	require.NoError(t, err)
	require.Equal(t, 0, ex.Code)
	require.Equal(t, []got{{Stream: Stdout, Text: "hello"}, {Stream: Stdout, Text: "world", Partial: true}}, out)
}

// TestStdinWriteAfterExitFails: writing to a program that has gone fails
// with EPIPE instead of killing the caller with SIGPIPE or blocking.
func TestStdinWriteAfterExitFails(t *testing.T) {
	p, err := Start(context.Background(), Spec{Argv: []string{"true"}, StdinPipe: true})
	require.NoError(t, err)
	in := p.Stdin()
	// Wait closes the caller's end as part of its cleanup, so the write
	// error is EPIPE (program gone) or ErrClosed (cleanup won the race).
	var werr error
	for range 100 {
		if _, werr = in.Write(make([]byte, 64<<10)); werr != nil {
			break
		}
	}
	require.Error(t, werr)
	require.True(t, errors.Is(werr, syscall.EPIPE) || errors.Is(werr, os.ErrClosed), "write error: %v", werr)
	_, err = p.Wait()
	require.NoError(t, err)
}

// TestStartFailures: each way a start can fail is the documented typed
// error, with its errno code, its cause and its message, and leaves no
// child behind.
func TestStartFailures(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "script")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	before := len(children())

	cases := []struct {
		name string
		spec Spec
		code string
		is   error
		msg  string
	}{
		{"missing program", Spec{Argv: []string{"no-such-program-pmacs"}}, "ENOENT", fs.ErrNotExist,
			`spawn "no-such-program-pmacs": no such file or directory`},
		{"missing path", Spec{Argv: []string{filepath.Join(dir, "nope")}}, "ENOENT", fs.ErrNotExist,
			fmt.Sprintf("spawn %q: no such file or directory", filepath.Join(dir, "nope"))},
		{"not executable", Spec{Argv: []string{notExec}}, "EACCES", fs.ErrPermission,
			fmt.Sprintf("spawn %q: permission denied", notExec)},
		{"bad cwd", Spec{Argv: []string{"true"}, Dir: filepath.Join(dir, "gone")}, "ENOENT", fs.ErrNotExist,
			fmt.Sprintf(`spawn "true": chdir %s: no such file or directory`, filepath.Join(dir, "gone"))},
		{"cwd not a directory", Spec{Argv: []string{"true"}, Dir: file}, "ENOTDIR", syscall.ENOTDIR,
			fmt.Sprintf(`spawn "true": chdir %s: not a directory`, file)},
		{"empty argv", Spec{}, "EINVAL", ErrEmptyCommand, "spawn: proc: empty command"},
		{"empty program", Spec{Argv: []string{""}}, "ENOENT", fs.ErrNotExist, `spawn "": no such file or directory`},
		{"nul in argument", Spec{Argv: []string{"echo", "a\x00b"}}, "EINVAL", ErrInvalidArg,
			`spawn "echo": proc: invalid argument: argument 1 contains a NUL byte`},
		{"nul in env", Spec{Argv: []string{"true"}, Env: []string{"K=a\x00"}}, "EINVAL", ErrInvalidArg,
			`spawn "true": proc: invalid argument: environment entry "K" contains a NUL byte`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Lines = func([]Line) error { return nil }
			p, err := Start(context.Background(), tc.spec)
			require.Nil(t, p)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.Equal(t, tc.code, pe.Code)
			require.Equal(t, tc.code, Code(err))
			require.ErrorIs(t, err, tc.is)
			require.EqualError(t, err, tc.msg)
		})
	}
	// The cwd failure is told apart from a missing program by its chain.
	_, err := Start(context.Background(), Spec{Argv: []string{"true"}, Dir: filepath.Join(dir, "gone")})
	var pathErr *fs.PathError
	require.ErrorAs(t, err, &pathErr)
	require.Equal(t, "chdir", pathErr.Op)
	require.Len(t, children(), before, "a failed start left a child")
}

// TestCancelKillsGroup: cancelling sends SIGTERM to the whole group, and
// Wait reports the cancellation with the signal.
func TestCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, Spec{Argv: sh("sleep 60 & sleep 60 | cat"), Lines: func([]Line) error { return nil }})
	require.NoError(t, err)
	waitGroupSize(t, p.Pid(), 4)
	cancel()
	ex, err := p.Wait()
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, "SIGTERM", ex.Signal)
	require.Empty(t, groupMembers(map[int]bool{p.Pid(): true}))
}

// TestGraceThenKill: a group that ignores SIGTERM gets SIGKILL after the
// grace period.
func TestGraceThenKill(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var out []got
	p, err := Start(ctx, Spec{Argv: sh(`trap "" TERM; echo ready; while :; do sleep 1; done`),
		KillGrace: 100 * time.Millisecond,
		Lines: func(ls []Line) error {
			mu.Lock()
			defer mu.Unlock()
			return collect(&out)(ls)
		}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(out) > 0 }, 10*time.Second, time.Millisecond)
	cancel()
	ex, err := p.Wait()
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, "SIGKILL", ex.Signal)
	require.Empty(t, groupMembers(map[int]bool{p.Pid(): true}))
}

// TestTimeout: Spec.Timeout stops the program and fails with a
// distinguishable ETIMEDOUT error, not a cancellation.
func TestTimeout(t *testing.T) {
	ex, err := Run(context.Background(), Spec{Argv: []string{"sleep", "60"}, Timeout: 50 * time.Millisecond})
	require.ErrorIs(t, err, ErrTimeout)
	require.NotErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, "ETIMEDOUT", Code(err))
	require.EqualError(t, err, `wait "sleep": proc: timed out after 50ms`)
	require.Equal(t, "SIGTERM", ex.Signal)
}

// TestKill: Kill sends SIGKILL at once, without waiting out the grace.
func TestKill(t *testing.T) {
	p, err := Start(context.Background(), Spec{Argv: sh(`trap "" TERM; sleep 60`), KillGrace: time.Hour})
	require.NoError(t, err)
	p.Kill()
	p.Kill()
	ex, err := p.Wait()
	require.NoError(t, err)
	require.Equal(t, "SIGKILL", ex.Signal)
}

// TestGrandchildHoldingPipe: the program exits but a background child keeps
// stdout open; Wait returns after WaitDelay with the output delivered, and
// the grandchild is killed.
func TestGrandchildHoldingPipe(t *testing.T) {
	var out []got
	p, err := Start(context.Background(), Spec{Argv: sh("sleep 60 & echo done"),
		WaitDelay: 100 * time.Millisecond, Lines: collect(&out)})
	require.NoError(t, err)
	ex, err := p.Wait()
	require.NoError(t, err)
	require.Equal(t, Exit{Code: 0}, ex)
	require.Equal(t, []got{{Stream: Stdout, Text: "done"}}, out)
	require.Empty(t, groupMembers(map[int]bool{p.Pid(): true}))
}

// TestLeftoversKilledAtExit: a background process that holds no pipe is
// killed once the program exits, so a job owns everything it started.
func TestLeftoversKilledAtExit(t *testing.T) {
	p, err := Start(context.Background(), Spec{Argv: sh("sleep 60 >/dev/null 2>&1 &")})
	require.NoError(t, err)
	_, err = p.Wait()
	require.NoError(t, err)
	require.Empty(t, groupMembers(map[int]bool{p.Pid(): true}))
}

// TestLinesErrorStopsProgram: an error from the consumer stops the program
// and is what Wait returns; the output is drained so nothing blocks.
func TestLinesErrorStopsProgram(t *testing.T) {
	boom := errors.New("consumer gone")
	ex, err := Run(context.Background(), Spec{Argv: []string{"yes"}, Lines: func([]Line) error { return boom }})
	require.ErrorIs(t, err, boom)
	require.Equal(t, "SIGTERM", ex.Signal)
}

// TestBlockingCallbackIsBackpressure: while the callback blocks, proc reads
// nothing more, so `yes` stalls on a full pipe instead of filling memory;
// once released everything flows again.
func TestBlockingCallbackIsBackpressure(t *testing.T) {
	gate := make(chan struct{})
	var mu sync.Mutex
	var lines, calls int
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, Spec{Argv: []string{"yes"}, Lines: func(ls []Line) error {
		mu.Lock()
		lines += len(ls)
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			<-gate
		}
		return nil
	}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return calls == 1 }, 10*time.Second, time.Millisecond)
	// Held: no second call can happen however long we look, and yes is
	// blocked writing (state S), not spinning.
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	require.Equal(t, 1, calls)
	mu.Unlock()
	close(gate)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return calls > 10 }, 10*time.Second, time.Millisecond)
	cancel()
	_, err = p.Wait()
	require.ErrorIs(t, err, context.Canceled)
}

// TestNilLinesDiscards: without a consumer the output goes to /dev/null.
func TestNilLinesDiscards(t *testing.T) {
	ex, err := Run(context.Background(), Spec{Argv: sh("head -c 1000000 /dev/zero; exit 3")})
	require.NoError(t, err)
	require.Equal(t, 3, ex.Code)
}

// TestCancelledBeforeStart: a context that already ended starts nothing.
func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := len(children())
	_, err := Start(ctx, Spec{Argv: []string{"true"}})
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, children(), before)
}

// TestOutputRaw: Output receives the bytes exactly as written, "\r\n" and
// a missing final newline included, each stream apart.
func TestOutputRaw(t *testing.T) {
	var out, errOut []byte
	_, err := Run(context.Background(), Spec{Argv: sh(`printf 'a\r\nb'; printf 'e\n' >&2`),
		Output: func(s Stream, chunk []byte) error {
			if s == Stdout {
				out = append(out, chunk...)
			} else {
				errOut = append(errOut, chunk...)
			}
			return nil
		}})
	require.NoError(t, err)
	require.Equal(t, "a\r\nb", string(out))
	require.Equal(t, "e\n", string(errOut))

	_, err = Start(context.Background(), Spec{Argv: []string{"true"},
		Lines: func([]Line) error { return nil }, Output: func(Stream, []byte) error { return nil }})
	require.ErrorIs(t, err, ErrInvalidArg)
}
