; Highlights for Lua. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

(comment) @comment
(shebang) @comment
(string) @string
(number) @number
(boolean) @boolean
(nil) @constant.builtin
(ellipsis) @variable.builtin

(function_statement (function_name) @function)
(function_call prefix: (identifier) @function.call)
(parameter_list (identifier) @variable.parameter)

((identifier) @variable.builtin (#eq? @variable.builtin "self"))
(identifier) @variable

[
  "local" "return" "and" "or" "not"
  (function_start) (function_end) (if_start) (if_then) (if_elseif) (if_else) (if_end)
  (for_start) (for_in) (for_do) (for_end) (while_start) (while_do) (while_end)
  (repeat_start) (repeat_until) (do_start) (do_end) (break_statement)
] @keyword

["+" "-" "*" "/" "//" "%" "^" "#" "==" "~=" "<" "<=" ">" ">=" "=" ".." "&" "|" "~" "<<" ">>"] @operator
