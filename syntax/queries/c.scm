; Highlights for C. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

(comment) @comment
[(string_literal) (system_lib_string) (char_literal)] @string
(escape_sequence) @string.escape
(number_literal) @number
[(true) (false)] @boolean
(null) @constant.builtin

(function_declarator declarator: (identifier) @function)
(call_expression function: (identifier) @function.call)
(preproc_function_def name: (identifier) @function.macro)
(preproc_def name: (identifier) @constant.macro)
[(preproc_directive) "#define" "#include" "#if" "#ifdef" "#ifndef" "#else" "#elif" "#endif"] @keyword.directive

(primitive_type) @type.builtin
(sized_type_specifier) @type.builtin
(type_identifier) @type
(field_identifier) @property
(statement_identifier) @label
(storage_class_specifier) @keyword
(type_qualifier) @keyword

((identifier) @constant (#match? @constant "^[A-Z][A-Z0-9_]+$"))
(identifier) @variable

[
  "break" "case" "const" "continue" "default" "do" "else" "enum" "extern" "for"
  "goto" "if" "inline" "return" "sizeof" "static" "struct" "switch" "typedef"
  "union" "volatile" "while"
] @keyword

[
  "!" "!=" "%" "%=" "&" "&&" "&=" "*" "*=" "+" "++" "+=" "-" "--" "-=" "->" "/" "/="
  "<" "<<" "<<=" "<=" "=" "==" ">" ">=" ">>" ">>=" "?" "^" "^=" "|" "|=" "||" "~"
] @operator
