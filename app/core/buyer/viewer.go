package buyer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Asker tokens (spec 2, GET /v1/viewer asker; POST /v1/questions asker).
const (
	// AskerLifetime is how long an asker token is accepted.
	AskerLifetime = time.Hour
	// MaxAskerToken is the longest asker value read (asker_too_long beyond).
	MaxAskerToken = 2048
	askerPrefix   = "ask1."
)

// AskerToken is what an asker token says: the signed-in customer's address and
// name, and when it was issued.
type AskerToken struct {
	Email    string `json:"e"`
	Name     string `json:"n"`
	IssuedAt int64  `json:"t"` // unix milliseconds
}

// IssueAskerToken seals a signed-in customer's address and name into an asker
// token. The token is encrypted and authenticated with a key derived from the
// master key (AES-GCM), so it cannot be read or forged and another installation
// cannot open it; it needs no database row.
func (c *Service) IssueAskerToken(email, name string) string {
	b, _ := json.Marshal(AskerToken{Email: email, Name: name, IssuedAt: c.Now().UnixMilli()})
	return askerPrefix + base64.RawURLEncoding.EncodeToString(c.Keys.Encrypt(append([]byte("asker\x00"), b...)))
}

// ReadAskerToken opens an asker token: invalid / asker_too_long over MaxAskerToken,
// token_refused / asker_invalid when it cannot be opened (also another brand's),
// asker_expired when older than AskerLifetime.
func (c *Service) ReadAskerToken(tok string) (AskerToken, error) {
	tok = strings.TrimSpace(tok)
	if len(tok) > MaxAskerToken {
		return AskerToken{}, core.Invalid("asker_too_long")
	}
	invalid := TokenRefused("asker_invalid").AsRefusal()
	raw, ok := strings.CutPrefix(tok, askerPrefix)
	if !ok {
		return AskerToken{}, invalid
	}
	sealed, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return AskerToken{}, invalid
	}
	plain, err := c.Keys.Decrypt(sealed)
	if err != nil {
		return AskerToken{}, invalid
	}
	body, ok := strings.CutPrefix(string(plain), "asker\x00")
	var t AskerToken
	if !ok || json.Unmarshal([]byte(body), &t) != nil || !core.ValidEmail(t.Email) {
		return AskerToken{}, invalid
	}
	issued := time.UnixMilli(t.IssuedAt)
	if now := c.Now(); now.Sub(issued) >= AskerLifetime || issued.After(now.Add(time.Minute)) {
		return AskerToken{}, TokenRefused("asker_expired")
	}
	return t, nil
}

// Customer headers ------------------------------------------------------------

// NormalizeCustomer checks the X-Service-Customer address: invalid / customer when
// missing, without @ or over 254 characters.
func NormalizeCustomer(email string) (string, error) {
	email = strings.TrimSpace(email)
	at := strings.LastIndexByte(email, '@')
	if email == "" || at <= 0 || at == len(email)-1 || utf8.RuneCountInString(email) > core.MaxEmailLength || !core.StorableText(email) {
		return "", core.Invalid("customer")
	}
	return email, nil
}

// DecodeCustomerName reads X-Service-Customer-Name (UTF-8, percent-encoded): a
// value that does not decode to storable text is ignored; it is cut to 120
// characters.
func DecodeCustomerName(raw string) string {
	s, err := url.PathUnescape(strings.TrimSpace(raw))
	if err != nil || !utf8.ValidString(s) {
		return ""
	}
	s = core.SingleLine(s)
	if !core.StorableText(s) {
		return ""
	}
	return core.TruncateRunes(s, core.MaxAuthorName)
}

// Viewer states (GET /v1/viewer) and order line states (GET /v1/viewer/order).
const (
	ViewerCanWrite = "can_write"
	ViewerWritten  = "written"
	ViewerNone     = "none"

	LineStateCanWrite  = "can_write"
	LineStatePending   = "pending"
	LineStatePublished = "published"
	LineStateRejected  = "rejected"
	LineStateRemoved   = "removed"
	LineStateWaiting   = "waiting"
	LineStateClosed    = "closed"
)

// viewerOrderLimit is how many of a customer's newest orders the viewer reads.
const viewerOrderLimit = 100

// ViewerReview is one of the signed-in customer's own reviews of the product, in
// any state.
type ViewerReview struct {
	ID            string     `json:"id"`
	LineReference string     `json:"line_reference"`
	Rating        int        `json:"rating"`
	Title         string     `json:"title"`
	Body          string     `json:"body"`
	Author        string     `json:"author"`
	Anonymous     bool       `json:"anonymous"`
	Language      string     `json:"language"`
	Experience    string     `json:"experience"`
	State         string     `json:"state"`
	SubmittedAt   time.Time  `json:"submitted_at"`
	PublishedAt   *time.Time `json:"published_at"`
}

