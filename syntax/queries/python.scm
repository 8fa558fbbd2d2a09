; Highlights for Python. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

(comment) @comment
(string) @string
(escape_sequence) @string.escape
[(integer) (float)] @number
[(true) (false)] @boolean
(none) @constant.builtin

(function_definition name: (identifier) @function)
(class_definition name: (identifier) @type)
(decorator) @attribute
(call function: (identifier) @function.call)
(call function: (attribute attribute: (identifier) @function.method.call))
(attribute attribute: (identifier) @property)
(parameters (identifier) @variable.parameter)
(type (identifier) @type)

((identifier) @variable.builtin (#match? @variable.builtin "^(self|cls)$"))
((identifier) @constant (#match? @constant "^[A-Z][A-Z0-9_]+$"))
((identifier) @type (#match? @type "^[A-Z]"))
(identifier) @variable

[
  "and" "as" "assert" "async" "await" "break" "class" "continue" "def" "del" "elif"
  "else" "except" "finally" "for" "from" "global" "if" "import" "in" "is" "lambda"
  "nonlocal" "not" "or" "pass" "raise" "return" "try" "while" "with" "yield" "match"
  "case"
] @keyword

[
  "!=" "%" "%=" "&" "&=" "*" "**" "**=" "*=" "+" "+=" "-" "-=" "->" "/" "//" "//="
  "/=" ":=" "<" "<<" "<<=" "<=" "=" "==" ">" ">=" ">>" ">>=" "@" "@=" "^" "^=" "|"
  "|=" "~"
] @operator
