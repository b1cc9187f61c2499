package orders

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Limits of the order and delivery transfer (spec 1, "Limits").
const (
	MaxOrdersPerRequest     = 100
	MaxDeliveriesPerRequest = 100
	maxQuantity             = 1e9
)

// Ingest kinds (ingest_requests.kind and the dry run's kind).
const (
	KindOrder    = "order"
	KindDelivery = "delivery"
)

// OrderInput is one order as it arrives: from the order ingest body or mapped from a
// platform read. Strings are taken as sent; SaveOrders validates them.
type OrderInput struct {
	Channel       string
	ExternalID    string
	PaymentState  string
	Market        string
	Language      string
	PlacedAt      string
	CustomerEmail string
	CustomerKey   string
	CustomerPhone string // stored in E.164, completed from the channel's market; dropped when it cannot be
	Items         []LineInput
}

// LineInput is one order line as it arrives.
type LineInput struct {
	LineReference   string
	VariantKey      string
	GroupKey        string
	CatalogID       string
	Title           string
	Quantity        *float64 // nil: 1 for a new line, unchanged for a stored one
	FulfilmentState string   // empty: placed
	DeliveredAt     string
	// Incentive marks a line whose review the store rewards (a discount for any
	// review); nil keeps the stored mark (false for a new line).
	Incentive *bool
}

// OrderRequest is one order transfer: a single order, or a batch with an optional
// top-level channel.
type OrderRequest struct {
	Channel string
	Orders  []OrderInput
	// Batch is true for the {"orders": [...]} form; error paths then start with
	// orders[i].
	Batch bool
}

// SavedOrder is one entry of the answer: the order number as sent and our id.
type SavedOrder struct {
	ExternalID string `json:"external_id"`
	ID         string `json:"id"`
}

// OrderResult is the answer of an order transfer.
type OrderResult struct {
	Accepted int          `json:"accepted"`
	Orders   []SavedOrder `json:"orders"`

	channelID int64 // channel of the first order, for the transfer figures
}

// ChannelLabel is the channel code a request is filed under in the transfer figures:
// the top-level channel, else the first order's.
func (r OrderRequest) ChannelLabel() string {
	ch := strings.TrimSpace(r.Channel)
	if ch == "" && len(r.Orders) > 0 {
		ch = strings.TrimSpace(r.Orders[0].Channel)
	}
	return core.TruncateRunes(ch, core.MaxChannelLen)
}

// Errors of the order transfer that do not name a field.
var (
	errMarketRequired = core.Invalid("market_required")
	errChannelUnknown = core.Invalid("channel_unknown")
)

// channelCache resolves channels once per request.
type channelCache struct {
	q      *store.Q
	byCode map[string]*store.Channel
	byID   map[int64]*store.Channel
}

func newChannelCache(q *store.Q) *channelCache {
	return &channelCache{q: q, byCode: map[string]*store.Channel{}, byID: map[int64]*store.Channel{}}
}

// get returns an active channel by code or id, else channel_unknown.
func (cc *channelCache) get(ctx context.Context, code string, id int64) (store.Channel, error) {
	var ch *store.Channel
	if code != "" {
		ch = cc.byCode[code]
	} else {
		ch = cc.byID[id]
	}
	if ch == nil {
		var c store.Channel
		var err error
		if code != "" {
			c, err = cc.q.ChannelByCode(ctx, code)
		} else {
			c, err = cc.q.ChannelByID(ctx, id)
		}
		if errors.Is(err, store.ErrNotFound) {
			return store.Channel{}, errChannelUnknown
		} else if err != nil {
			return store.Channel{}, err
		}
		ch = &c
		cc.byCode[c.Code], cc.byID[c.ID] = ch, ch
	}
	if !ch.Active {
		return store.Channel{}, errChannelUnknown
	}
	return *ch, nil
}

// lineChange is one fulfilment move made by a transfer, for the effects that follow.
type lineChange struct {
	ext, ref string
	old, new string
}

// paymentChange is one payment_state move of a stored order.
type paymentChange struct {
	ext      string
	old, new string
}

type lineRef struct{ ext, ref string }

// orderBook is the working set of one transfer: the stored orders and lines it
// touches, what changes, and the writes to make at the end (one multi-row statement
// per table instead of one per record).
type orderBook struct {
	now       time.Time
	orders    map[string]store.Order
	lines     map[string]map[string]store.OrderLine
	dirtyO    []string // external ids to write, first-touched order
	dirtyOSet map[string]bool
	dirtyL    []lineRef
	dirtyLSet map[lineRef]bool
	newDel    []pendingDelivery
	payments  []paymentChange
	moves     []lineChange
}

type pendingDelivery struct {
	at   lineRef
	rec  store.Delivery
	done bool
}

