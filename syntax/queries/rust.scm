; Highlights for Rust. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

[(line_comment) (block_comment)] @comment

[(string_literal) (raw_string_literal)] @string
(char_literal) @character
(escape_sequence) @string.escape
[(integer_literal) (float_literal)] @number
(boolean_literal) @boolean

(function_item name: (identifier) @function)
(function_signature_item name: (identifier) @function)
(call_expression function: (identifier) @function.call)
(call_expression function: (field_expression field: (field_identifier) @function.method.call))
(call_expression function: (scoped_identifier name: (identifier) @function.call))
(macro_invocation macro: (identifier) @function.macro "!" @function.macro)
(macro_definition name: (identifier) @function.macro)

(primitive_type) @type.builtin
(type_identifier) @type
(field_identifier) @property
(lifetime) @label
(attribute_item) @attribute
(inner_attribute_item) @attribute
(self) @variable.builtin
[(crate) (super)] @module
(mutable_specifier) @keyword
(parameter pattern: (identifier) @variable.parameter)

((identifier) @constant (#match? @constant "^[A-Z][A-Z0-9_]+$"))
((identifier) @type (#match? @type "^[A-Z]"))
(identifier) @variable

[
  "as" "async" "await" "break" "const" "continue" "default" "dyn" "else" "enum"
  "extern" "fn" "for" "if" "impl" "in" "let" "loop" "macro_rules!" "match" "mod"
  "move" "pub" "ref" "return" "static" "struct" "trait" "type" "union" "unsafe"
  "use" "where" "while" "yield"
] @keyword

[
  "!" "!=" "%" "%=" "&" "&&" "&=" "*" "*=" "+" "+=" "-" "-=" "->" ".." "..=" "..."
  "/" "/=" "<" "<<" "<<=" "<=" "=" "==" "=>" ">" ">=" ">>" ">>=" "?" "^" "^=" "|"
  "|=" "||"
] @operator
