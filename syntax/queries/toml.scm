; Highlights for TOML. First pattern wins for a node captured more than once.

(comment) @comment
(table (bare_key) @type)
(table (dotted_key) @type)
(table_array_element (bare_key) @type)
(pair (bare_key) @property)
(pair (dotted_key) @property)
(quoted_key) @property
(bare_key) @property
(string) @string
(escape_sequence) @string.escape
[(integer) (float)] @number
(boolean) @boolean
[(offset_date_time) (local_date_time) (local_date) (local_time)] @string.special
"=" @operator
["[" "]" "[[" "]]" "{" "}"] @punctuation.bracket
["," "."] @punctuation.delimiter
