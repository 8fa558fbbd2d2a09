; Highlights for Markdown block structure; inline content is highlighted by the
; markdown_inline grammar injected into each (inline) node.

(atx_heading) @markup.heading
(setext_heading) @markup.heading
[(fenced_code_block_delimiter) (info_string)] @punctuation.special
(code_fence_content) @markup.raw.block
(indented_code_block) @markup.raw.block
(block_quote) @markup.quote
[(list_marker_minus) (list_marker_plus) (list_marker_star) (list_marker_dot) (list_marker_parenthesis)] @markup.list
[(task_list_marker_checked) (task_list_marker_unchecked)] @markup.list
(thematic_break) @punctuation.special
(link_label) @markup.link.label
(link_destination) @markup.link.url
(link_title) @string
(html_block) @tag
[(minus_metadata) (plus_metadata)] @comment
(pipe_table_header) @markup.heading
(backslash_escape) @string.escape
