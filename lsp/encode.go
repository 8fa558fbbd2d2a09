package lsp

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

func marshalParams(params any) ([]byte, error) {
	if params == nil {
		return nil, nil
	}
	return protocol.Marshal(params)
}

func (c *Client) tryEncodeRequest(id int64, method string, params any) ([]byte, error) {
	body, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	return c.requestFrame(id, method, body), nil
}

func (c *Client) encodeRequest(id int64, method string, params any) []byte {
	f, err := c.tryEncodeRequest(id, method, params)
	if err != nil {
		panic(fmt.Sprintf("lsp: encode %s: %v", method, err)) // the client's own params always encode
	}
	return f
}

func (c *Client) encodeNotification(method string, params any) []byte {
	body, err := marshalParams(params)
	if err != nil {
		panic(fmt.Sprintf("lsp: encode %s: %v", method, err)) // the client's own params always encode
	}
	return c.notificationFrame(method, body)
}

func (c *Client) requestFrame(id int64, method string, params []byte) []byte {
	b := make([]byte, 0, 64+len(method)+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	return c.finishFrame(b, method, params)
}

func (c *Client) notificationFrame(method string, params []byte) []byte {
	b := make([]byte, 0, 64+len(method)+len(params))
	b = append(b, `{"jsonrpc":"2.0"`...)
	return c.finishFrame(b, method, params)
}

func (c *Client) finishFrame(b []byte, method string, params []byte) []byte {
	b = append(b, `,"method":`...)
	b, _ = jsontext.AppendQuote(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	b = append(b, '}')
	return appendFrame(nil, b)
}

func (c *Client) responseFrame(id jsontext.Value, result any, rerr *wireError) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	if rerr != nil {
		b = append(b, `,"error":`...)
		body, _ := protocol.Marshal(map[string]any{"code": rerr.Code, "message": rerr.Message})
		b = append(b, body...)
	} else {
		body, err := marshalParams(result)
		if err != nil || body == nil {
			body = []byte("null")
		}
		b = append(b, `,"result":`...)
		b = append(b, body...)
	}
	b = append(b, '}')
	return appendFrame(nil, b)
}
