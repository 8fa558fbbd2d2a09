; Highlights for CSS. First pattern wins for a node captured more than once.

[(comment) (js_comment)] @comment
(tag_name) @tag
(class_name) @type
(id_name) @constant
(property_name) @property
(feature_name) @property
(attribute_name) @attribute
(pseudo_class_selector (class_name) @attribute)
(function_name) @function.call
(string_value) @string
[(integer_value) (float_value)] @number
(unit) @type.builtin
(color_value) @constant
(plain_value) @string.special
(important) @keyword
(keyframes_name) @label
(at_keyword) @keyword
["@media" "@import" "@charset" "@namespace" "@supports" "@keyframes" "and" "or" "not" "only" "selector"] @keyword
["~" ">" "+" "-" "*" "/" "=" "^=" "|=" "~=" "$=" "*="] @operator
["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," ";" ":" "::" "."] @punctuation.delimiter
