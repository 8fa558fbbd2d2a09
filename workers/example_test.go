package workers_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Jobs name an actor (a project root) and a lane. Mutations of one actor run
// in submission order and wait for its reads; a read submitted after a
// mutation sees its effect.
func ExampleExecutor_Submit() {
	e := workers.New(workers.Config{PoolSize: 2})
	defer e.Close()
	e.RegisterActor("project", nil)

	var mu sync.Mutex
	name := "a.txt"
	rename := func(to string) workers.Job {
		return func(workers.Actor) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			name = to
			return name, nil
		}
	}
	first := e.Submit("project", workers.LaneMutating, "rename", rename("b.txt"))
	second := e.Submit("project", workers.LaneMutating, "rename", rename("c.txt"))
	read := e.Submit("project", workers.LaneRead, "stat", func(workers.Actor) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return "now " + name, nil
	})
	fmt.Println(first.Recv().Value, second.Recv().Value, read.Recv().Value)

	// A job for an actor nobody registered settles with an executor error.
	r := e.Submit("elsewhere", workers.LaneRead, "stat", func(workers.Actor) (any, error) { return nil, nil }).Recv()
	fmt.Println(errors.Is(r.Err, workers.ErrActorNotRegistered))
	// Output:
	// b.txt c.txt now c.txt
	// true
}

// A job's own error comes back as is; a panic in a job fails that job with
// ErrInternal and leaves the pool running.
func ExampleExecutor_Submit_failures() {
	e := workers.New(workers.Config{PoolSize: 1})
	defer e.Close()
	e.RegisterActor("project", nil)

	errNotFound := errors.New("not found")
	r := e.Submit("project", workers.LaneRead, "stat", func(workers.Actor) (any, error) {
		return nil, errNotFound
	}).Recv()
	fmt.Println(r.Err == errNotFound)

	r = e.Submit("project", workers.LaneRead, "crash", func(workers.Actor) (any, error) {
		panic("bug")
	}).Recv()
	var werr *workers.Error
	fmt.Println(errors.Is(r.Err, workers.ErrInternal), errors.As(r.Err, &werr) && werr.Job == "crash")

	r = e.Submit("project", workers.LaneRead, "after", func(workers.Actor) (any, error) {
		return "still running", nil
	}).Recv()
	fmt.Println(r.Value)
	// Output:
	// true
	// true true
	// still running
}
