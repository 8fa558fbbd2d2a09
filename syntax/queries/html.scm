; Highlights for HTML.

(comment) @comment
(doctype) @keyword.directive
(tag_name) @tag
(erroneous_end_tag_name) @error
(attribute_name) @attribute
[(attribute_value) (quoted_attribute_value)] @string
(entity) @character.special
["<" ">" "</" "/>" "<!"] @punctuation.bracket
"=" @operator
