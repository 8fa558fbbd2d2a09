//go:build !unix

package journal

const noFollow = 0