func (b *orderBook) markOrder(ext string) {
	if !b.dirtyOSet[ext] {
		b.dirtyOSet[ext] = true
		b.dirtyO = append(b.dirtyO, ext)
	}
}

func (b *orderBook) markLine(k lineRef) {
	if !b.dirtyLSet[k] {
		b.dirtyLSet[k] = true
		b.dirtyL = append(b.dirtyL, k)
	}
}

// loadBook reads the stored orders with the given numbers and all their lines
// (two queries for the whole request).
func loadBook(ctx context.Context, q *store.Q, now time.Time, exts []string) (*orderBook, error) {
	b := &orderBook{now: now, orders: map[string]store.Order{}, lines: map[string]map[string]store.OrderLine{},
		dirtyOSet: map[string]bool{}, dirtyLSet: map[lineRef]bool{}}
	stored, err := q.OrdersByExternalIDs(ctx, exts)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return b, nil
	}
	ids := make([]int64, len(stored))
	extOf := make(map[int64]string, len(stored))
	for i, o := range stored {
		b.orders[o.ExternalID] = o
		ids[i] = o.ID
		extOf[o.ID] = o.ExternalID
	}
	lines, err := q.LinesOfOrders(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		ext := extOf[l.OrderID]
		if b.lines[ext] == nil {
			b.lines[ext] = map[string]store.OrderLine{}
		}
		b.lines[ext][l.LineReference] = l
	}
	return b, nil
}

// flush writes what changed: orders, then lines (which need the order ids), then
// new delivery records (which need the line ids). It returns the deliveries really
// inserted.
func (b *orderBook) flush(ctx context.Context, tx *store.Tx) ([]store.Delivery, error) {
	if len(b.dirtyO) > 0 {
		rows := make([]store.Order, len(b.dirtyO))
		for i, ext := range b.dirtyO {
			rows[i] = b.orders[ext]
		}
		saved, err := tx.UpsertOrders(ctx, rows)
		if err != nil {
			return nil, err
		}
		for _, o := range saved {
			b.orders[o.ExternalID] = o
		}
	}
	if len(b.dirtyL) > 0 {
		rows := make([]store.OrderLine, len(b.dirtyL))
		for i, k := range b.dirtyL {
			l := b.lines[k.ext][k.ref]
			l.OrderID = b.orders[k.ext].ID
			rows[i] = l
		}
		saved, err := tx.UpsertLines(ctx, rows)
		if err != nil {
			return nil, err
		}
		for i, l := range saved {
			k := b.dirtyL[i]
			b.lines[k.ext][k.ref] = l
		}
	}
	if len(b.newDel) == 0 {
		return nil, nil
	}
	recs := make([]store.Delivery, len(b.newDel))
	for i, d := range b.newDel {
		d.rec.LineID = b.lines[d.at.ext][d.at.ref].ID
		recs[i] = d.rec
	}
	return tx.AddDeliveries(ctx, recs)
}

// effects runs the state-change hooks once every row has its id.
func (c *Service) effects(ctx context.Context, tx *store.Tx, a *core.Actor, b *orderBook) error {
	for _, p := range b.payments {
		if err := c.afterPaymentChange(ctx, tx, a, b.orders[p.ext], p.old, p.new); err != nil {
			return err
		}
	}
	for _, m := range b.moves {
		if err := c.afterLineStateChange(ctx, tx, a, b.orders[m.ext], b.lines[m.ext][m.ref], m.old, m.new); err != nil {
			return err
		}
	}
	return nil
}

// SaveOrders validates and saves the orders of one transfer inside tx. It is the
// building block of the order ingest endpoint, its dry run and the platform
// connections ("orders read are stored exactly like ingested orders"). Any refused
// order refuses the whole request (the caller's transaction then rolls back); the
// error names the problem (spec 1, "Errors (transfer)").
//
// A re-sent order (same external_id) updates the same record: omitted or empty
// optional fields keep their stored values, lines missing from the send are kept,
// and the customer fields of an erased order are never written back. Lines that
// arrive delivered, returned or cancelled get a delivery record (source platform,
// confidence verified) unless the same record exists. Payment and line moves run
// the effects in order_effects.go.
func (c *Service) SaveOrders(ctx context.Context, tx *store.Tx, a *core.Actor, req OrderRequest) (OrderResult, error) {
	b, ins, err := c.planOrders(ctx, tx.Q, tx.Now, req)
	if err != nil {
		return OrderResult{}, err
	}
	if _, err := b.flush(ctx, tx); err != nil {
		return OrderResult{}, err
	}
	if err := c.effects(ctx, tx, a, b); err != nil {
		return OrderResult{}, err
	}
	res := OrderResult{Accepted: len(ins), Orders: make([]SavedOrder, len(ins))}
	for i, in := range ins {
		res.Orders[i] = SavedOrder{ExternalID: in.sentID, ID: core.OrderPublicID(b.orders[in.externalID].ID)}
	}
	res.channelID = b.orders[ins[0].externalID].ChannelID
	return res, nil
}

