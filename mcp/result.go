package mcp

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolResult shapes a tool's result as the plain value a call's job
// completes with, built on the call's goroutine so the main goroutine only
// moves it:
//
//	text        string: the text contents joined with "\n"
//	content     []any:  one map per content item, with "type" ("text",
//	            "image", "audio", "resource", "resource_link") and its
//	            fields (text; data and mime_type; uri, name, mime_type, text,
//	            blob)
//	structured  the structured content as decoded JSON, when present
func ToolResult(res *sdk.CallToolResult) map[string]any {
	out := map[string]any{"text": joinText(res.Content), "content": contentList(res.Content)}
	if res.StructuredContent != nil {
		out["structured"] = res.StructuredContent
	}
	return out
}

func joinText(cs []sdk.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts, "\n")
}

func contentList(cs []sdk.Content) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		var m map[string]any
		switch c := c.(type) {
		case *sdk.TextContent:
			m = map[string]any{"type": "text", "text": c.Text}
		case *sdk.ImageContent:
			m = map[string]any{"type": "image", "data": string(c.Data), "mime_type": c.MIMEType}
		case *sdk.AudioContent:
			m = map[string]any{"type": "audio", "data": string(c.Data), "mime_type": c.MIMEType}
		case *sdk.ResourceLink:
			m = omitEmpty(map[string]any{"type": "resource_link", "uri": c.URI, "name": c.Name,
				"title": c.Title, "description": c.Description, "mime_type": c.MIMEType})
		case *sdk.EmbeddedResource:
			m = map[string]any{"type": "resource"}
			if r := c.Resource; r != nil {
				m["uri"], m["mime_type"], m["text"] = r.URI, r.MIMEType, r.Text
				if r.Blob != nil {
					m["blob"] = string(r.Blob)
				}
			}
			m = omitEmpty(m)
		default:
			m = map[string]any{"type": "unknown"}
		}
		out = append(out, m)
	}
	return out
}

func toolMap(t *sdk.Tool) map[string]any {
	m := omitEmpty(map[string]any{"name": t.Name, "title": t.Title, "description": t.Description})
	if t.InputSchema != nil {
		m["input_schema"] = t.InputSchema
	}
	return m
}

// omitEmpty drops empty strings and false, so Lua sees nil for absent
// fields rather than "".
func omitEmpty(m map[string]any) map[string]any {
	for k, v := range m {
		if v == "" || v == false {
			delete(m, k)
		}
	}
	return m
}

func orEmpty(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}