// AskerView is the asker object of GET /v1/viewer.
type AskerView struct {
	Token string `json:"token"`
	Name  string `json:"name"`
}

// ViewerAnswer is the answer of GET /v1/viewer.
type ViewerAnswer struct {
	State    string          `json:"state"`
	Reviews  []ViewerReview  `json:"reviews"`
	Limits   core.FormLimits `json:"limits"`
	Token    string          `json:"token,omitempty"`
	Products []TokenProduct  `json:"products,omitempty"`
	Asker    *AskerView      `json:"asker,omitempty"`
	Language string          `json:"language"`
}

// ViewerInput is the input of GET /v1/viewer.
type ViewerInput struct {
	Customer     string // X-Service-Customer
	CustomerName string // X-Service-Customer-Name, decoded
	Product      string
	Scope        string
	Lang         string
}

// viewerProduct checks the product parameter of the viewer: invalid / product when
// missing or over 128 characters.
func viewerProduct(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" || utf8.RuneCountInString(p) > core.MaxProductKey || !core.StorableText(p) {
		return "", core.Invalid("product")
	}
	return p, nil
}

func viewerLineIs(l store.OrderLine, scope, product string) bool {
	if scope == "group" {
		return l.GroupKey != "" && l.GroupKey == product
	}
	return l.VariantKey == product
}

func viewerReview(r store.Review, lineRef string) ViewerReview {
	return ViewerReview{ID: r.PublicID, LineReference: lineRef, Rating: r.Rating, Title: r.Title, Body: r.Body,
		Author: core.DisplayAuthor(r.AuthorName, r.HideName), Anonymous: r.HideName || r.AuthorName == "", Language: r.Language,
		Experience: r.Experience, State: r.State, SubmittedAt: r.SubmittedAt, PublishedAt: core.OptTime(r.PublishedAt)}
}

// Viewer answers GET /v1/viewer for a signed-in customer on channel ch: can_write
// with one writing token and the products it covers when a line of the product in
// one of the customer's orders on the channel is reviewable (LineReviewable) and
// not reviewed; written when the customer has a review of the product; else none.
// reviews lists the customer's reviews of the product in any state. When the
// brand has questions on, asker carries an asker token and the name. The writing
// token is an order_check token (see viewerToken). Errors: invalid / customer,
// product, scope.
func (c *Service) Viewer(ctx context.Context, a *core.Actor, ch store.Channel, in ViewerInput) (ViewerAnswer, error) {
	email, err := NormalizeCustomer(in.Customer)
	if err != nil {
		return ViewerAnswer{}, err
	}
	product, err := viewerProduct(in.Product)
	if err != nil {
		return ViewerAnswer{}, err
	}
	scope, err := core.ProductScope(in.Scope)
	if err != nil {
		return ViewerAnswer{}, err
	}
	lang := core.Language(in.Lang, ch)
	q := c.DB.Read()
	out := ViewerAnswer{State: ViewerNone, Reviews: []ViewerReview{}, Limits: core.ReviewFormLimits(), Language: lang}
	orders, err := q.OrdersByCustomer(ctx, email, ch.ID, viewerOrderLimit)
	if err != nil {
		return out, err
	}
	ids := make([]int64, len(orders))
	for i, o := range orders {
		ids[i] = o.ID
	}
	lines, err := q.LinesOfOrders(ctx, ids)
	if err != nil {
		return out, err
	}
	reviews, err := q.ReviewsOfOrders(ctx, ids)
	if err != nil {
		return out, err
	}
	reviewed := map[int64]bool{}
	refs := map[int64]string{}
	byOrder := map[int64][]store.OrderLine{}
	for _, l := range lines {
		refs[l.ID] = l.LineReference
		if viewerLineIs(l, scope, product) {
			byOrder[l.OrderID] = append(byOrder[l.OrderID], l)
		}
	}
	for _, r := range reviews {
		reviewed[r.LineID] = true
		if l, ok := viewerFindLine(byOrder[r.OrderID], r.LineID); ok {
			out.Reviews = append(out.Reviews, viewerReview(r, l.LineReference))
		}
	}
	// The newest order with a line that can still be reviewed gets the token.
	for _, o := range orders {
		ls := byOrder[o.ID]
		if len(ls) == 0 {
			continue
		}
		revs, err := c.OrderReviewability(ctx, q, o, ls, q.Now)
		if err != nil {
			return out, err
		}
		var writable []store.OrderLine
		var ends time.Time
		for i, r := range revs {
			if r.Reviewable && !reviewed[ls[i].ID] {
				writable = append(writable, ls[i])
				if r.WindowEnds.After(ends) {
					ends = r.WindowEnds
				}
			}
		}
		if len(writable) == 0 {
			continue
		}
		tok, err := c.viewerToken(ctx, o, writable, ends)
		if err != nil {
			return out, err
		}
		out.State, out.Token, out.Products = ViewerCanWrite, tok, []TokenProduct{}
		for _, l := range writable {
			p, err := c.tokenProduct(ctx, q, l, false, "", lang)
			if err != nil {
				return out, err
			}
			out.Products = append(out.Products, p)
		}
		break
	}
	if out.State == ViewerNone && len(out.Reviews) > 0 {
		out.State = ViewerWritten
	}
	st, err := c.Brand.LoadSettings(ctx, q)
	if err != nil {
		return out, err
	}
	if st.QuestionsEnabled {
		out.Asker = &AskerView{Token: c.IssueAskerToken(email, in.CustomerName), Name: in.CustomerName}
	}
	return out, nil
}

