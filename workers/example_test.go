package workers_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Jobs name an actor (a project root) and a lane. Mutations of one actor run
// in submission order and wait for its reads; a read submitted after a
// mutation sees its effect.
func ExampleExecutor_Submit() {
	e := workers.New(workers.Config{PoolSize: 2})
	defer e.Close()
	e.RegisterActor("project")

	var mu sync.Mutex
	name := "a.txt"
	rename := func(to string) workers.Job {
		return func(context.Context, workers.Actor) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			name = to
			return name, nil
		}
	}
	results := make(chan workers.Result, 3)
	done := func(r workers.Result) { results <- r }
	ctx := context.Background()
	e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneMutating, Name: "rename", Run: rename("b.txt"), Done: done})
	e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneMutating, Name: "rename", Run: rename("c.txt"), Done: done})
	e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneRead, Name: "stat", Done: done,
		Run: func(context.Context, workers.Actor) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			return "now " + name, nil
		}})
	for range 3 {
		fmt.Println((<-results).Value)
	}

	// A job for an actor nobody registered settles with an executor error,
	// before Submit returns.
	e.Submit(ctx, workers.Task{Actor: "elsewhere", Name: "stat", Run: rename("d.txt"), Done: func(r workers.Result) {
		fmt.Println(errors.Is(r.Err, workers.ErrActorNotRegistered))
	}})
	// Output:
	// b.txt
	// c.txt
	// now c.txt
	// true
}

// A job's own error comes back as is; a panic in a job fails that job with
// ErrInternal and leaves the pool running.
func ExampleExecutor_Submit_failures() {
	e := workers.New(workers.Config{PoolSize: 1})
	defer e.Close()
	e.RegisterActor("project")
	run := func(name string, job workers.Job) workers.Result {
		done := make(chan workers.Result, 1)
		e.Submit(context.Background(), workers.Task{Actor: "project", Name: name, Run: job,
			Done: func(r workers.Result) { done <- r }})
		return <-done
	}

	errNotFound := errors.New("not found")
	r := run("stat", func(context.Context, workers.Actor) (any, error) {
		return nil, errNotFound
	})
	fmt.Println(r.Err == errNotFound)

	r = run("crash", func(context.Context, workers.Actor) (any, error) {
		panic("bug")
	})
	var werr *workers.Error
	fmt.Println(errors.Is(r.Err, workers.ErrInternal), errors.As(r.Err, &werr) && werr.Job == "crash")

	r = run("after", func(context.Context, workers.Actor) (any, error) {
		return "still running", nil
	})
	fmt.Println(r.Value)
	// Output:
	// true
	// true true
	// still running
}

// A job watches the context it was submitted with. When the context ends, a
// running job returns (here with the context's error, its own choice), and a
// job still queued is not run at all: it settles with an error that matches
// context.Canceled and the cause the context was cancelled with.
func ExampleExecutor_Submit_cancel() {
	e := workers.New(workers.Config{PoolSize: 2})
	defer e.Close()
	e.RegisterActor("project")

	errQuit := errors.New("user quit")
	ctx, cancel := context.WithCancelCause(context.Background())
	results := make(chan workers.Result, 2)
	done := func(r workers.Result) { results <- r }
	started := make(chan struct{})
	e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneMutating, Name: "index", Done: done,
		Run: func(ctx context.Context, _ workers.Actor) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	<-started
	// Queued behind the mutating job, which holds its actor's barrier.
	e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneRead, Name: "stat", Done: done,
		Run: func(context.Context, workers.Actor) (any, error) { return "ran", nil }})
	cancel(errQuit)

	fmt.Println((<-results).Err)
	r := <-results
	fmt.Println(r.Value, errors.Is(r.Err, workers.ErrCanceled), errors.Is(r.Err, context.Canceled), errors.Is(r.Err, errQuit))
	fmt.Println(r.Err)
	// Output:
	// context canceled
	// <nil> true true true
	// workers: canceled: job 'stat' was not run: context canceled: user quit
}

// Submits with the same Key, for the same actor, share one execution while it
// is queued or running, as golang.org/x/sync/singleflight shares a call.
func ExampleExecutor_Submit_shared() {
	e := workers.New(workers.Config{PoolSize: 2})
	defer e.Close()
	e.RegisterActor("project")

	var runs atomic.Int32
	release := make(chan struct{})
	stat := func(context.Context, workers.Actor) (any, error) {
		runs.Add(1)
		<-release
		return "stat of main.go", nil
	}
	var settled sync.WaitGroup
	settled.Add(3)
	for range 3 {
		e.Submit(context.Background(), workers.Task{Actor: "project", Key: "stat:main.go", Name: "stat", Run: stat,
			Done: func(r workers.Result) {
				fmt.Println(r.Value)
				settled.Done()
			}})
	}
	close(release)
	settled.Wait()
	fmt.Println("runs:", runs.Load())
	// Output:
	// stat of main.go
	// stat of main.go
	// stat of main.go
	// runs: 1
}
