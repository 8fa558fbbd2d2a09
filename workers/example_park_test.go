package workers_test

import (
	"context"
	"fmt"

	"github.com/pmacs-go/pmacs-go/workers"
)

// A producer in the stream lane parks while its consumer is behind. The
// consumer awaits a mutation of the same actor between items: the mutation
// runs, because a parked stream holds no gate and no worker.
func ExampleActor_Park() {
	e := workers.New(workers.Config{PoolSize: 2})
	defer e.Close()
	e.RegisterActor("project")

	ctx := context.Background()
	items := make(chan int) // unbuffered: every send waits for the consumer
	stream := make(chan workers.Result, 1)
	e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneStream, Name: "emit",
		Run: func(_ context.Context, a workers.Actor) (any, error) {
			for i := 1; i <= 3; i++ {
				a.Park(func() { items <- i })
			}
			close(items)
			return "done", nil
		},
		Done: func(r workers.Result) { stream <- r }})
	renamed := make(chan workers.Result, 1)
	for i := range items {
		e.Submit(ctx, workers.Task{Actor: "project", Lane: workers.LaneMutating, Name: "rename",
			Run: func(context.Context, workers.Actor) (any, error) {
				return fmt.Sprintf("renamed after item %d", i), nil
			},
			Done: func(r workers.Result) { renamed <- r }})
		fmt.Println((<-renamed).Value)
	}
	fmt.Println((<-stream).Value)
	// Output:
	// renamed after item 1
	// renamed after item 2
	// renamed after item 3
	// done
}
