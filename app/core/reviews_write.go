package core

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"reviewd/store"
)

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

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newPublicID returns prefix + 20 random base32 characters (100 bits).
func NewPublicID(prefix string) string {
	b := make([]byte, 13)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return prefix + idEncoding.EncodeToString(b)[:20]
}

// NewReviewID returns a new public review id (r_<20 base32>).
func NewReviewID() string { return NewPublicID("r_") }

// ReviewInput is one row of POST /v1/reviews. Rating and HideName stay raw so a
// wrong type gets its own detail (rating_out_of_range, hide_name).
type ReviewInput struct {
	LineReference string                     `json:"line_reference"`
	Rating        json.RawMessage            `json:"rating"`
	Title         string                     `json:"title"`
	Body          string                     `json:"body"`
	Aspects       map[string]json.RawMessage `json:"aspects"`
	Media         []string                   `json:"media"`
	AuthorName    *string                    `json:"author_name"`
	HideName      json.RawMessage            `json:"hide_name"`
}

// WriteInput is the body of POST /v1/reviews.
type WriteInput struct {
	Token    string        `json:"token"`
	Language string        `json:"language"`
	Reviews  []ReviewInput `json:"reviews"`
}

// WrittenReview is one entry of the answer of POST /v1/reviews.
type WrittenReview struct {
	ID            string `json:"id"`
	LineReference string `json:"line_reference"`
	State         string `json:"state"`
}

// reviewText is validated customer text.
type reviewText struct {
	rating           int
	title, body      string
	author           string
	authorSet        bool
	hide             bool
	hideSet          bool
	aspects, tplUsed string
}

