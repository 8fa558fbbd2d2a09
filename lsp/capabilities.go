package lsp

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// What the server can do: its initialize result's capabilities, kept raw
// (the protocol package's types stop at LSP 3.16 and would drop inlay
// hints, pull diagnostics and type hierarchy), and what it registered at
// run time with client/registerCapability. The client asks Supports before
// sending a request the server did not announce.

// MaxRegistrations bounds the capabilities a server may register at run
// time; past it a registerCapability is refused with an error reply.
const MaxRegistrations = 1000

// maxRegisterOptions bounds one registration's options, in bytes (glob
// patterns, document selectors).
const maxRegisterOptions = 64 << 10

// Registration is a capability the server registered at run time.
type Registration struct {
	ID     string
	Method string
	// Options is the registration's registerOptions, raw JSON (nil for
	// none): a document selector, file watchers' glob patterns, ...
	Options jsontext.Value
	// watchers are a workspace/didChangeWatchedFiles registration's
	// watchers, compiled when it came (watched.go).
	watchers []FileWatcher
}

// initializeResult is what the initialize request decodes into: the typed
// result and the raw capabilities.
type initializeResult struct {
	typed *protocol.InitializeResult
	caps  map[string]jsontext.Value
	// enc is the position encoding the server chose: LSP 3.17's
	// capabilities.positionEncoding, or clangd's older offsetEncoding
	// beside the capabilities; UTF-16 when it names neither or one the
	// client did not offer.
	enc textpos.Encoding
}

func decodeInitialize(raw jsontext.Value) (any, error) {
	typed, err := decodeAs[*protocol.InitializeResult](raw)
	if err != nil {
		return nil, err
	}
	r := &initializeResult{typed: typed.(*protocol.InitializeResult)}
	var whole struct {
		Capabilities   map[string]jsontext.Value `json:"capabilities"`
		OffsetEncoding string                    `json:"offsetEncoding"`
	}
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &whole, lenient); err != nil {
			return nil, fmt.Errorf("lsp: initialize result capabilities: %w", err)
		}
	}
	r.caps = whole.Capabilities
	kind := whole.OffsetEncoding
	var pe string
	if v, ok := r.caps["positionEncoding"]; ok && json.Unmarshal(v, &pe, lenient) == nil && pe != "" {
		kind = pe
	}
	// Only what was offered: a server answering utf-32 breaks the
	// protocol, and UTF-16 is what it must then be taken to count.
	if enc, err := textpos.ParseEncoding(kind); err == nil && (enc == textpos.UTF8 || enc == textpos.UTF16) {
		r.enc = enc
	}
	return r, nil
}

