package reviews

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/checks"
	"reviewd/store"
)

// NewReviewID returns a new public review id (r_<20 base32>).
func NewReviewID() string { return core.NewPublicID("r_") }

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
	// Receipt is the token of the review's transparency receipt
	// (GET /v1/transparency/receipt/<id>?token=<receipt>).
	Receipt string `json:"receipt"`
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

// parseRating reads a rating: missing is rating_required, anything but a whole
// number 1..5 is rating_out_of_range.
func parseRating(raw json.RawMessage) (int, error) {
	if core.IsNull(raw) {
		return 0, core.Invalid("rating_required")
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 1 || f > 5 {
		return 0, core.Invalid("rating_out_of_range")
	}
	return int(f), nil
}

// validateText checks the customer fields of a review row or correction.
func validateText(rating json.RawMessage, title, body string, author *string, hide json.RawMessage) (reviewText, error) {
	var t reviewText
	var err error
	if t.rating, err = parseRating(rating); err != nil {
		return t, err
	}
	t.title, t.body = core.SingleLine(title), core.MultiLine(body)
	if utf8.RuneCountInString(t.title) > core.MaxReviewTitle {
		return t, core.Invalidf("title_too_long", core.MaxReviewTitle)
	}
	if utf8.RuneCountInString(t.body) > core.MaxReviewBody {
		return t, core.Invalidf("body_too_long", core.MaxReviewBody)
	}
	if author != nil {
		t.author, t.authorSet = core.SingleLine(*author), true
		if utf8.RuneCountInString(t.author) > core.MaxAuthorName {
			return t, core.Invalidf("author_too_long", core.MaxAuthorName)
		}
	}
	if t.hide, t.hideSet, err = core.ParseHideName(hide); err != nil {
		return t, err
	}
	return t, nil
}

// rowError adds the row index to a row's refusal.
func rowError(i int, err error) error {
	var ce *core.Error
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
			return nil, core.Invalid("media_not_available")
		}
		if err != nil {
			return nil, err
		}
		usable := m.State == store.MediaUploaded || m.State == store.MediaProcessing || m.State == store.MediaReady
		if m.LineID != lineID || m.ReviewID != 0 || !usable {
			return nil, core.Invalid("media_not_available")
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
func (c *Service) WriteReviews(ctx context.Context, a *core.Actor, site store.Channel, in WriteInput) ([]WrittenReview, error) {
	if strings.TrimSpace(in.Token) == "" {
		return nil, core.ErrTokenRequired
	}
	if len(in.Reviews) > core.MaxReviewsPerCall {
		return nil, core.Invalid("too_many_reviews")
	}
	if len(in.Reviews) == 0 {
		return nil, core.Invalid("reviews_required")
	}
	var out []WrittenReview
	var confirm *confirmationMail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		out, confirm = nil, nil
		v, err := c.Buyer.VerifyToken(ctx, tx.Q, in.Token, site, buyer.WritingKinds...)
		if err != nil {
			return err
		}
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		lang := core.Language(in.Language, site)
		seen := map[string]bool{}
		var products []string
		for i, row := range in.Reviews {
			w, err := c.writeOne(ctx, tx, a, v, row, lang, st.PublishingMethod, seen)
			if err != nil {
				return rowError(i, err)
			}
			out = append(out, w)
			line, _ := v.LineFor(w.LineReference) // written: the line exists
			products = append(products, line.Title)
		}
		if v.Token.Kind == buyer.TokenOrderCheck {
			if _, err := tx.SpendToken(ctx, v.Token.ID); err != nil {
				return err
			}
		}
		confirm, err = c.prepareConfirmation(ctx, tx, v.Order, out, products)
		return err
	})
	if err != nil {
		return nil, err
	}
	if confirm != nil {
		c.sendConfirmation(ctx, confirm)
	}
	return out, nil
}

