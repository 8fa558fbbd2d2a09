; Highlights for C++. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

(comment) @comment
[(string_literal) (raw_string_literal) (system_lib_string) (char_literal)] @string
(escape_sequence) @string.escape
(number_literal) @number
[(true) (false)] @boolean
[(null) "nullptr"] @constant.builtin
(this) @variable.builtin

(function_declarator declarator: (identifier) @function)
(function_declarator declarator: (field_identifier) @function.method)
(function_declarator declarator: (qualified_identifier name: (identifier) @function))
(call_expression function: (identifier) @function.call)
(call_expression function: (field_expression field: (field_identifier) @function.method.call))
(call_expression function: (qualified_identifier name: (identifier) @function.call))
(preproc_function_def name: (identifier) @function.macro)
(preproc_def name: (identifier) @constant.macro)
[(preproc_directive) "#define" "#include" "#if" "#ifdef" "#ifndef" "#else" "#elif" "#endif"] @keyword.directive

(primitive_type) @type.builtin
(sized_type_specifier) @type.builtin
(auto) @type.builtin
(type_identifier) @type
(namespace_identifier) @module
(field_identifier) @property
(statement_identifier) @label
(storage_class_specifier) @keyword
(type_qualifier) @keyword
(access_specifier) @keyword
(virtual) @keyword

((identifier) @constant (#match? @constant "^[A-Z][A-Z0-9_]+$"))
(identifier) @variable

[
  "break" "case" "catch" "class" "co_await" "co_return" "co_yield" "concept"
  "const" "constexpr" "continue" "decltype" "default" "delete" "do" "else" "enum"
  "explicit" "extern" "final" "for" "friend" "goto" "if" "inline" "mutable"
  "namespace" "new" "noexcept" "operator" "override" "private" "protected" "public"
  "requires" "return" "sizeof" "static" "struct" "switch" "template" "throw" "try"
  "typedef" "typename" "union" "using" "volatile" "while"
] @keyword

[
  "!" "!=" "%" "%=" "&" "&&" "&=" "*" "*=" "+" "++" "+=" "-" "--" "-=" "->" "/" "/="
  "<" "<<" "<<=" "<=" "<=>" "=" "==" ">" ">=" ">>" ">>=" "?" "^" "^=" "|" "|=" "||"
  "~"
] @operator
