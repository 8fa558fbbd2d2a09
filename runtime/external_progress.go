package runtime

import "unicode/utf8"

// MaxProgressLen bounds a progress line in bytes: the text comes from
// another process (an LSP or MCP server), and a row of the *workers* view
// has no use for more.
const MaxProgressLen = 200

// SetExternalProgress sets the progress line of a running external job (an
// LSP $/progress or MCP notifications/progress report, formatted by the
// caller), which Snapshot shows in its ActiveJob row until the job settles
// or the next call replaces it. Text longer than MaxProgressLen is cut at a
// rune boundary, and invalid UTF-8 is replaced, so a server cannot bloat or
// garble the view. It reports whether the job was running; a late report for
// a settled or unknown job is dropped. Main goroutine only.
func (rt *Runtime) SetExternalProgress(id JobID, text string) bool {
	j := rt.pending.get(id)
	if j == nil || j.state != Running {
		return false
	}
	j.extra().progress = clipProgress(text)
	return true
}

func clipProgress(s string) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // invalid bytes become U+FFFD
	}
	if len(s) <= MaxProgressLen {
		return s
	}
	cut := MaxProgressLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// progressLine is the job's progress line, "" when none was set.
func (j *job) progressLine() string {
	if j.ext == nil {
		return ""
	}
	return j.ext.progress
}