// placeOrder merges one validated order into the book.
func (c *Service) placeOrder(ctx context.Context, b *orderBook, channels *channelCache, top string, in orderIn) error {
	old, had := b.orders[in.externalID]
	code := in.channel
	if code == "" {
		code = top
	}
	var ch store.Channel
	var err error
	switch {
	case code != "":
		ch, err = channels.get(ctx, code, 0)
	case had:
		ch, err = channels.get(ctx, "", old.ChannelID)
	case in.market == "":
		err = errMarketRequired
	default:
		err = core.Invalidf("field_missing", "channel")
	}
	if err != nil {
		return err
	}
	if in.market != "" && in.market != ch.Market {
		return core.Invalidf("market_channel_mismatch", in.market)
	}
	if _, ok := brand.BuiltinRule(ch.Market); !ok {
		return core.Invalidf("market_without_policy", ch.Market)
	}
	o := store.Order{ChannelID: ch.ID, ExternalID: in.externalID, Market: ch.Market, Language: in.language,
		PaymentState: in.paymentState, PlacedAt: in.placedAt, CustomerEmail: in.email, CustomerKey: in.customerKey,
		CustomerPhone: core.PhoneE164(in.phone, ch.Market), PaymentChangedAt: b.now}
	if had {
		o.ID, o.CreatedAt, o.UpdatedAt, o.ErasedAt = old.ID, old.CreatedAt, old.UpdatedAt, old.ErasedAt
		if o.Language == "" && old.ChannelID == ch.ID {
			o.Language = old.Language
		}
		if old.Erased() || o.CustomerEmail == "" {
			o.CustomerEmail = old.CustomerEmail
		}
		if old.Erased() || o.CustomerKey == "" {
			o.CustomerKey = old.CustomerKey
		}
		if old.Erased() || o.CustomerPhone == "" {
			o.CustomerPhone = old.CustomerPhone
		}
		if old.PaymentState == o.PaymentState {
			o.PaymentChangedAt = old.PaymentChangedAt
		} else {
			b.payments = append(b.payments, paymentChange{ext: o.ExternalID, old: old.PaymentState, new: o.PaymentState})
		}
	}
	if o.Language == "" {
		o.Language = ch.Language
	}
	if !had || orderDiffers(old, o) {
		b.orders[o.ExternalID] = o
		b.markOrder(o.ExternalID)
	}
	stored := b.lines[o.ExternalID]
	if stored == nil {
		stored = map[string]store.OrderLine{}
		b.lines[o.ExternalID] = stored
	}
	for _, li := range in.lines {
		prev, hadLine := stored[li.ref]
		l, delivery := mergeLine(prev, hadLine, li, b.now)
		if hadLine && !lineDiffers(prev, l) {
			continue
		}
		k := lineRef{o.ExternalID, li.ref}
		stored[li.ref] = l
		b.markLine(k)
		if !hadLine || prev.FulfilmentState != l.FulfilmentState {
			old := ""
			if hadLine {
				old = prev.FulfilmentState
			}
			b.moves = append(b.moves, lineChange{ext: k.ext, ref: k.ref, old: old, new: l.FulfilmentState})
		}
		if delivery != nil {
			b.newDel = append(b.newDel, pendingDelivery{at: k, rec: *delivery})
		}
	}
	return nil
}

func orderDiffers(a, b store.Order) bool {
	return a.ChannelID != b.ChannelID || a.Market != b.Market || a.Language != b.Language ||
		a.PaymentState != b.PaymentState || !a.PlacedAt.Equal(b.PlacedAt) || a.CustomerEmail != b.CustomerEmail ||
		a.CustomerKey != b.CustomerKey || a.CustomerPhone != b.CustomerPhone
}

func lineDiffers(a, b store.OrderLine) bool {
	return a.VariantKey != b.VariantKey || a.GroupKey != b.GroupKey || a.CatalogID != b.CatalogID || a.Title != b.Title ||
		a.Quantity != b.Quantity || a.FulfilmentState != b.FulfilmentState || !a.DeliveredAt.Equal(b.DeliveredAt) ||
		!a.StateChangedAt.Equal(b.StateChangedAt) || a.Incentive != b.Incentive
}

