package bus

import "testing"

// Wake re-sends the ready token a Drain took, never blocks when one is
// already waiting, and a later Drain clears it like any other token.
func TestMainWake(t *testing.T) {
	m, _ := NewPair(NewRegistry())
	m.Wake()
	m.Wake()
	select {
	case <-m.Ready():
	default:
		t.Fatal("Wake sent no token")
	}
	select {
	case <-m.Ready():
		t.Fatal("two Wakes left two tokens")
	default:
	}
	m.Wake()
	m.Drain(nil)
	select {
	case <-m.Ready():
		t.Fatal("Drain left the token")
	default:
	}
}
