package lsp

import (
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

type progressParams struct {
	Token jsontext.Value `json:"token"`
	Value struct {
		Kind        string  `json:"kind"`
		Title       string  `json:"title"`
		Message     string  `json:"message"`
		Percentage  *uint32 `json:"percentage"`
		Cancellable bool    `json:"cancellable"`
	} `json:"value"`
}

type messageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// Progress is the latest state of a server's work-done progress.
type Progress struct {
	// Token is the progress token as JSON ("\"abc\"" or "3").
	Token   string
	Title   string
	Message string
	// Percentage is -1 when the server gave none.
	Percentage int
}

// Message is a window/showMessage or window/logMessage from the server.
type Message struct {
	// Show is set for showMessage (meant for the user), clear for
	// logMessage (meant for a log).
	Show bool
	// Type is the LSP MessageType: 1 error, 2 warning, 3 info, 4 log,
	// 5 debug.
	Type int
	Text string
}

func (c *Client) onNotification(e evNotification) {
	switch p := e.params.(type) {
	case *protocol.PublishDiagnosticsParams:
		if c.changedSet == nil {
			c.changedSet = map[uri.URI]struct{}{}
		}
		if _, dup := c.changedSet[p.URI]; !dup {
			c.changedSet[p.URI] = struct{}{}
			c.changedDiags = append(c.changedDiags, p.URI)
		}
		c.diags[p.URI] = p
	case *progressParams:
		tok := string(p.Token)
		if p.Value.Kind == "end" {
			delete(c.progress, tok)
			return
		}
		pr := c.progress[tok]
		pr.Token = tok
		if p.Value.Title != "" {
			pr.Title = p.Value.Title
		}
		if p.Value.Message != "" {
			pr.Message = p.Value.Message
		}
		pr.Percentage = -1
		if p.Value.Percentage != nil {
			pr.Percentage = int(*p.Value.Percentage)
		}
		c.progress[tok] = pr
	case *messageParams:
		c.messages = append(c.messages, Message{Show: e.method == protocol.MethodWindowShowMessage, Type: p.Type, Text: p.Message})
		if over := len(c.messages) - maxMessagesKept; over > 0 {
			c.messages = slices.Delete(c.messages, 0, over)
		}
	}
}

// Diagnostics returns the latest diagnostics the server published for a
// file path (nil when none). Publications are coalesced: only the newest per
// document is kept.
func (c *Client) Diagnostics(path string) []protocol.Diagnostic {
	return c.DiagnosticsURI(uri.File(path))
}

// DiagnosticsURI is Diagnostics by document URI.
func (c *Client) DiagnosticsURI(u uri.URI) []protocol.Diagnostic {
	if p := c.diags[u]; p != nil {
		return p.Diagnostics
	}
	return nil
}

// Progress returns the work-done progress in flight, ordered by token.
func (c *Client) Progress() []Progress {
	out := make([]Progress, 0, len(c.progress))
	for _, p := range c.progress {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Progress) int { return strings.Compare(a.Token, b.Token) })
	return out
}

// TakeMessages returns the show/log messages received since the last call
// (the newest 1,000 at most).
func (c *Client) TakeMessages() []Message {
	m := c.messages
	c.messages = nil
	return m
}

// onServerRequest answers a request from the server on the main goroutine.
func (c *Client) onServerRequest(e evServerRequest) {
	var result any
	var rerr *wireError
	switch e.method {
	case protocol.MethodWorkspaceConfiguration:
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(e.params, &p, lenient); err != nil {
			rerr = &wireError{Code: CodeInvalidParams, Message: err.Error()}
			break
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			if it.Section == "" {
				if c.cfg.Settings != nil {
					out[i] = c.cfg.Settings
				}
				continue
			}
			out[i] = c.cfg.Settings[it.Section]
		}
		result = out
	case protocol.MethodClientRegisterCapability, protocol.MethodClientUnregisterCapability,
		protocol.MethodWindowWorkDoneProgressCreate:
		result = nil
	case protocol.MethodWorkspaceApplyEdit:
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(e.params, &p); err != nil {
			rerr = &wireError{Code: CodeInvalidParams, Message: err.Error()}
			break
		}
		applied, reason := false, "the client has no applyEdit hook"
		if c.cfg.ApplyEdit != nil {
			applied, reason = c.cfg.ApplyEdit(&p.Edit)
		}
		r := map[string]any{"applied": applied}
		if !applied && reason != "" {
			r["failureReason"] = reason
		}
		result = r
	default:
		rerr = &wireError{Code: CodeMethodNotFound, Message: "method not supported by the client: " + e.method}
	}
	c.sendNow(c.responseFrame(e.id, result, rerr))
}