func viewerFindLine(ls []store.OrderLine, id int64) (store.OrderLine, bool) {
	for _, l := range ls {
		if l.ID == id {
			return l, true
		}
	}
	return store.OrderLine{}, false
}

// viewerToken returns the writing token the viewer endpoints hand out for the
// writable lines of order o: an order_check token (the store server vouches for the
// signed-in customer as the order check does), single-use, valid for
// OrderCheckLifetime from the start of the current hour but not past the lines'
// review window. The token is derived from the master key, the order, the lines and
// the hour, so repeated page views within an hour hand out the same token and store
// one row; once the lines change (a review was written) a new one is made.
func (c *Service) viewerToken(ctx context.Context, o store.Order, lines []store.OrderLine, windowEnds time.Time) (string, error) {
	ids := make([]int64, len(lines))
	for i, l := range lines {
		ids[i] = l.ID
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var plain string
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		hour := tx.Now.Truncate(time.Hour)
		seed := fmt.Sprintf("%d|%v|%d", o.ID, ids, hour.Unix())
		plain = c.Keys.Pseudonym("viewer_token_1", seed) + c.Keys.Pseudonym("viewer_token_2", seed)
		expires := hour.Add(OrderCheckLifetime)
		if !windowEnds.IsZero() && windowEnds.Before(expires) {
			expires = windowEnds
		}
		t, err := tx.TokenByHash(ctx, core.HashToken(plain))
		switch {
		case err == nil && t.SpentAt.IsZero() && tx.Now.Before(t.ExpiresAt):
			return nil
		case err == nil:
			// Spent or expired meanwhile (a review was removed): a fresh random one.
			plain, _, err = IssueToken(ctx, tx, TokenOrderCheck, o, ids, expires, 0)
			return err
		case errors.Is(err, store.ErrNotFound):
			_, err = tx.CreateToken(ctx, store.Token{Hash: core.HashToken(plain), Kind: TokenOrderCheck, OrderID: o.ID,
				ChannelID: o.ChannelID, Market: o.Market, ExpiresAt: expires}, ids)
			return err
		default:
			return err
		}
	})
	if err != nil {
		return "", err
	}
	return c.TagToken(plain), nil
}

// Order detail ----------------------------------------------------------------

// OrderLineView is one line of the order detail response.
type OrderLineView struct {
	LineReference string             `json:"line_reference"`
	VariantKey    string             `json:"variant_key"`
	GroupKey      string             `json:"group_key"`
	Title         string             `json:"title"`
	Aspects       []brand.AspectView `json:"aspects,omitempty"`
	State         string             `json:"state"`
	Rating        *int               `json:"rating,omitempty"`
}

// OrderDetail is the answer of GET /v1/viewer/order.
type OrderDetail struct {
	Order      string            `json:"order"`
	Token      string            `json:"token"`
	Lines      []OrderLineView   `json:"lines"`
	Limits     core.FormLimits   `json:"limits"`
	Language   string            `json:"language"`
	Theme      string            `json:"theme"`
	PrivacyURL string            `json:"privacy_url"`
	Words      map[string]string `json:"words"`
}

// ViewerOrderInput is the input of GET /v1/viewer/order.
type ViewerOrderInput struct {
	Customer string
	Order    string
	Lang     string
}

// reviewLineState maps a review's state to the order line state the customer sees;
// a temporarily hidden review counts as removed.
func viewerReviewState(state string) string {
	switch state {
	case core.ReviewPending:
		return LineStatePending
	case core.ReviewPublished:
		return LineStatePublished
	case core.ReviewRejected:
		return LineStateRejected
	default:
		return LineStateRemoved
	}
}

