package runtime

import "github.com/pmacs-go/pmacs-go/bus"

func busEnvelope(payload []byte) bus.Envelope {
	return bus.Envelope{Topic: replyTopic, Payload: payload}
}
