package panel

import "reviewd/app/panel/words"

// The panel's words for codes, fallback headings and sizes (package words).
var (
	codeText  = words.Code
	heading   = words.Heading
	humanSize = words.Size
)

// Code is the words for a code of group in the page's language.
func (v *view) Code(group, code string) string { return codeText(group, code, v.Lang) }

// Size is humanSize in the page's language.
func (v *view) Size(n int64) string { return humanSize(n, v.Lang) }
