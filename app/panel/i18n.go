package panel

import "reviewd/app/panel/texts"

// T translates a message key into the page's language (texts.T: the panel's
// texts live in package texts).
func (v *view) T(key string) string { return texts.T(v.Lang, key) }
