package textpos_test

import (
	"strings"
	"testing"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// BenchmarkColumns measures a conversion at the end of a typical line of
// code (ASCII) and of one with non-ASCII text, each way.
func BenchmarkColumns(b *testing.B) {
	ascii := "\tif err := c.Notify(protocol.MethodTextDocumentDidSave, params); err != nil {"
	mixed := strings.Repeat("héllo 世界 😀 ", 6)
	for _, bc := range []struct {
		name string
		line string
	}{{"ascii", ascii}, {"mixed", mixed}} {
		b.Run(bc.name+"/Units", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = textpos.Units(bc.line, len(bc.line), textpos.UTF16)
			}
		})
		b.Run(bc.name+"/ByteCol", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = textpos.ByteCol(bc.line, len(bc.line), textpos.UTF16)
			}
		})
	}
}