// providers maps a request to the server capability that announces it and,
// for a request a sub-option announces, that option's name.
var providers = map[string][2]string{
	protocol.MethodTextDocumentHover:                   {"hoverProvider"},
	protocol.MethodTextDocumentCompletion:              {"completionProvider"},
	protocol.MethodCompletionItemResolve:               {"completionProvider", "resolveProvider"},
	protocol.MethodTextDocumentSignatureHelp:           {"signatureHelpProvider"},
	protocol.MethodTextDocumentDeclaration:             {"declarationProvider"},
	protocol.MethodTextDocumentDefinition:              {"definitionProvider"},
	protocol.MethodTextDocumentTypeDefinition:          {"typeDefinitionProvider"},
	protocol.MethodTextDocumentImplementation:          {"implementationProvider"},
	protocol.MethodTextDocumentReferences:              {"referencesProvider"},
	protocol.MethodTextDocumentDocumentHighlight:       {"documentHighlightProvider"},
	protocol.MethodTextDocumentDocumentSymbol:          {"documentSymbolProvider"},
	protocol.MethodTextDocumentCodeAction:              {"codeActionProvider"},
	protocol.MethodCodeActionResolve:                   {"codeActionProvider", "resolveProvider"},
	protocol.MethodTextDocumentCodeLens:                {"codeLensProvider"},
	protocol.MethodCodeLensResolve:                     {"codeLensProvider", "resolveProvider"},
	protocol.MethodTextDocumentDocumentLink:            {"documentLinkProvider"},
	protocol.MethodTextDocumentDocumentColor:           {"colorProvider"},
	protocol.MethodTextDocumentFormatting:              {"documentFormattingProvider"},
	protocol.MethodTextDocumentRangeFormatting:         {"documentRangeFormattingProvider"},
	protocol.MethodTextDocumentOnTypeFormatting:        {"documentOnTypeFormattingProvider"},
	protocol.MethodTextDocumentRename:                  {"renameProvider"},
	protocol.MethodTextDocumentPrepareRename:           {"renameProvider", "prepareProvider"},
	protocol.MethodTextDocumentFoldingRange:            {"foldingRangeProvider"},
	protocol.MethodTextDocumentSelectionRange:          {"selectionRangeProvider"},
	protocol.MethodWorkspaceSymbol:                     {"workspaceSymbolProvider"},
	protocol.MethodWorkspaceExecuteCommand:             {"executeCommandProvider"},
	protocol.MethodTextDocumentPrepareCallHierarchy:    {"callHierarchyProvider"},
	protocol.MethodCallHierarchyIncomingCalls:          {"callHierarchyProvider"},
	protocol.MethodCallHierarchyOutgoingCalls:          {"callHierarchyProvider"},
	protocol.MethodTextDocumentSemanticTokensFull:      {"semanticTokensProvider", "full"},
	protocol.MethodTextDocumentSemanticTokensFullDelta: {"semanticTokensProvider", "full.delta"},
	protocol.MethodTextDocumentSemanticTokensRange:     {"semanticTokensProvider", "range"},
	protocol.MethodTextDocumentLinkedEditingRange:      {"linkedEditingRangeProvider"},
	protocol.MethodTextDocumentMoniker:                 {"monikerProvider"},
	"textDocument/inlayHint":                           {"inlayHintProvider"},
	"inlayHint/resolve":                                {"inlayHintProvider", "resolveProvider"},
	"textDocument/diagnostic":                          {"diagnosticProvider"},
	"workspace/diagnostic":                             {"diagnosticProvider", "workspaceDiagnostics"},
	"textDocument/prepareTypeHierarchy":                {"typeHierarchyProvider"},
	"typeHierarchy/supertypes":                         {"typeHierarchyProvider"},
	"typeHierarchy/subtypes":                           {"typeHierarchyProvider"},
	"textDocument/inlineValue":                         {"inlineValueProvider"},
}

// registeredAs gives, for a request a server registers under another
// method (a sub-request of a provider), the method its registration names.
var registeredAs = map[string]string{
	protocol.MethodCompletionItemResolve:               protocol.MethodTextDocumentCompletion,
	protocol.MethodCodeActionResolve:                   protocol.MethodTextDocumentCodeAction,
	protocol.MethodCodeLensResolve:                     protocol.MethodTextDocumentCodeLens,
	protocol.MethodTextDocumentPrepareRename:           protocol.MethodTextDocumentRename,
	protocol.MethodCallHierarchyIncomingCalls:          protocol.MethodTextDocumentPrepareCallHierarchy,
	protocol.MethodCallHierarchyOutgoingCalls:          protocol.MethodTextDocumentPrepareCallHierarchy,
	protocol.MethodTextDocumentSemanticTokensFull:      "textDocument/semanticTokens",
	protocol.MethodTextDocumentSemanticTokensFullDelta: "textDocument/semanticTokens",
	protocol.MethodTextDocumentSemanticTokensRange:     "textDocument/semanticTokens",
	"inlayHint/resolve":                                "textDocument/inlayHint",
	"workspace/diagnostic":                             "textDocument/diagnostic",
	"typeHierarchy/supertypes":                         "textDocument/prepareTypeHierarchy",
	"typeHierarchy/subtypes":                           "textDocument/prepareTypeHierarchy",
}

// Supports reports whether the server announced method: in its initialize
// capabilities (a capability present and not false; for a request a
// sub-option announces, such as codeAction/resolve or semantic tokens'
// delta, that option true or an object), or in a registration it made at run
// time (dynamic registration may also announce a request its static
// capabilities do not). A method the client knows no capability for (a
// notification, a server's own extension) is supported: the client does
// not gate it. Before the server has answered initialize, nothing gated is.
// Main goroutine only.
func (c *Client) Supports(method string) bool {
	p, gated := providers[method]
	if !gated || p[0] == "" {
		return true
	}
	under := registeredAs[method]
	for _, r := range c.regs {
		if r.Method == method {
			return true
		}
		// A registration of the provider's main request announces its
		// sub-requests, with their options where one decides.
		if under != "" && r.Method == under && (p[1] == "" || optionOn(r.Options, p[1])) {
			return true
		}
	}
	if c.rawCaps == nil {
		return false
	}
	v, ok := c.rawCaps[p[0]]
	if !ok || !truthy(v) {
		return false
	}
	if p[1] == "" {
		return true
	}
	return optionOn(v, p[1])
}

