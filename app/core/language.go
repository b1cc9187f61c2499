package core

import "reviewd/store"

// Language picks the answer language: the requested one when tr or en, else the
// channel's.
func Language(requested string, ch store.Channel) string {
	if requested == "tr" || requested == "en" {
		return requested
	}
	return ch.Language
}
