package lsp

import "github.com/pmacs-go/pmacs-go/runtime"

// ext is a completed external job's value (nil otherwise).
func ext(o runtime.Outcome) any {
	v, _ := o.External()
	return v
}
