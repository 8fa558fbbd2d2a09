; Highlights for TSX (TypeScript with JSX). First pattern wins for a node captured more than once.
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
(function_signature name: (identifier) @function)
(method_definition name: (property_identifier) @function.method)
(method_signature name: (property_identifier) @function.method)
(call_expression function: (identifier) @function.call)
(call_expression function: (member_expression property: (property_identifier) @function.method.call))
(class_declaration name: (type_identifier) @type)
(new_expression constructor: (identifier) @type)
(predefined_type) @type.builtin
(type_identifier) @type
(property_identifier) @property
(shorthand_property_identifier) @property
(required_parameter pattern: (identifier) @variable.parameter)
(optional_parameter pattern: (identifier) @variable.parameter)
(accessibility_modifier) @keyword

((identifier) @constant (#match? @constant "^[A-Z][A-Z0-9_]+$"))
(identifier) @variable

[
  "abstract" "as" "async" "await" "break" "case" "catch" "class" "const" "continue"
  "debugger" "declare" "default" "delete" "do" "else" "enum" "export" "extends"
  "finally" "for" "from" "function" "get" "if" "implements" "import" "in"
  "instanceof" "interface" "keyof" "let" "namespace" "new" "of" "readonly" "return"
  "satisfies" "set" "static" "switch" "throw" "try" "type" "typeof" "var" "void"
  "while" "with" "yield"
] @keyword

[
  "!" "!=" "!==" "%" "%=" "&" "&&" "&&=" "&=" "*" "**" "**=" "*=" "+" "++" "+=" "-"
  "--" "-=" "..." "/" "/=" "<" "<<" "<<=" "<=" "=" "==" "===" "=>" ">" ">=" ">>"
  ">>=" ">>>" ">>>=" "?" "??" "??=" "^" "^=" "|" "|=" "||" "||=" "~" "?."
] @operator


(jsx_opening_element name: (identifier) @tag)
(jsx_closing_element name: (identifier) @tag)
(jsx_self_closing_element name: (identifier) @tag)
(jsx_attribute (property_identifier) @attribute)
