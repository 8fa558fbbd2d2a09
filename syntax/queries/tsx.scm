; inherits: typescript
; Highlights for TSX: JSX's elements and attributes first (the first pattern
; to capture a node wins), then TypeScript's.

(jsx_opening_element name: (identifier) @tag)
(jsx_closing_element name: (identifier) @tag)
(jsx_self_closing_element name: (identifier) @tag)
(jsx_attribute (property_identifier) @attribute)
