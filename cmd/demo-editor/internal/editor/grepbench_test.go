package editor

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): the live grep's time from
// the last key of `func` to "done" over $(go env GOROOT)/src, beside
// `rg -c func` over the same tree in the same run (issue 14, live grep).
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
	// As the issue times it: rg's matching lines written to /dev/null
	// (rg notices /dev/null and stops at a file's first match; -c would
	// count them all, and a pipe would time the reader too).
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer devnull.Close()
	rgStart := time.Now()
	rg := exec.Command("rg", "func", src)
	rg.Stdout = devnull
	_ = rg.Run()
	t.Logf("live grep `func` over %s: %v to done (%s); rg func > /dev/null: %v", src, editor, strings.TrimSpace(rows[0]), time.Since(rgStart))
}
