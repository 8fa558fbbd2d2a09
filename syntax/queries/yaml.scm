; Highlights for YAML. First pattern wins for a node captured more than once.

(comment) @comment
(block_mapping_pair key: (flow_node (plain_scalar (string_scalar) @property)))
(flow_pair key: (flow_node (plain_scalar (string_scalar) @property)))
[(double_quote_scalar) (single_quote_scalar) (block_scalar) (string_scalar)] @string
(escape_sequence) @string.escape
[(integer_scalar) (float_scalar)] @number
(boolean_scalar) @boolean
(null_scalar) @constant.builtin
[(anchor) (alias)] @label
(tag) @type
[(yaml_directive) (tag_directive) (reserved_directive)] @keyword.directive
["---" "..."] @punctuation.special
["-" ":" "," "?" ">" "|"] @punctuation.delimiter
["[" "]" "{" "}"] @punctuation.bracket
