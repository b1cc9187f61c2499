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

// ReviewStates lists every review state.
var ReviewStates = []string{ReviewPending, ReviewPublished, ReviewRejected, ReviewHidden, ReviewRemoved}

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
	// ProofSourcePlatform is the proof shown for an imported review: the
	// marketplace it was read from.
	ProofSourcePlatform = "source_platform"
)

// ProofMethods lists every proof a review shows in the panel.
var ProofMethods = []string{VerifiedByInvite, VerifiedByOrderCheck, ProofSourcePlatform}

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

// FormLimits are the form limits of spec 2 ("Limits").
type FormLimits struct {
	MediaCount           int   `json:"media_count"`
	TitleLength          int   `json:"title_length"`
	BodyLength           int   `json:"body_length"`
	NameLength           int   `json:"name_length"`
	AltTextLength        int   `json:"alt_text_length"`
	ImageBytes           int64 `json:"image_bytes"`
	VideoBytes           int64 `json:"video_bytes"`
	VideoSeconds         int   `json:"video_seconds"`
	ReviewsPerCall       int   `json:"reviews_per_call"`
	OrderReferenceLength int   `json:"order_reference_length"`
	EmailLength          int   `json:"email_length"`
	ReportNoteLength     int   `json:"report_note_length"`
}

// ReviewFormLimits is the spec's limits object.
func ReviewFormLimits() FormLimits {
	return FormLimits{MediaCount: MaxMediaPerReview, TitleLength: MaxReviewTitle, BodyLength: MaxReviewBody,
		NameLength: MaxAuthorName, AltTextLength: 300, ImageBytes: 12582912, VideoBytes: 209715200, VideoSeconds: 60,
		ReviewsPerCall: MaxReviewsPerCall, OrderReferenceLength: MaxOrderReference, EmailLength: MaxEmailLength,
		ReportNoteLength: 1000}
}

// Limits of the order check input.
const (
	MaxOrderReference = 128
	MaxEmailLength    = 254
)
