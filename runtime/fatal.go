package runtime

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmacs-go/pmacs-go/workers"
)

// FatalRoot is a row of the *workers* view's fatal section: an actor that
// refuses every job (actor_fatal) since one of its mutations panicked.
type FatalRoot struct {
	// Root is the registered root, "" for DefaultActor (paths under no
	// root), or the name of a built-in actor such as BuiltinActor. It is
	// what ResetRoot takes.
	Root string
	// Reason is the panicking mutation's error: the job and the panic value.
	Reason string
}

func (rt *Runtime) fatalRoots() []FatalRoot {
	fatal := rt.exec.FatalActors()
	if len(fatal) == 0 {
		return nil
	}
	out := make([]FatalRoot, len(fatal))
	for i, f := range fatal {
		out[i] = FatalRoot{Root: string(f.ID), Reason: f.Reason}
	}
	return out
}

// ResetRoot makes a fatal root accept jobs again once every job of it that
// was running when it became fatal has ended. root is a registered root (as
// given to RegisterRoot, or made absolute), "" for the default actor, or a
// FatalRoot.Root as Snapshot reports it. The error wraps a *JobError whose
// Code says why nothing was reset, as for a failed job:
// actor_not_registered (no such root), actor_not_fatal, or actor_busy (its
// jobs are still running: try again once they have ended); errors.Is
// matches it against workers.ErrActorBusy and the other sentinels. A job's
// last reply can arrive a moment before its worker lets go of the root, so
// a reset right after it may still be refused as busy; a later one is not.
func (rt *Runtime) ResetRoot(root string) error {
	id, err := rt.actorNamed(root)
	if err == nil {
		err = rt.exec.ResetActor(id)
	}
	var we *workers.Error
	if errors.As(err, &we) {
		return fmt.Errorf("runtime: reset root %q: %w", root, &JobError{Message: we.Error(), Code: we.Code})
	}
	return err
}

// actorNamed resolves a root as ResetRoot takes it to its actor.
func (rt *Runtime) actorNamed(root string) (workers.ActorID, error) {
	switch id := workers.ActorID(root); {
	case id == DefaultActor, id == BuiltinActor, slices.Contains(rt.kindActors, id), slices.Contains(rt.roots.list, root):
		return id, nil
	}
	abs, err := filepath.Abs(root)
	if err == nil && slices.Contains(rt.roots.list, abs) {
		return workers.ActorID(abs), nil
	}
	return "", &workers.Error{Code: workers.CodeActorNotRegistered,
		Message: fmt.Sprintf("%q is not a registered root (registered: %s)", root, strings.Join(rt.roots.list, ", "))}
}
