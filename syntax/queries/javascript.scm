; Highlights for JavaScript. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

(comment) @comment
[(string) (template_string)] @string
(escape_sequence) @string.escape
(regex) @string.regexp
(number) @number
[(true) (false)] @boolean
[(null) (undefined)] @constant.builtin
[(this) (super)] @variable.builtin

(function_declaration name: (identifier) @function)
(generator_function_declaration name: (identifier) @function)
(method_definition name: (property_identifier) @function.method)
(call_expression function: (identifier) @function.call)
(call_expression function: (member_expression property: (property_identifier) @function.method.call))
(class_declaration name: (identifier) @type)
(new_expression constructor: (identifier) @type)
(property_identifier) @property
(shorthand_property_identifier) @property
(formal_parameters (identifier) @variable.parameter)
(jsx_opening_element name: (identifier) @tag)
(jsx_closing_element name: (identifier) @tag)
(jsx_self_closing_element name: (identifier) @tag)
(jsx_attribute (property_identifier) @attribute)

((identifier) @constant (#match? @constant "^[A-Z][A-Z0-9_]+$"))
((identifier) @type (#match? @type "^[A-Z]"))
(identifier) @variable

[
  "as" "async" "await" "break" "case" "catch" "class" "const" "continue" "debugger"
  "default" "delete" "do" "else" "export" "extends" "finally" "for" "from" "function"
  "get" "if" "import" "in" "instanceof" "let" "new" "of" "return" "set" "static"
  "switch" "throw" "try" "typeof" "var" "void" "while" "with" "yield"
] @keyword

[
  "!" "!=" "!==" "%" "%=" "&" "&&" "&&=" "&=" "*" "**" "**=" "*=" "+" "++" "+=" "-"
  "--" "-=" "..." "/" "/=" "<" "<<" "<<=" "<=" "=" "==" "===" "=>" ">" ">=" ">>"
  ">>=" ">>>" ">>>=" "?" "??" "??=" "^" "^=" "|" "|=" "||" "||=" "~"
] @operator
