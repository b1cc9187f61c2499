package assets

import (
	"bytes"
	"sync"
)

// PageScript is the page script as served: widget/reviews.js without its
// whole-line comments. The source keeps its comments for the people who read it;
// shoppers' browsers do not download them. Nothing else is changed (no
// minification, no renaming), so what runs is the code as written, line for line.
var PageScript = sync.OnceValue(func() []byte {
	src, err := Widget.ReadFile("widget/reviews.js")
	if err != nil {
		panic(err) // embedded at build time
	}
	return StripCommentLines(src)
})

// StripCommentLines drops the lines of JavaScript src that hold only a // comment,
// except inside a template literal (where such a line is text). A template
// literal is followed by counting backquotes outside quoted strings and
// comments; the page script has no backquote in a regular expression literal.
func StripCommentLines(src []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(src))
	inTemplate := false
	for line := range bytes.Lines(src) {
		if !inTemplate && bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("//")) {
			continue
		}
		out.Write(line)
		inTemplate = templateOpenAfter(line, inTemplate)
	}
	return out.Bytes()
}

// templateOpenAfter reports whether a template literal is open after line, given
// whether one was open before it.
func templateOpenAfter(line []byte, open bool) bool {
	var quote byte // ' or " while inside such a string
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\':
			i++ // an escaped character
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '`':
			open = !open
		case open:
			// template text: quotes and slashes are text
		case c == '\'' || c == '"':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return open // the rest of the line is a comment
		}
	}
	return open
}
