// Package assets embeds the files the binary ships: templates/ now, widget/ and
// static/ once they exist. It imports nothing of ours.
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
