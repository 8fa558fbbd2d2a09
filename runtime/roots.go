package runtime

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmacs-go/pmacs-go/workers"
)

// roots maps registered project roots to executor actors. Each root is one
// actor, so jobs under one root are ordered by its lanes (mutations in
// dispatch order, reads after the writes queued before them) while jobs under
// different roots run independently. Paths under no root use DefaultActor.
type roots struct {
	list []string // absolute, cleaned; longest first so the deepest root wins
}

// RegisterRoot makes path (made absolute and cleaned) a project root with its
// own actor. Registering a root twice is a no-op.
func (rt *Runtime) RegisterRoot(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("runtime: register root %q: %w", path, err)
	}
	if slices.Contains(rt.roots.list, abs) {
		return abs, nil
	}
	rt.exec.RegisterActor(workers.ActorID(abs))
	rt.roots.list = append(rt.roots.list, abs)
	slices.SortFunc(rt.roots.list, func(a, b string) int { return len(b) - len(a) })
	return abs, nil
}

// RemoveRoot unregisters a root; its queued jobs fail with
// actor_not_registered, and later paths under it use the default actor.
func (rt *Runtime) RemoveRoot(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	if i := slices.Index(rt.roots.list, abs); i >= 0 {
		rt.roots.list = slices.Delete(rt.roots.list, i, i+1)
		rt.exec.RemoveActor(workers.ActorID(abs))
	}
}

// Roots returns the registered roots.
func (rt *Runtime) Roots() []string { return slices.Clone(rt.roots.list) }

// actorFor returns the actor owning path: the deepest registered root that
// contains it lexically, else DefaultActor.
func (rt *Runtime) actorFor(path string) workers.ActorID {
	abs, err := filepath.Abs(path)
	if err != nil {
		return DefaultActor
	}
	for _, r := range rt.roots.list {
		if abs == r || strings.HasPrefix(abs, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return workers.ActorID(r)
		}
	}
	return DefaultActor
}
