; Highlights for Markdown inline content (emphasis, code spans, links).

(code_span) @markup.raw
(emphasis) @markup.italic
(strong_emphasis) @markup.strong
(strikethrough) @markup.strikethrough
[(inline_link) (full_reference_link) (collapsed_reference_link) (shortcut_link)] @markup.link
(link_text) @markup.link.label
(link_destination) @markup.link.url
(link_title) @string
(image) @markup.link
[(uri_autolink) (email_autolink)] @markup.link.url
(backslash_escape) @string.escape
[(entity_reference) (numeric_character_reference)] @character.special
(html_tag) @tag
