package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// goalKind says what a row's goal bounds.
type goalKind int

const (
	noGoal      goalKind = iota
	atMost               // ours <= goal
	ratioAtMost          // ours/anchor <= goal
	atLeast              // ours >= goal
)

// row is one line of the table. A zero anchor means the row has none (its
// ratio is blank); NaN ours means the figure could not be measured.
type row struct {
	section string
	metric  string
	unit    string
	ours    float64
	anchor  float64
	anchorN string // what the anchor is, e.g. "rg", "GOGC=off"
	kind    goalKind
	goal    float64
}

func (r row) ratio() (float64, bool) {
	if r.anchor == 0 || math.IsNaN(r.anchor) || math.IsNaN(r.ours) {
		return 0, false
	}
	return r.ours / r.anchor, true
}

// met reports whether the row has a goal and whether it is met.
func (r row) met() (has, ok bool) {
	switch r.kind {
	case atMost:
		return true, !math.IsNaN(r.ours) && r.ours <= r.goal
	case atLeast:
		return true, !math.IsNaN(r.ours) && r.ours >= r.goal
	case ratioAtMost:
		q, ok := r.ratio()
		return true, ok && q <= r.goal
	}
	return false, false
}

func (r row) goalText() string {
	switch r.kind {
	case atMost:
		return "<= " + num(r.goal) + " " + r.unit
	case atLeast:
		return ">= " + num(r.goal) + " " + r.unit
	case ratioAtMost:
		return "<= " + num(r.goal) + "x"
	}
	return ""
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "section\tmetric\tours\tanchor\tratio\tgoal\tmet")
	for _, r := range rows {
		ours := num(r.ours)
		if r.unit != "" && !math.IsNaN(r.ours) {
			ours += " " + r.unit
		}
		anchor := ""
		if r.anchor != 0 || r.anchorN != "" {
			anchor = num(r.anchor)
			if r.unit != "" && !math.IsNaN(r.anchor) {
				anchor += " " + r.unit
			}
			if r.anchorN != "" {
				anchor += " (" + r.anchorN + ")"
			}
		}
		ratio := ""
		if q, ok := r.ratio(); ok {
			ratio = fmt.Sprintf("%.2fx", q)
		}
		met := ""
		if has, ok := r.met(); has {
			met = map[bool]string{true: "yes", false: "NO"}[ok]
		}
		if strings.HasPrefix(r.metric, "error: ") {
			ours, met = "", "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.section, r.metric, ours, anchor, ratio, r.goalText(), met)
	}
	tw.Flush()
}

func countGoals(rows []row) int {
	n := 0
	for _, r := range rows {
		if has, _ := r.met(); has || strings.HasPrefix(r.metric, "error: ") {
			n++
		}
	}
	return n
}

func countMet(rows []row) int {
	n := 0
	for _, r := range rows {
		if has, ok := r.met(); has && ok {
			n++
		}
	}
	return n
}