// singleLine cleans a one-line field: line breaks and tabs become spaces, other
// control characters go, surrounding space is trimmed.
func SingleLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// multiLine cleans a text field: line breaks become \n, tabs spaces, other control
// characters go, surrounding space is trimmed.
func MultiLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r' || r == '\u2028' || r == '\u2029':
			return '\n'
		case r == '\t':
			return ' '
		case r == '\n':
			return r
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// parseRating reads a rating: missing is rating_required, anything but a whole
// number 1..5 is rating_out_of_range.
func parseRating(raw json.RawMessage) (int, error) {
	if isNull(raw) {
		return 0, Invalid("rating_required")
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 1 || f > 5 {
		return 0, Invalid("rating_out_of_range")
	}
	return int(f), nil
}

// parseHideName reads hide_name: absent or null is unset, else it must be a
// boolean (invalid / hide_name).
func ParseHideName(raw json.RawMessage) (v, set bool, err error) {
	if isNull(raw) {
		return false, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, false, Invalid("hide_name")
	}
	return v, true, nil
}

// validateText checks the customer fields of a review row or correction.
func validateText(rating json.RawMessage, title, body string, author *string, hide json.RawMessage) (reviewText, error) {
	var t reviewText
	var err error
	if t.rating, err = parseRating(rating); err != nil {
		return t, err
	}
	t.title, t.body = SingleLine(title), MultiLine(body)
	if utf8.RuneCountInString(t.title) > MaxReviewTitle {
		return t, Invalidf("title_too_long", MaxReviewTitle)
	}
	if utf8.RuneCountInString(t.body) > MaxReviewBody {
		return t, Invalidf("body_too_long", MaxReviewBody)
	}
	if author != nil {
		t.author, t.authorSet = SingleLine(*author), true
		if utf8.RuneCountInString(t.author) > MaxAuthorName {
			return t, Invalidf("author_too_long", MaxAuthorName)
		}
	}
	if t.hide, t.hideSet, err = ParseHideName(hide); err != nil {
		return t, err
	}
	return t, nil
}

// rowError adds the row index to a row's refusal.
func rowError(i int, err error) error {
	var ce *Error
	if errors.As(err, &ce) && ce.Status < 500 {
		return ce.With(map[string]any{"index": i})
	}
	return err
}

// uniqueIDs trims ids and drops empty and repeated ones, keeping the order.
func uniqueIDs(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

// uploadsFor loads the given uploads for attaching to a review of line: each must
// be an upload of that line not attached yet and not failed or removed, else
// invalid / media_not_available.
func uploadsFor(ctx context.Context, q *store.Q, ids []string, lineID int64) ([]store.Media, error) {
	var out []store.Media
	for _, id := range ids {
		m, err := q.MediaByPublicID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, Invalid("media_not_available")
		}
		if err != nil {
			return nil, err
		}
		usable := m.State == store.MediaUploaded || m.State == store.MediaProcessing || m.State == store.MediaReady
		if m.LineID != lineID || m.ReviewID != 0 || !usable {
			return nil, Invalid("media_not_available")
		}
		out = append(out, m)
	}
	return out, nil
}

// WriteReviews submits reviews with a writing token (POST /v1/reviews) on channel
// site: up to 20 rows, each for a line the token covers and that can still be
// reviewed. Product-invitation and order-check tokens write product reviews,
// shopping-experience tokens process reviews (without rating topics). Each review
// is checked, published or held by PublishDecision, and its uploads are attached.
// An order-check token is spent by a successful call. Everything happens in one
// transaction; the first refused row refuses the call (its index is in the error
// body). Errors: 401 token_required, token_refused / <detail>, invalid /
// too_many_reviews, reviews_required, line_reference_required, rating_required,
// rating_out_of_range, title_too_long: 200, body_too_long: 5000,
// author_too_long: 120, hide_name, aspect_unknown, aspect_out_of_range,
// aspect_required, too_many_items: 6, media_not_available.
func (c *Core) WriteReviews(ctx context.Context, a *Actor, site store.Channel, in WriteInput) ([]WrittenReview, error) {
	if strings.TrimSpace(in.Token) == "" {
		return nil, ErrTokenRequired
	}
	if len(in.Reviews) > MaxReviewsPerCall {
		return nil, Invalid("too_many_reviews")
	}
	if len(in.Reviews) == 0 {
		return nil, Invalid("reviews_required")
	}
	var out []WrittenReview
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		v, err := c.VerifyToken(ctx, tx.Q, in.Token, site, WritingKinds...)
		if err != nil {
			return err
		}
		st, err := c.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		lang := Language(in.Language, site)
		seen := map[string]bool{}
		for i, row := range in.Reviews {
			w, err := c.writeOne(ctx, tx, a, v, row, lang, st.PublishingMethod, seen)
			if err != nil {
				return rowError(i, err)
			}
			out = append(out, w)
		}
		if v.Token.Kind == TokenOrderCheck {
			if _, err := tx.SpendToken(ctx, v.Token.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Core) writeOne(ctx context.Context, tx *store.Tx, a *Actor, v VerifiedToken, row ReviewInput, lang, method string, seen map[string]bool) (WrittenReview, error) {
	ref := strings.TrimSpace(row.LineReference)
	if ref == "" {
		return WrittenReview{}, Invalid("line_reference_required")
	}
	if seen[ref] {
		return WrittenReview{}, TokenRefused(LineAlreadyWritten)
	}
	seen[ref] = true
	line, err := v.lineFor(ref)
	if err != nil {
		return WrittenReview{}, err
	}
	t, err := validateText(row.Rating, row.Title, row.Body, row.AuthorName, row.HideName)
	if err != nil {
		return WrittenReview{}, err
	}
	experience := ExperienceProduct
	if v.Token.Kind == TokenExperience {
		experience = ExperienceProcess
	}
	var tpl AspectTemplate
	hasTpl := false
	if experience == ExperienceProduct {
		if tpl, hasTpl, err = c.TemplateForProduct(ctx, tx.Q, line.VariantKey, line.GroupKey); err != nil {
			return WrittenReview{}, err
		}
	}
	if t.aspects, err = validateAspectValues(tpl, hasTpl, row.Aspects); err != nil {
		return WrittenReview{}, err
	}
	if hasTpl {
		t.tplUsed = tpl.Key
	}
	ids := uniqueIDs(row.Media)
	if len(ids) > MaxMediaPerReview {
		return WrittenReview{}, Invalidf("too_many_items", MaxMediaPerReview)
	}
	uploads, err := uploadsFor(ctx, tx.Q, ids, line.ID)
	if err != nil {
		return WrittenReview{}, err
	}
	proof := VerifiedByInvite
	if v.Token.Kind == TokenOrderCheck {
		proof = VerifiedByOrderCheck
	}
	r, err := tx.CreateReview(ctx, store.Review{PublicID: NewReviewID(), ChannelID: v.Order.ChannelID, Market: v.Order.Market,
		Language: lang, OrderID: v.Order.ID, LineID: line.ID, TokenID: v.Token.ID, VariantKey: line.VariantKey,
		GroupKey: line.GroupKey, ProductName: line.Title, Experience: experience, Origin: OriginOwn, State: ReviewPending,
		Rating: t.rating, Title: t.title, Body: t.body, BodyHash: BodyHash(t.body, lang), AuthorName: t.author,
		HideName: t.hide, Aspects: t.aspects, AspectTemplate: t.tplUsed, VerificationMethod: proof, SubmittedAt: tx.Now})
	if errors.Is(err, store.ErrConflict) {
		return WrittenReview{}, TokenRefused(LineAlreadyWritten)
	}
	if err != nil {
		return WrittenReview{}, err
	}
	for pos, m := range uploads {
		if ok, err := tx.AttachMedia(ctx, m.ID, r.ID, pos); err != nil {
			return WrittenReview{}, err
		} else if !ok {
			return WrittenReview{}, Invalid("media_not_available")
		}
	}
	state, flagged, err := c.publishAfterChecks(ctx, tx, r, method)
	if err != nil {
		return WrittenReview{}, err
	}
	detail := map[string]any{"publishing_method": method, "flagged": flagged, "media": len(uploads)}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, "submitted", "", state, "", detail); err != nil {
		return WrittenReview{}, err
	}
	if err := c.Record(ctx, tx, a, "review.submitted", "review", r.PublicID, map[string]any{"state": state}); err != nil {
		return WrittenReview{}, err
	}
	if err := c.afterReviewStateChange(ctx, tx, r.ID); err != nil {
		return WrittenReview{}, err
	}
	return WrittenReview{ID: r.PublicID, LineReference: ref, State: state}, nil
}

// ReviseInput is the body of POST /v1/reviews/revise. KeptMedia nil means the key
// was omitted (every file stays); AuthorName nil and HideName absent keep the
// stored values.
type ReviseInput struct {
	Token      string                     `json:"token"`
	Language   string                     `json:"language"`
	Rating     json.RawMessage            `json:"rating"`
	Title      string                     `json:"title"`
	Body       string                     `json:"body"`
	Aspects    map[string]json.RawMessage `json:"aspects"`
	Media      []string                   `json:"media"`
	KeptMedia  *[]string                  `json:"kept_media"`
	AuthorName *string                    `json:"author_name"`
	HideName   json.RawMessage            `json:"hide_name"`
}

// RevisedReview is the answer of POST /v1/reviews/revise.
type RevisedReview struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// revisable reports whether a review can be corrected by its author: rejected and
// not erased.
func revisable(r store.Review) bool {
	return r.State == ReviewRejected && r.AnonymizedAt.IsZero() && r.Origin == OriginOwn
}

// ReviseReview resubmits a rejected review with its correction link (POST
// /v1/reviews/revise). The text, rating and topics are replaced; kept_media lists
// the attached files that stay (omitted: all stay) and media adds new uploads of
// the same line, at most 6 in all; author_name and hide_name replace the stored
// values when sent (an empty author_name removes the name). The review is checked
// again and published or held by PublishDecision; the correction link is spent.
// Files no longer kept are deleted. Errors: those of WriteReviews plus
// token_refused / token_wrong_kind for other tokens and invalid /
// review_not_revisable when the review is not rejected.
func (c *Core) ReviseReview(ctx context.Context, a *Actor, site store.Channel, in ReviseInput) (RevisedReview, error) {
	if strings.TrimSpace(in.Token) == "" {
		return RevisedReview{}, ErrTokenRequired
	}
	var out RevisedReview
	var dropped []string
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		v, err := c.VerifyToken(ctx, tx.Q, in.Token, site, TokenCorrection)
		if err != nil {
			return err
		}
		r := v.Review
		if !revisable(r) {
			return ErrNotRevisable
		}
		t, err := validateText(in.Rating, in.Title, in.Body, in.AuthorName, in.HideName)
		if err != nil {
			return err
		}
		var tpl AspectTemplate
		hasTpl := false
		if r.Experience == ExperienceProduct && r.AspectTemplate != "" {
			if tpl, hasTpl, err = c.AspectTemplateByKey(ctx, tx.Q, r.AspectTemplate); err != nil {
				return err
			}
		}
		if t.aspects, err = validateAspectValues(tpl, hasTpl, in.Aspects); err != nil {
			return err
		}
		current, err := tx.MediaOfReview(ctx, r.ID)
		if err != nil {
			return err
		}
		var live []store.Media
		for _, m := range current {
			if m.State != store.MediaRemoved {
				live = append(live, m)
			}
		}
		kept := live
		if in.KeptMedia != nil {
			kept = nil
			for _, id := range uniqueIDs(*in.KeptMedia) {
				found := false
				for _, m := range live {
					if m.PublicID == id {
						kept, found = append(kept, m), true
					}
				}
				if !found {
					return Invalid("media_not_available")
				}
			}
		}
		newIDs := uniqueIDs(in.Media)
		if len(kept)+len(newIDs) > MaxMediaPerReview {
			return Invalidf("too_many_items", MaxMediaPerReview)
		}
		uploads, err := uploadsFor(ctx, tx.Q, newIDs, r.LineID)
		if err != nil {
			return err
		}
		if !t.authorSet {
			t.author = r.AuthorName
		}
		if !t.hideSet {
			t.hide = r.HideName
		}
		lang := r.Language
		if in.Language == "tr" || in.Language == "en" {
			lang = in.Language
		}
		content := store.ReviewContent{Rating: t.rating, Title: t.title, Body: t.body, BodyHash: BodyHash(t.body, lang),
			AuthorName: t.author, HideName: t.hide, Aspects: t.aspects, Language: lang}
		if err := tx.UpdateReviewContent(ctx, r.ID, content); err != nil {
			return err
		}
		keep := map[int64]bool{}
		for pos, m := range kept {
			keep[m.ID] = true
			if err := tx.SetMediaPosition(ctx, m.ID, pos); err != nil {
				return err
			}
		}
		for _, m := range live {
			if !keep[m.ID] {
				if err := tx.RemoveMedia(ctx, m.ID, "customer_removed"); err != nil {
					return err
				}
				dropped = append(dropped, m.PublicID)
			}
		}
		for i, m := range uploads {
			if ok, err := tx.AttachMedia(ctx, m.ID, r.ID, len(kept)+i); err != nil {
				return err
			} else if !ok {
				return Invalid("media_not_available")
			}
		}
		if r, err = tx.ReviewByID(ctx, r.ID); err != nil {
			return err
		}
		st, err := c.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		state, flagged, err := c.publishAfterChecks(ctx, tx, r, st.PublishingMethod)
		if err != nil {
			return err
		}
		if _, err := tx.SpendToken(ctx, v.Token.ID); err != nil {
			return err
		}
		detail := map[string]any{"publishing_method": st.PublishingMethod, "flagged": flagged, "media_added": len(uploads),
			"media_removed": len(dropped)}
		if err := c.AddReviewEvent(ctx, tx, a, r.ID, "revised", ReviewRejected, state, "", detail); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "review.revised", "review", r.PublicID, map[string]any{"state": state}); err != nil {
			return err
		}
		out = RevisedReview{ID: r.PublicID, State: state}
		return c.afterReviewStateChange(ctx, tx, r.ID)
	})
	if err != nil {
		return RevisedReview{}, err
	}
	for _, id := range dropped {
		c.DeleteMediaFiles(id)
	}
	return out, nil
}

// DeleteMediaFiles removes a media item's processed files and any waiting upload
// from disk. Call it after the transaction that marked the item removed commits.
func (c *Core) DeleteMediaFiles(publicID string) {
	if c.MediaDir == "" || !validMediaID(publicID) {
		return
	}
	if err := os.RemoveAll(filepath.Join(c.MediaDir, publicID)); err != nil {
		c.Log.Warn("media files not removed", "media", publicID, "err", err)
	}
	matches, _ := filepath.Glob(filepath.Join(c.MediaDir, incomingDir, publicID+".*"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
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
