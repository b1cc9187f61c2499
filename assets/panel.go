package assets

import "embed"

// Panel holds the web panel's templates (panel/*.html), its one script
// (panel/panel.js, served as written: no build step) and style sheet
// (panel/panel.css); paths start with "panel/".
//
//go:embed panel
var Panel embed.FS