// mergeLine applies order data to a line (stored or new) and returns the line and
// the delivery record the data implies, if any. Delivered lines take delivered_at
// (else the time of the transfer) as their delivery time; returned and cancelled
// records are observed at the time of the transfer.
func mergeLine(prev store.OrderLine, had bool, in lineIn, now time.Time) (store.OrderLine, *store.Delivery) {
	l := prev
	l.LineReference, l.VariantKey = in.ref, in.variantKey
	if in.groupKey != "" {
		l.GroupKey = in.groupKey
	}
	if in.catalogID != "" {
		l.CatalogID = in.catalogID
	}
	if in.title != "" {
		l.Title = in.title
	}
	if in.incentive != nil {
		l.Incentive = *in.incentive
	}
	switch {
	case in.hasQuantity:
		l.Quantity = in.quantity
	case !had:
		l.Quantity = 1
	}
	var rec *store.Delivery
	record := func(state string, at time.Time) {
		rec = &store.Delivery{State: state, ObservedAt: at, Source: core.SourcePlatform, Confidence: core.ConfidenceVerified}
	}
	if !had || core.LineMoves(prev.FulfilmentState, prev.StateChangedAt, in.state, in.deliveredAt) {
		l.FulfilmentState, l.StateChangedAt = in.state, now
		switch in.state {
		case core.LineDelivered:
			if !in.deliveredAt.IsZero() {
				l.StateChangedAt = in.deliveredAt
			}
			l.DeliveredAt = l.StateChangedAt
			record(core.LineDelivered, l.DeliveredAt)
		case core.LineReturned, core.LineCancelled:
			record(in.state, now)
		}
		if l.DeliveredAt.IsZero() && !in.deliveredAt.IsZero() {
			l.DeliveredAt = in.deliveredAt
		}
		return l, rec
	}
	// The store corrects the delivery time of a line it reports delivered again.
	if prev.FulfilmentState == core.LineDelivered && in.state == core.LineDelivered && !in.deliveredAt.IsZero() &&
		!in.deliveredAt.Equal(prev.DeliveredAt) {
		l.DeliveredAt, l.StateChangedAt = in.deliveredAt, in.deliveredAt
		record(core.LineDelivered, in.deliveredAt)
	}
	return l, rec
}

// IngestOrders serves one order transfer: SaveOrders in its own transaction, plus
// the activity entry and the transfer-figures row of the request.
func (c *Service) IngestOrders(ctx context.Context, a *core.Actor, req OrderRequest) (OrderResult, error) {
	var res OrderResult
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if res, err = c.SaveOrders(ctx, tx, a, req); err != nil {
			return err
		}
		ch, err := tx.ChannelByID(ctx, res.channelID)
		if err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "orders.received", "channel", ch.Code, map[string]any{"orders": res.Accepted}); err != nil {
			return err
		}
		return tx.AddIngestRequest(ctx, store.IngestRequest{Channel: ch.Code, Kind: KindOrder, Status: core.StatusOK,
			Records: res.Accepted, ActorID: core.ActorID(a)})
	})
	return res, err
}

// errDryRun rolls back a dry run's transaction.
var errDryRun = errors.New("core: dry run")

// dryRun runs fn in a write transaction that is always rolled back, so a check
// answers exactly what a real transfer would without keeping anything.
func (c *Service) dryRun(ctx context.Context, fn func(tx *store.Tx) error) error {
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

// CheckOrders is the dry run of an order transfer: the same validation and the
// same writes in a transaction that is rolled back.
func (c *Service) CheckOrders(ctx context.Context, a *core.Actor, req OrderRequest) (OrderResult, error) {
	var res OrderResult
	err := c.dryRun(ctx, func(tx *store.Tx) error {
		var err error
		res, err = c.SaveOrders(ctx, tx, a, req)
		return err
	})
	return res, err
}

// planOrders validates a transfer and merges it with the stored orders read
// through q, without writing: the shared first half of SaveOrders and of the
// read-only dry run.
func (c *Service) planOrders(ctx context.Context, q *store.Q, now time.Time, req OrderRequest) (*orderBook, []orderIn, error) {
	if len(req.Orders) == 0 {
		if req.Batch {
			return nil, nil, core.Invalidf("field_missing", "orders")
		}
		return nil, nil, core.Invalidf("field_missing", "external_id")
	}
	if len(req.Orders) > MaxOrdersPerRequest {
		return nil, nil, core.Invalidf("batch_too_large", MaxOrdersPerRequest)
	}
	top, err := core.Text("channel", req.Channel, core.MaxChannelLen, false)
	if err != nil {
		return nil, nil, err
	}
	ins := make([]orderIn, len(req.Orders))
	exts := make([]string, 0, len(req.Orders))
	for i, in := range req.Orders {
		path := ""
		if req.Batch {
			path = "orders[" + strconv.Itoa(i) + "]."
		}
		if ins[i], err = validateOrder(in, path); err != nil {
			return nil, nil, err
		}
		exts = append(exts, ins[i].externalID)
	}
	b, err := loadBook(ctx, q, now, exts)
	if err != nil {
		return nil, nil, err
	}
	channels := newChannelCache(q)
	for _, in := range ins {
		if err := c.placeOrder(ctx, b, channels, top, in); err != nil {
			return nil, nil, err
		}
	}
	return b, ins, nil
}
