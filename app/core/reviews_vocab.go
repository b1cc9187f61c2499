package core

import (
	"reviewd/store"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Review states (reviews.state).
const (
	ReviewPending   = "pending" // awaiting approval
	ReviewPublished = "published"
	ReviewRejected  = "rejected"
	ReviewHidden    = "hidden"
	ReviewRemoved   = "removed"
)

// Publishing methods (settings publishing_method).
const (
	PublishAutomatic = "automatic"
	PublishHybrid    = "hybrid"
	PublishManual    = "manual"
)

// PublishDecision is THE rule that decides whether a submitted (or corrected)
// review goes live by itself (docs/decisions.md, "Publishing methods"):
//
//   - automatic: published unless an automatic check found something;
//   - hybrid: published when the review has proof of purchase (verified) and no
//     check found anything;
//   - manual (and any unknown value): never by itself.
//
// Everything else waits for a moderator (pending). The rating plays no part: a
// review is never held back because of its stars.
func PublishDecision(method string, verified, flagged bool) string {
	switch method {
	case PublishAutomatic:
		if !flagged {
			return ReviewPublished
		}
	case PublishHybrid:
		if verified && !flagged {
			return ReviewPublished
		}
	}
	return ReviewPending
}

// Verified reports whether a review has proof of purchase: an own review written
// with a token tied to an order. Imported reviews never have it.
func Verified(r store.Review) bool {
	return r.Origin == OriginOwn && r.OrderID != 0 && r.VerificationMethod != ""
}

// Review experiences, origins and proof methods.
const (
	ExperienceProduct = "product"
	ExperienceProcess = "process" // shopping experience of a cancelled or returned line

	OriginOwn      = "own"
	OriginImported = "imported"

	VerifiedByInvite     = "tokenized_invite" // product or shopping-experience invitation
	VerifiedByOrderCheck = "order_check"
)

// Limits of review writing (spec 2, "Review writing" and "Limits").
const (
	MaxReviewsPerCall = 20
	MaxReviewTitle    = 200
	MaxReviewBody     = 5000
	MaxAuthorName     = 120
	MaxMediaPerReview = 6
)

// ErrNotRevisable is 400 invalid / review_not_revisable.
var ErrNotRevisable = Invalid("review_not_revisable")

// Revisable reports whether a review can be corrected by its author: rejected and
// not erased.
func Revisable(r store.Review) bool {
	return r.State == ReviewRejected && r.AnonymizedAt.IsZero() && r.Origin == OriginOwn
}

// DisplayAuthor is the author name shown on the site, in structured data and in the
// product-review file: the name as written, or with hideName the first letter of
// each word followed by three asterisks ("Ayşe Yılmaz" -> "A*** Y***"). "" means no
// name (an anonymous review). The full name appears only in the panel.
func DisplayAuthor(name string, hideName bool) string {
	if !hideName {
		return name
	}
	var parts []string
	for _, w := range strings.Fields(name) {
		r, _ := utf8.DecodeRuneInString(w)
		parts = append(parts, string(unicode.ToUpper(r))+"***")
	}
	return strings.Join(parts, " ")
}
