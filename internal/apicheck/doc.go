// Package apicheck holds tests that read the module's own source and hold
// its exported surface to the conventions the packages share: sentinel
// errors named for their package, Go initialisms in exported names. It has
// no code of its own.
package apicheck