// truthy: present, not null and not false.
func truthy(v jsontext.Value) bool {
	s := bytes.TrimSpace(v)
	return len(s) > 0 && !bytes.Equal(s, []byte("null")) && !bytes.Equal(s, []byte("false"))
}

// optionOn reports whether the dotted option path in the capability object
// v is true or an object ("full.delta": {"full": {"delta": true}}).
func optionOn(v jsontext.Value, path string) bool {
	for _, name := range strings.Split(path, ".") {
		var obj map[string]jsontext.Value
		if err := json.Unmarshal(v, &obj, lenient); err != nil {
			return false
		}
		next, ok := obj[name]
		if !ok || !truthy(next) {
			return false
		}
		v = next
	}
	return true
}

// Encoding returns the position encoding the server chose at initialize:
// the unit of every position's character the client sends (Change's
// edits included) and the server sends back. UTF-16 until it has answered.
// Main goroutine only.
func (c *Client) Encoding() textpos.Encoding { return c.enc }

// RawCapabilities returns the server's initialize capabilities as raw JSON
// per capability name; nil before initialize has been answered. Main
// goroutine only; the map must not be modified.
func (c *Client) RawCapabilities() map[string]jsontext.Value { return c.rawCaps }

// Registrations returns the capabilities the server registered at run time,
// in the order it registered them. Main goroutine only.
func (c *Client) Registrations() []Registration { return slices.Clone(c.regs) }

// register handles client/registerCapability: every registration must name
// an id and a method, no id twice, and the client keeps at most
// MaxRegistrations; a request that breaks one is refused whole.
func (c *Client) register(params jsontext.Value) *wireError {
	var p struct {
		Registrations []struct {
			ID              string         `json:"id"`
			Method          string         `json:"method"`
			RegisterOptions jsontext.Value `json:"registerOptions"`
		} `json:"registrations"`
	}
	if err := json.Unmarshal(params, &p, lenient); err != nil {
		return &wireError{Code: CodeInvalidParams, Message: "registerCapability: " + err.Error()}
	}
	if len(c.regs)+len(p.Registrations) > MaxRegistrations {
		return &wireError{Code: CodeInvalidParams, Message: fmt.Sprintf("registerCapability: more than %d registrations", MaxRegistrations)}
	}
	seen := map[string]bool{}
	for _, r := range c.regs {
		seen[r.ID] = true
	}
	add := make([]Registration, 0, len(p.Registrations))
	for _, r := range p.Registrations {
		switch {
		case r.ID == "" || r.Method == "":
			return &wireError{Code: CodeInvalidParams, Message: "registerCapability: a registration needs an id and a method"}
		case seen[r.ID]:
			return &wireError{Code: CodeInvalidParams, Message: fmt.Sprintf("registerCapability: id %q is already registered", r.ID)}
		case len(r.RegisterOptions) > maxRegisterOptions:
			return &wireError{Code: CodeInvalidParams, Message: fmt.Sprintf("registerCapability: %s's options are over %d bytes", r.Method, maxRegisterOptions)}
		}
		seen[r.ID] = true
		var opts jsontext.Value
		if truthy(r.RegisterOptions) {
			opts = slices.Clone(r.RegisterOptions)
		}
		reg := Registration{ID: r.ID, Method: r.Method, Options: opts}
		if r.Method == MethodDidChangeWatchedFiles {
			ws, err := compileWatchers(r.ID, opts)
			if err != nil {
				return &wireError{Code: CodeInvalidParams, Message: "registerCapability: " + err.Error()}
			}
			reg.watchers = ws
		}
		add = append(add, reg)
	}
	for _, r := range add {
		if r.watchers != nil {
			c.watchersChanged = true
		}
	}
	c.regs = append(c.regs, add...)
	return nil
}

// unregister handles client/unregisterCapability. The protocol names the
// list "unregisterations" (a misspelling kept for compatibility); an id
// the client does not have is ignored.
func (c *Client) unregister(params jsontext.Value) *wireError {
	var p struct {
		Unregisterations []struct {
			ID string `json:"id"`
		} `json:"unregisterations"`
	}
	if err := json.Unmarshal(params, &p, lenient); err != nil {
		return &wireError{Code: CodeInvalidParams, Message: "unregisterCapability: " + err.Error()}
	}
	for _, u := range p.Unregisterations {
		c.regs = slices.DeleteFunc(c.regs, func(r Registration) bool {
			if r.ID == u.ID && r.watchers != nil {
				c.watchersChanged = true
			}
			return r.ID == u.ID
		})
	}
	return nil
}
