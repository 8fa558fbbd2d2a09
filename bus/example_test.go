package bus_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pmacs-go/pmacs-go/bus"
)

// Hit is the payload of the "grep.hit" topic in the examples.
type Hit struct {
	Path string
	Line int
}

// Workers send typed values from any goroutine; the main goroutine waits on
// Ready, drains every envelope queued so far in one call, and decodes each
// into the type its topic was registered with.
func ExampleNewPair() {
	reg := bus.NewRegistry()
	if err := bus.Register[Hit](reg, "grep.hit"); err != nil {
		panic(err)
	}
	main, workers := bus.NewPair(reg)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i <= 3; i++ {
			if err := workers.Send("grep.hit", Hit{Path: "main.go", Line: i * 10}); err != nil {
				panic(err)
			}
		}
	}()
	wg.Wait()

	<-main.Ready() // one token, however many envelopes arrived
	var buf []bus.Envelope
	buf = main.Drain(buf)
	for _, env := range buf {
		var h Hit
		if err := main.Decode(env, &h); err != nil {
			panic(err)
		}
		fmt.Println(env.Topic, h.Path, h.Line)
	}
	// Output:
	// grep.hit main.go 10
	// grep.hit main.go 20
	// grep.hit main.go 30
}

// A value of the wrong type, or a topic nobody registered, is an error value
// at the send, never a panic on the main goroutine later.
func ExampleWorkers_Send_errors() {
	reg := bus.NewRegistry()
	_ = bus.Register[Hit](reg, "grep.hit")
	_, workers := bus.NewPair(reg)

	err := workers.Send("grep.hit", "not a hit")
	fmt.Println(errors.Is(err, bus.ErrTypeMismatch))
	err = workers.Send("grep.miss", Hit{})
	fmt.Println(errors.Is(err, bus.ErrUnknownTopic))
	workers.Close()
	err = workers.Send("grep.hit", Hit{})
	fmt.Println(errors.Is(err, bus.ErrClosed))
	// Output:
	// true
	// true
	// true
}
