; Highlights for Bash. First pattern wins for a node captured more than once.
; Brackets and delimiters are left uncaptured: they take the default colour,
; and skipping them halves the captures in a typical window.

(comment) @comment
[(string) (raw_string) (ansi_c_string) (translated_string) (heredoc_body)] @string
(number) @number
(function_definition name: (word) @function)
(command_name) @function.call
(file_descriptor) @number
(special_variable_name) @variable.builtin
(variable_name) @variable
[(simple_expansion) (expansion)] @variable
(test_operator) @operator

[
  "case" "declare" "do" "done" "elif" "else" "esac" "export" "fi" "for" "function"
  "if" "in" "local" "readonly" "select" "then" "typeset" "unset" "until" "while"
] @keyword

["|" "|&" "||" "&&" "&" ";" ";;" ">" ">>" "<" "<<" "<<<" "&>" "=" "=="] @operator
