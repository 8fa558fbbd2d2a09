; Highlights for Go. Specific patterns come first: for a node captured more than
; once, the first pattern wins. Brackets and delimiters are left uncaptured:
; they take the default colour, and skipping them halves the captures in a
; typical window.

(comment) @comment

[(interpreted_string_literal) (raw_string_literal) (rune_literal)] @string
(escape_sequence) @string.escape
[(int_literal) (float_literal) (imaginary_literal)] @number
[(true) (false)] @boolean
[(nil) (iota)] @constant.builtin

(function_declaration name: (identifier) @function)
(method_declaration name: (field_identifier) @function.method)
(call_expression function: (identifier) @function.call)
(call_expression function: (selector_expression field: (field_identifier) @function.method.call))

(type_identifier) @type
(package_identifier) @module
(field_identifier) @property
(label_name) @label
(parameter_declaration name: (identifier) @variable.parameter)

(const_spec name: (identifier) @constant)
(identifier) @variable

[
  "break" "case" "chan" "const" "continue" "default" "defer" "else" "fallthrough"
  "for" "func" "go" "goto" "if" "import" "interface" "map" "package" "range"
  "return" "select" "struct" "switch" "type" "var"
] @keyword

[
  "!" "!=" "%" "%=" "&" "&&" "&=" "&^" "&^=" "*" "*=" "+" "++" "+=" "-" "--" "-="
  "/" "/=" ":=" "<" "<-" "<<" "<<=" "<=" "=" "==" ">" ">=" ">>" ">>=" "^" "^="
  "|" "|=" "||" "~" "..."
] @operator