// unreviewedLineState is the state of a line without a review: can_write when
// LineReviewable says so; waiting while it may still become reviewable (not yet
// delivered, or not paid yet); closed otherwise (cancelled, returned, refunded,
// window over, erased, market without rule).
func viewerLineState(o store.Order, l store.OrderLine, r Reviewability) string {
	switch {
	case r.Reviewable:
		return LineStateCanWrite
	case r.Reason == NotDelivered && l.FulfilmentState != core.LineCancelled && l.FulfilmentState != core.LineReturned:
		return LineStateWaiting
	case r.Reason == NotPaid && o.PaymentState == "pending":
		return LineStateWaiting
	}
	return LineStateClosed
}

// ViewerOrder answers GET /v1/viewer/order: the review state of each line of a
// signed-in customer's order on channel ch, with one writing token (see
// viewerToken) for the lines that can be reviewed and their rating topics. An order
// that is not found, belongs to another customer or channel, or is erased answers
// with empty lines. Errors: invalid / customer, order, order_too_long.
func (c *Service) ViewerOrder(ctx context.Context, a *core.Actor, ch store.Channel, in ViewerOrderInput) (OrderDetail, error) {
	email, err := NormalizeCustomer(in.Customer)
	if err != nil {
		return OrderDetail{}, err
	}
	ref := strings.TrimSpace(in.Order)
	switch {
	case ref == "" || !core.StorableText(ref):
		return OrderDetail{}, core.Invalid("order")
	case utf8.RuneCountInString(ref) > core.MaxOrderReference:
		return OrderDetail{}, core.Invalid("order_too_long")
	}
	lang := core.Language(in.Lang, ch)
	out := OrderDetail{Order: ref, Lines: []OrderLineView{}, Limits: core.ReviewFormLimits(), Language: lang, Theme: ch.Theme,
		PrivacyURL: ch.PrivacyURL, Words: viewerWordsOf(lang)}
	q := c.DB.Read()
	o, err := q.OrderByExternalID(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	if o.Erased() || o.ChannelID != ch.ID || !strings.EqualFold(strings.TrimSpace(o.CustomerEmail), email) {
		return out, nil
	}
	lines, err := q.LinesOfOrder(ctx, o.ID)
	if err != nil {
		return out, err
	}
	reviews, err := q.ReviewsOfOrder(ctx, o.ID)
	if err != nil {
		return out, err
	}
	byLine := map[int64]store.Review{}
	for _, r := range reviews {
		byLine[r.LineID] = r
	}
	revs, err := c.OrderReviewability(ctx, q, o, lines, q.Now)
	if err != nil {
		return out, err
	}
	var writable []store.OrderLine
	var ends time.Time
	for i, l := range lines {
		v := OrderLineView{LineReference: l.LineReference, VariantKey: l.VariantKey, GroupKey: l.GroupKey, Title: l.Title}
		if r, ok := byLine[l.ID]; ok {
			v.State = viewerReviewState(r.State)
			rating := r.Rating
			v.Rating = &rating
		} else {
			v.State = viewerLineState(o, l, revs[i])
		}
		if v.State == LineStateCanWrite {
			p, err := c.tokenProduct(ctx, q, l, false, "", lang)
			if err != nil {
				return out, err
			}
			v.Aspects = p.Aspects
			writable = append(writable, l)
			if revs[i].WindowEnds.After(ends) {
				ends = revs[i].WindowEnds
			}
		}
		out.Lines = append(out.Lines, v)
	}
	if len(writable) > 0 {
		if out.Token, err = c.viewerToken(ctx, o, writable, ends); err != nil {
			return out, err
		}
	}
	return out, nil
}

// viewerWords are the label texts of the order detail in lang.
func viewerWordsOf(lang string) map[string]string {
	if lang == "tr" {
		return map[string]string{
			"write_review": "Değerlendir", "verified_buyer": "Doğrulanmış alıcı", "privacy_notice": "Gizlilik bildirimi",
			"state_can_write": "Değerlendirilebilir", "state_pending": "Onay bekliyor", "state_published": "Yayında",
			"state_rejected": "Reddedildi", "state_removed": "Kaldırıldı", "state_waiting": "Teslimat bekleniyor",
			"state_closed": "Değerlendirme süresi kapalı", "experience_process": "Alışveriş deneyimi değerlendirmesi",
		}
	}
	return map[string]string{
		"write_review": "Write a review", "verified_buyer": "Verified buyer", "privacy_notice": "Privacy notice",
		"state_can_write": "Ready for your review", "state_pending": "Awaiting approval", "state_published": "Published",
		"state_rejected": "Rejected", "state_removed": "Removed", "state_waiting": "Waiting for delivery",
		"state_closed": "Reviews closed", "experience_process": "Shopping experience review",
	}
}
