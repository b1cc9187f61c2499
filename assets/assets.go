// Package assets embeds the files the binary ships: templates/, static/ (the
// component's style sheets) and widget/ (the page script and its loader, served as
// written but for the page script's comment lines: no build step). It imports
// nothing of ours.
package assets

import (
	"embed"
	"io/fs"
)

// FS holds the embedded asset tree; paths start with "templates/".
//
//go:embed templates
var FS embed.FS

// Templates returns the templates/ subtree, so callers read "mail/invitation.en.txt"
// rather than "templates/mail/invitation.en.txt".
func Templates() fs.FS {
	sub, err := fs.Sub(FS, "templates")
	if err != nil {
		// fs.Sub only fails on an invalid path; "templates" is valid.
		panic(err)
	}
	return sub
}

// Static holds the files served as they are (the review component's style sheet);
// paths start with "static/".
//
//go:embed static
var Static embed.FS

// Widget holds the page script (widget/reviews.js) and its loader
// (widget/loader.js); paths start with "widget/".
//
//go:embed widget
var Widget embed.FS

// ComponentCSS is the review component's one style sheet: the themes and layouts
// of static/reviews.css followed by static/widget.css, the parts the page script
// adds (filters, dialogs, the writing form, the lightbox, questions). Both the
// server-rendered markup and the script use it, so hydrating never restyles.
func ComponentCSS() []byte {
	var out []byte
	for _, name := range []string{"static/reviews.css", "static/widget.css"} {
		b, err := Static.ReadFile(name)
		if err != nil {
			// Both files are embedded at build time; a missing one is a broken build.
			panic(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}
