package editor

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): the live grep's time from
// the last key of `func` to "done" over $(go env GOROOT)/src, beside rg on
// the same query in the same run (issue 14, live grep; cmd/pmacs-bench reads
// the log line). The editor's search is smart-case, so rg runs with
// --smart-case, and each of its matching lines is read from a pipe and
// counted, as the editor takes and counts every match: rg writing to
// /dev/null stops at each file's first match, a different search. The two
// counts must agree.
func TestLiveGrepGorootTimeToDone(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to time the live grep over GOROOT")
	}
	src, err := testenv.GoSrc()
	require.NoError(t, err)
	h := startEditorSized(t, Options{Path: src}, 120, 40)
	h.waitText(src)
	h.ctrl('f')
	h.waitText("grep:")
	start := time.Now()
	h.typeText("func")
	var rows []string
	for deadline := time.Now().Add(2 * time.Minute); ; {
		rows = h.rows()
		if strings.Contains(rows[0], `"func"`) && strings.Contains(rows[0], "done") {
			break
		}
		require.True(t, time.Now().Before(deadline), "no done in 2 minutes: %q", rows[0])
		time.Sleep(5 * time.Millisecond)
	}
	editor := time.Since(start)
	rgStart := time.Now()
	rg := exec.Command("rg", "--no-config", "--smart-case", "func", ".")
	rg.Dir = src
	out, err := rg.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, rg.Start())
	lines := 0
	br := bufio.NewReaderSize(out, 1<<16)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			lines++
		}
		if err != nil && err != bufio.ErrBufferFull {
			break
		}
	}
	require.NoError(t, rg.Wait())
	rgTime := time.Since(rgStart)
	t.Logf("live grep `func` over %s: %v to done (%s); rg --smart-case func, %d lines read: %v", src, editor, strings.TrimSpace(rows[0]), lines, rgTime)
	require.Contains(t, rows[0], fmt.Sprintf(`"func": %d matches`, lines), "the editor counts what rg --smart-case finds")
}
