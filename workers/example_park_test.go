package workers_test

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/workers"
)

// A producer in the stream lane parks while its consumer is behind. The
// consumer awaits a mutation of the same actor between items: the mutation
// runs, because a parked stream holds no gate and no worker.
func ExampleActor_Park() {
	e := workers.New(workers.Config{PoolSize: 2})
	defer e.Close()
	e.RegisterActor("project", nil)

	items := make(chan int) // unbuffered: every send waits for the consumer
	stream := e.Submit("project", workers.LaneStream, "emit", func(a workers.Actor) (any, error) {
		for i := 1; i <= 3; i++ {
			a.Park(func() { items <- i })
		}
		close(items)
		return "done", nil
	})
	for i := range items {
		r := e.Submit("project", workers.LaneMutating, "rename", func(workers.Actor) (any, error) {
			return fmt.Sprintf("renamed after item %d", i), nil
		}).Recv()
		fmt.Println(r.Value)
	}
	fmt.Println(stream.Recv().Value)
	// Output:
	// renamed after item 1
	// renamed after item 2
	// renamed after item 3
	// done
}
