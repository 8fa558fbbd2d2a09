package bus

// Test-only accessors: the loop drains the bus with Drain, and nothing
// outside the tests needs a topic's type.

import "reflect"

// TryRecv returns the oldest queued envelope without blocking.
func (m *Main) TryRecv() (Envelope, bool) {
	m.q.mu.Lock()
	defer m.q.mu.Unlock()
	if len(m.q.items) == 0 {
		m.q.signaled = false
		return Envelope{}, false
	}
	env := m.q.items[0]
	m.q.items[0] = Envelope{}
	m.q.items = m.q.items[1:]
	if len(m.q.items) == 0 {
		m.q.signaled = false
	}
	return env, true
}

// DecodeNew decodes env into a freshly allocated value of the topic's type
// and returns a pointer to it.
func (r *Registry) DecodeNew(env Envelope) (any, error) {
	t, err := r.typeOf(env.Topic)
	if err != nil {
		return nil, err
	}
	p := reflect.New(t).Interface()
	if err := r.Decode(env, p); err != nil {
		return nil, err
	}
	return p, nil
}
