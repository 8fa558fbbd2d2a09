package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// grepFramesLine is one scenario row of TestKeystrokeLatencyTable: its name,
// then key-to-screen p50 p99 max, frames, frame wall p50 p99 max, and frame
// CPU p50 p99 max.
var grepFramesLine = regexp.MustCompile(`(?m)^\s*(.+?)\s+\|\s+(\S+)\s+(\S+)\s+(\S+)\s+\|\s+(\d+)\s+\|\s+(\S+)\s+(\S+)\s+(\S+)\s+\|\s+(\S+)\s+(\S+)\s+(\S+)\s*$`)

// frameScenario is a scenario's frame figures, in ms.
type frameScenario struct {
	frames                   int
	wallP99, wallMax, cpuP99 float64
}

// parseGrepFrames reads TestKeystrokeLatencyTable's table into its
// scenarios by name.
func parseGrepFrames(out []byte) (map[string]frameScenario, error) {
	res := map[string]frameScenario{}
	for _, m := range grepFramesLine.FindAllStringSubmatch(string(out), -1) {
		name := strings.TrimSpace(m[1])
		if name == "scenario" {
			continue
		}
		var v [3]float64 // frame wall p99, wall max, CPU p99
		for i, s := range []string{m[7], m[8], m[10]} {
			d, err := time.ParseDuration(s)
			if err != nil {
				return nil, fmt.Errorf("keystroke table: %q in row %q: %w", s, name, err)
			}
			v[i] = ms(d)
		}
		var frames int
		if _, err := fmt.Sscan(m[5], &frames); err != nil {
			return nil, fmt.Errorf("keystroke table: frames %q in row %q: %w", m[5], name, err)
		}
		res[name] = frameScenario{frames: frames, wallP99: v[0], wallMax: v[1], cpuP99: v[2]}
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("keystroke table: no rows")
	}
	return res, nil
}

// grepFramesSection: the editor's frames while live grep streams "func"
// over GOROOT/src (three searches) and while each key typed into its query
// restarts the search: the loop's frame wall time p99 and longest, beside
// the frame's own CPU time on the main thread (what the frame's work costs
// without preemption), from TestKeystrokeLatencyTable.
func grepFramesSection(cfg config) ([]row, error) {
	out, err := goTest(cfg, []string{"PMACS_EDITOR_BENCH=1"}, "-run", "^TestKeystrokeLatencyTable$", "-v", "./cmd/demo-editor/internal/editor")
	if err != nil {
		return nil, err
	}
	sc, err := parseGrepFrames(out)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, c := range []struct{ scenario, label string }{
		{`grep: move selection while "func" streams (x3)`, "while `func` streams (3 searches)"},
		{"grep: type into the query (each key restarts it)", "typing into the query (each key restarts it)"},
	} {
		s, ok := sc[c.scenario]
		if !ok {
			return rows, fmt.Errorf("keystroke table: no row %q: %s", c.scenario, tail(string(out), 300))
		}
		rows = append(rows,
			row{section: "grep-frames", metric: fmt.Sprintf("%s, frame p99 of %d", c.label, s.frames), unit: "ms", ours: s.wallP99, anchor: s.cpuP99, anchorN: "frame CPU p99", kind: atMost, goal: 4},
			row{section: "grep-frames", metric: c.label + ", longest frame", unit: "ms", ours: s.wallMax, kind: atMost, goal: 8})
	}
	return rows, nil
}
