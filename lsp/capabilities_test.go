package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// serverRequest makes the fake send one request to the client and returns
// the client's reply to it.
func serverRequest(t *testing.T, c *Client, method string, params any) (result json.RawMessage, errCode int) {
	t.Helper()
	rt := c.rt
	o, res := await(t, rt, c, c.Request("fake/serverRequest", map[string]any{"method": method, "params": params}, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var replies []struct {
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &replies))
	require.Len(t, replies, 1)
	if replies[0].Error != nil {
		return nil, replies[0].Error.Code
	}
	return replies[0].Result, 0
}

// Supports follows the initialize capabilities, LSP 3.17 ones the protocol
// types do not know included (inlay hints, pull diagnostics), and the
// sub-options that announce resolve and delta requests.
func TestSupportsFollowsTheInitializeCapabilities(t *testing.T) {
	rt := newRT(t)
	caps := `{"hoverProvider": true, "definitionProvider": false, "referencesProvider": null,
		"codeActionProvider": {"resolveProvider": true}, "renameProvider": true,
		"semanticTokensProvider": {"full": {"delta": true}, "range": false},
		"inlayHintProvider": {"resolveProvider": false}, "diagnosticProvider": {"workspaceDiagnostics": false}}`
	c := startFake(t, rt, Config{}, fakeCapsEnv+"="+caps)
	require.False(t, c.Supports("textDocument/hover"), "nothing gated is supported before initialize")
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })

	for method, want := range map[string]bool{
		"textDocument/hover":                     true,
		"textDocument/definition":                false, // false
		"textDocument/references":                false, // null
		"textDocument/completion":                false, // absent
		"textDocument/codeAction":                true,
		"codeAction/resolve":                     true,
		"textDocument/prepareRename":             false, // renameProvider true, no prepareProvider
		"textDocument/semanticTokens/full":       true,
		"textDocument/semanticTokens/full/delta": true,
		"textDocument/semanticTokens/range":      false,
		"textDocument/inlayHint":                 true,
		"inlayHint/resolve":                      false,
		"textDocument/diagnostic":                true,
		"workspace/diagnostic":                   false,
		"fake/anything":                          true, // not gated
		"textDocument/didOpen":                   true, // a notification: not gated
	} {
		require.Equal(t, want, c.Supports(method), method)
	}
	require.JSONEq(t, `{"resolveProvider": false}`, string(c.RawCapabilities()["inlayHintProvider"]))
}

// Registrations made at run time announce requests the initialize
// capabilities did not; unregistering takes them back; bad registrations
// are refused whole with InvalidParams and leave the client as it was.
func TestDynamicRegistrationsAreHonoured(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	require.False(t, c.Supports("textDocument/formatting"))

	res, code := serverRequest(t, c, "client/registerCapability", map[string]any{"registrations": []any{
		map[string]any{"id": "fmt", "method": "textDocument/formatting", "registerOptions": map[string]any{"documentSelector": []any{map[string]any{"language": "go"}}}},
		map[string]any{"id": "sem", "method": "textDocument/semanticTokens", "registerOptions": map[string]any{"full": true, "range": true}},
		map[string]any{"id": "watch", "method": "workspace/didChangeWatchedFiles", "registerOptions": map[string]any{"watchers": []any{map[string]any{"globPattern": "**/*.go"}}}},
	}})
	require.Zero(t, code)
	require.JSONEq(t, `null`, string(res))
	require.True(t, c.Supports("textDocument/formatting"))
	require.True(t, c.Supports("textDocument/semanticTokens/full"))
	require.True(t, c.Supports("textDocument/semanticTokens/range"))
	require.False(t, c.Supports("textDocument/semanticTokens/full/delta"), "full is true, not {delta: true}")
	regs := c.Registrations()
	require.Len(t, regs, 3)
	require.Equal(t, "workspace/didChangeWatchedFiles", regs[2].Method)
	require.JSONEq(t, `{"watchers":[{"globPattern":"**/*.go"}]}`, string(regs[2].Options))

	for name, params := range map[string]any{
		"no id":     map[string]any{"registrations": []any{map[string]any{"method": "textDocument/hover"}}},
		"no method": map[string]any{"registrations": []any{map[string]any{"id": "x"}}},
		"taken id":  map[string]any{"registrations": []any{map[string]any{"id": "fmt", "method": "textDocument/hover"}}},
		"not json":  "registrations",
		"options over the bound": map[string]any{"registrations": []any{map[string]any{"id": "big", "method": "workspace/didChangeWatchedFiles",
			"registerOptions": map[string]any{"watchers": strings.Repeat("x", maxRegisterOptions+1)}}}},
	} {
		_, code := serverRequest(t, c, "client/registerCapability", params)
		require.Equal(t, CodeInvalidParams, code, name)
	}
	require.Len(t, c.Registrations(), 3, "a refused request registers nothing")
	require.False(t, c.Supports("textDocument/hover"))

	_, code = serverRequest(t, c, "client/unregisterCapability", map[string]any{"unregisterations": []any{
		map[string]any{"id": "fmt", "method": "textDocument/formatting"}, map[string]any{"id": "unknown", "method": "x"}}})
	require.Zero(t, code)
	require.False(t, c.Supports("textDocument/formatting"))
	require.Len(t, c.Registrations(), 2)
}

// A server cannot make the client keep more than MaxRegistrations.
func TestRegistrationsAreBounded(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	regs := make([]any, MaxRegistrations)
	for i := range regs {
		regs[i] = map[string]any{"id": fmt.Sprint(i), "method": "textDocument/hover"}
	}
	_, code := serverRequest(t, c, "client/registerCapability", map[string]any{"registrations": regs})
	require.Zero(t, code)
	_, code = serverRequest(t, c, "client/registerCapability", map[string]any{"registrations": []any{map[string]any{"id": "one more", "method": "textDocument/hover"}}})
	require.Equal(t, CodeInvalidParams, code)
	require.Len(t, c.Registrations(), MaxRegistrations)
}

// Against gopls: what it announces at initialize is what Supports says.
func TestSupportsAgainstGopls(t *testing.T) {
	gopls := testenv.Peer(t, testenv.Gopls)
	rt := newRT(t)
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": "package m\n\nfunc A() int { return 1 }\n"})
	c, err := Start(rt, Config{Argv: []string{gopls}, Root: dir})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	pump(t, rt, c, 60*time.Second, func() bool { return c.Capabilities() != nil })
	for _, method := range []string{"textDocument/hover", "textDocument/definition", "textDocument/references",
		"textDocument/completion", "textDocument/rename", "textDocument/formatting", "textDocument/codeAction",
		"textDocument/documentSymbol", "workspace/symbol", "textDocument/signatureHelp", "textDocument/inlayHint",
		"textDocument/implementation", "textDocument/typeDefinition", "textDocument/prepareCallHierarchy"} {
		require.True(t, c.Supports(method), "gopls announces %s", method)
	}
	require.False(t, c.Supports("textDocument/documentColor"), "gopls has no colour provider")
}
