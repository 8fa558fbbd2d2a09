package mcp

import (
	"errors"
	"testing"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/stretchr/testify/require"
)

// ext is a completed external job's value (nil otherwise).
func ext(o runtime.Outcome) any {
	v, _ := o.External()
	return v
}

// jobErr is a failed outcome's *runtime.JobError, failing the test if its
// Err is not one.
func jobErr(t testing.TB, err error) *runtime.JobError {
	t.Helper()
	var je *runtime.JobError
	require.True(t, errors.As(err, &je), "%v is not a *runtime.JobError", err)
	return je
}
