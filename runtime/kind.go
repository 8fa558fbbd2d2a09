package runtime

import "fmt"

// JobID names a job for its whole life; ids are never reused by a Runtime.
type JobID uint64

// Kind is the handler a job runs; its label is what the *workers* view shows.
type Kind uint8

// The job kinds. The labels match the original design's observability names.
const (
	KindSleep Kind = iota + 1
	KindComputeSum
	KindEmitN
	KindGrep
	KindParse
	KindFSReadDir
	KindFSStat
	KindFSRename
	KindFSChmod
	KindFSRemove
	KindMCPRequest
	KindLSPRequest
	KindSpawn
	KindSystem
	KindSpawnWrite
	KindFindFiles
	KindFuzzy
	KindTextSearch
	KindFSMkdir
)

var kindLabels = [...]string{
	KindSleep:      "sleep",
	KindComputeSum: "compute_sum",
	KindEmitN:      "emit_n",
	KindGrep:       "grep",
	KindParse:      "parse",
	KindFSReadDir:  "fs_read_dir",
	KindFSStat:     "fs_stat",
	KindFSRename:   "fs_rename",
	KindFSChmod:    "fs_chmod",
	KindFSRemove:   "fs_remove",
	KindMCPRequest: "mcp_request",
	KindLSPRequest: "lsp_request",
	KindSpawn:      "spawn",
	KindSystem:     "system",
	KindSpawnWrite: "spawn_write",
	KindFindFiles:  "find_files",
	KindFuzzy:      "fuzzy",
	KindTextSearch: "text_search",
	KindFSMkdir:    "fs_mkdir",
}

// String returns the kind's label, e.g. "compute_sum".
func (k Kind) String() string {
	if int(k) < len(kindLabels) && kindLabels[k] != "" {
		return kindLabels[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// State is where a job is in its life.
type State uint8

// Job states. Running is the only non-terminal one.
const (
	Running State = iota
	Complete
	Cancelled
	Failed
)

// String returns "running", "complete", "cancelled" or "failed".
func (s State) String() string {
	switch s {
	case Running:
		return "running"
	case Complete:
		return "complete"
	case Cancelled:
		return "cancelled"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}