func (c *Service) writeOne(ctx context.Context, tx *store.Tx, a *core.Actor, v buyer.VerifiedToken, row ReviewInput, lang, method string, seen map[string]bool) (WrittenReview, error) {
	ref := strings.TrimSpace(row.LineReference)
	if ref == "" {
		return WrittenReview{}, core.Invalid("line_reference_required")
	}
	if seen[ref] {
		return WrittenReview{}, buyer.TokenRefused(buyer.LineAlreadyWritten)
	}
	seen[ref] = true
	line, err := v.LineFor(ref)
	if err != nil {
		return WrittenReview{}, err
	}
	t, err := validateText(row.Rating, row.Title, row.Body, row.AuthorName, row.HideName)
	if err != nil {
		return WrittenReview{}, err
	}
	experience := core.ExperienceProduct
	if v.Token.Kind == buyer.TokenExperience {
		experience = core.ExperienceProcess
	}
	var tpl brand.AspectTemplate
	hasTpl := false
	if experience == core.ExperienceProduct {
		if tpl, hasTpl, err = c.Brand.TemplateForProduct(ctx, tx.Q, line.VariantKey, line.GroupKey); err != nil {
			return WrittenReview{}, err
		}
	}
	if t.aspects, err = brand.ValidateAspectValues(tpl, hasTpl, row.Aspects); err != nil {
		return WrittenReview{}, err
	}
	if hasTpl {
		t.tplUsed = tpl.Key
	}
	ids := uniqueIDs(row.Media)
	if len(ids) > core.MaxMediaPerReview {
		return WrittenReview{}, core.Invalidf("too_many_items", core.MaxMediaPerReview)
	}
	uploads, err := uploadsFor(ctx, tx.Q, ids, line.ID)
	if err != nil {
		return WrittenReview{}, err
	}
	proof := core.VerifiedByInvite
	if v.Token.Kind == buyer.TokenOrderCheck {
		proof = core.VerifiedByOrderCheck
	}
	incentive, err := incentivized(ctx, tx.Q, line, v.Order.ID, v.Token.ID)
	if err != nil {
		return WrittenReview{}, err
	}
	r, err := tx.CreateReview(ctx, store.Review{PublicID: NewReviewID(), ChannelID: v.Order.ChannelID, Market: v.Order.Market,
		Language: lang, OrderID: v.Order.ID, LineID: line.ID, TokenID: v.Token.ID, VariantKey: line.VariantKey,
		GroupKey: line.GroupKey, ProductName: line.Title, Experience: experience, Origin: core.OriginOwn, State: core.ReviewPending,
		Rating: t.rating, Title: t.title, Body: t.body, BodyHash: checks.BodyHash(t.body, lang), AuthorName: t.author,
		HideName: t.hide, Aspects: t.aspects, AspectTemplate: t.tplUsed, VerificationMethod: proof, SubmittedAt: tx.Now,
		Incentivized: incentive})
	if errors.Is(err, store.ErrConflict) {
		return WrittenReview{}, buyer.TokenRefused(buyer.LineAlreadyWritten)
	}
	if err != nil {
		return WrittenReview{}, err
	}
	for pos, m := range uploads {
		if ok, err := tx.AttachMedia(ctx, m.ID, r.ID, pos); err != nil {
			return WrittenReview{}, err
		} else if !ok {
			return WrittenReview{}, core.Invalid("media_not_available")
		}
	}
	state, flagged, err := c.publishAfterChecks(ctx, tx, r, method)
	if err != nil {
		return WrittenReview{}, err
	}
	detail := map[string]any{"publishing_method": method, "flagged": flagged, "media": len(uploads)}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, eventSubmitted, "", state, "", detail); err != nil {
		return WrittenReview{}, err
	}
	if err := c.Record(ctx, tx, a, "review.submitted", "review", r.PublicID, map[string]any{"state": state}); err != nil {
		return WrittenReview{}, err
	}
	if err := c.afterReviewStateChange(ctx, tx, r.ID); err != nil {
		return WrittenReview{}, err
	}
	receipt, err := c.Decisions.Receipt(ctx, tx, r.ID)
	if err != nil {
		return WrittenReview{}, err
	}
	return WrittenReview{ID: r.PublicID, LineReference: ref, State: state, Receipt: receipt}, nil
}

// incentivized reports whether a review of line written with token is
// incentivised: the store marked the line (ingest "incentive": true), or the
// invitation or reminder of the token was sent from a template marked incentive.
// The rating and text play no part (16 CFR 465.4: the incentive may not depend on
// the sentiment, and neither may its disclosure).
func incentivized(ctx context.Context, q *store.Q, line store.OrderLine, orderID, tokenID int64) (bool, error) {
	if line.Incentive {
		return true, nil
	}
	if tokenID == 0 {
		return false, nil
	}
	return q.TokenIncentive(ctx, orderID, tokenID)
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

// ReviseReview resubmits a rejected review with its correction link (POST
// /v1/reviews/revise). The text, rating and topics are replaced; kept_media lists
// the attached files that stay (omitted: all stay) and media adds new uploads of
// the same line, at most 6 in all; author_name and hide_name replace the stored
// values when sent (an empty author_name removes the name). The review is checked
// again and published or held by PublishDecision; the correction link is spent.
// Files no longer kept are deleted. Errors: those of WriteReviews plus
// token_refused / token_wrong_kind for other tokens and invalid /
// review_not_revisable when the review is not rejected.
func (c *Service) ReviseReview(ctx context.Context, a *core.Actor, site store.Channel, in ReviseInput) (RevisedReview, error) {
	if strings.TrimSpace(in.Token) == "" {
		return RevisedReview{}, core.ErrTokenRequired
	}
	var out RevisedReview
	var dropped []string
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		v, err := c.Buyer.VerifyToken(ctx, tx.Q, in.Token, site, buyer.TokenCorrection)
		if err != nil {
			return err
		}
		r := v.Review
		if !core.Revisable(r) {
			return core.ErrNotRevisable
		}
		t, err := validateText(in.Rating, in.Title, in.Body, in.AuthorName, in.HideName)
		if err != nil {
			return err
		}
		var tpl brand.AspectTemplate
		hasTpl := false
		if r.Experience == core.ExperienceProduct && r.AspectTemplate != "" {
			if tpl, hasTpl, err = c.Brand.AspectTemplateByKey(ctx, tx.Q, r.AspectTemplate); err != nil {
				return err
			}
		}
		if t.aspects, err = brand.ValidateAspectValues(tpl, hasTpl, in.Aspects); err != nil {
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
					return core.Invalid("media_not_available")
				}
			}
		}
		newIDs := uniqueIDs(in.Media)
		if len(kept)+len(newIDs) > core.MaxMediaPerReview {
			return core.Invalidf("too_many_items", core.MaxMediaPerReview)
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
		content := store.ReviewContent{Rating: t.rating, Title: t.title, Body: t.body, BodyHash: checks.BodyHash(t.body, lang),
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
				return core.Invalid("media_not_available")
			}
		}
		if r, err = tx.ReviewByID(ctx, r.ID); err != nil {
			return err
		}
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
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
		if err := c.AddReviewEvent(ctx, tx, a, r.ID, eventRevised, core.ReviewRejected, state, "", detail); err != nil {
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
