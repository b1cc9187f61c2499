package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Order is one order, from the ingest endpoints or a platform connection.
type Order struct {
	ID           int64
	ChannelID    int64
	ExternalID   string
	Market       string
	Language     string
	PaymentState string
	PlacedAt     time.Time
	// CustomerEmail, CustomerKey and CustomerPhone hold pseudonyms once ErasedAt is
	// set. CustomerPhone is E.164 (or empty).
	CustomerEmail    string
	CustomerKey      string
	CustomerPhone    string
	ErasedAt         time.Time
	PaymentChangedAt time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Erased reports whether the order's customer data has been pseudonymised.
func (o Order) Erased() bool { return !o.ErasedAt.IsZero() }

// OrderLine is one line of an order.
type OrderLine struct {
	ID              int64
	OrderID         int64
	LineReference   string
	VariantKey      string
	GroupKey        string
	CatalogID       string
	Title           string
	Quantity        float64
	FulfilmentState string
	// DeliveredAt is the time of the verified delivery (zero when never delivered).
	DeliveredAt time.Time
	// StateChangedAt is when FulfilmentState took effect.
	StateChangedAt time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// Incentive: the store marked the line as carrying an incentive for a review.
	Incentive bool
}

// Delivery is one delivery record of a line.
type Delivery struct {
	ID         int64
	LineID     int64
	State      string
	ObservedAt time.Time
	Source     string
	Confidence string
	CreatedAt  time.Time
}

const (
	qOrderCols = `id, channel_id, external_id, market, language, payment_state, placed_at, customer_email, customer_key,
		erased_at, payment_changed_at, created_at, updated_at, customer_phone`
	qLineCols = `id, order_id, line_reference, variant_key, group_key, catalog_id, title, quantity, fulfilment_state,
		delivered_at, state_changed_at, created_at, updated_at, incentive`
	qDeliveryCols = `id, line_id, state, observed_at, source, confidence, created_at`

	// The customer fields of an erased order are never overwritten, whatever the
	// caller passes; erased_at itself belongs to the erasure, not to a re-send.
	qOrderUpsertHead = `INSERT INTO orders (channel_id, external_id, market, language, payment_state, placed_at,
		customer_email, customer_key, payment_changed_at, created_at, updated_at, customer_phone) VALUES `
	qOrderUpsertTail = ` ON CONFLICT (external_id) DO UPDATE SET
		channel_id = excluded.channel_id, market = excluded.market, language = excluded.language,
		payment_state = excluded.payment_state, placed_at = excluded.placed_at,
		customer_email = CASE WHEN orders.erased_at IS NULL THEN excluded.customer_email ELSE orders.customer_email END,
		customer_key = CASE WHEN orders.erased_at IS NULL THEN excluded.customer_key ELSE orders.customer_key END,
		customer_phone = CASE WHEN orders.erased_at IS NULL THEN excluded.customer_phone ELSE orders.customer_phone END,
		payment_changed_at = excluded.payment_changed_at, updated_at = excluded.updated_at
		RETURNING id, external_id, created_at`
	qLineUpsertHead = `INSERT INTO order_lines (order_id, line_reference, variant_key, group_key, catalog_id, title, quantity,
		fulfilment_state, delivered_at, state_changed_at, created_at, updated_at, incentive) VALUES `
	qLineUpsertTail = ` ON CONFLICT (order_id, line_reference) DO UPDATE SET
		variant_key = excluded.variant_key, group_key = excluded.group_key, catalog_id = excluded.catalog_id,
		title = excluded.title, quantity = excluded.quantity, fulfilment_state = excluded.fulfilment_state,
		delivered_at = excluded.delivered_at, state_changed_at = excluded.state_changed_at, updated_at = excluded.updated_at,
		incentive = excluded.incentive
		RETURNING id, order_id, line_reference, created_at`
	// Only rows really inserted come back, so duplicates are told apart from new records.
	qDeliveryInsertHead = `INSERT INTO deliveries (line_id, state, observed_at, source, confidence, created_at) VALUES `
	qDeliveryInsertTail = ` ON CONFLICT (line_id, state, source, observed_at) DO NOTHING
		RETURNING id, line_id, state, observed_at, source`
)

// maxParams keeps multi-row statements well under SQLite's limit of bound variables.
const maxParams = 30000

type scanner = interface{ Scan(...any) error }

func scanOrder(sc scanner) (Order, error) {
	var o Order
	var placed, payChanged, created, updated int64
	var erased sql.NullInt64
	err := sc.Scan(&o.ID, &o.ChannelID, &o.ExternalID, &o.Market, &o.Language, &o.PaymentState, &placed,
		&o.CustomerEmail, &o.CustomerKey, &erased, &payChanged, &created, &updated, &o.CustomerPhone)
	o.PlacedAt, o.PaymentChangedAt, o.CreatedAt, o.UpdatedAt = Time(placed), Time(payChanged), Time(created), Time(updated)
	o.ErasedAt = NullTime(erased)
	return o, translate(err)
}

func scanLine(sc scanner) (OrderLine, error) {
	var l OrderLine
	var delivered sql.NullInt64
	var changed, created, updated int64
	var incentive int
	err := sc.Scan(&l.ID, &l.OrderID, &l.LineReference, &l.VariantKey, &l.GroupKey, &l.CatalogID, &l.Title, &l.Quantity,
		&l.FulfilmentState, &delivered, &changed, &created, &updated, &incentive)
	l.Incentive = incentive == 1
	l.DeliveredAt = NullTime(delivered)
	l.StateChangedAt, l.CreatedAt, l.UpdatedAt = Time(changed), Time(created), Time(updated)
	return l, translate(err)
}

func scanDelivery(sc scanner) (Delivery, error) {
	var d Delivery
	var observed, created int64
	err := sc.Scan(&d.ID, &d.LineID, &d.State, &observed, &d.Source, &d.Confidence, &created)
	d.ObservedAt, d.CreatedAt = Time(observed), Time(created)
	return d, translate(err)
}

// placeholders returns "?, ?, ?" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// valuesList returns rows of "(?, ..., ?)" groups of cols marks each.
func valuesList(rows, cols int) string {
	one := "(" + placeholders(cols) + ")"
	var b strings.Builder
	b.Grow(rows * (len(one) + 2))
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	return b.String()
}

func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, translate(rows.Err())
}

// OrderByID finds an order by id.
func (q *Q) OrderByID(ctx context.Context, id int64) (Order, error) {
	return scanOrder(q.c.QueryRowContext(ctx, `SELECT `+qOrderCols+` FROM orders WHERE id = ?`, id))
}

// OrderByExternalID finds an order by its order number (case-sensitive).
func (q *Q) OrderByExternalID(ctx context.Context, externalID string) (Order, error) {
	return scanOrder(q.c.QueryRowContext(ctx, `SELECT `+qOrderCols+` FROM orders WHERE external_id = ?`, externalID))
}

// OrdersByExternalIDs finds the orders with any of the given numbers, in no order;
// numbers without an order are simply missing from the answer.
func (q *Q) OrdersByExternalIDs(ctx context.Context, ids []string) ([]Order, error) {
	out, err := collectIn(ctx, q, `SELECT `+qOrderCols+` FROM orders WHERE external_id IN `, ids, ``, scanOrder)
	if err != nil {
		return nil, fmt.Errorf("store: orders by number: %w", err)
	}
	return out, nil
}

// OrdersByCustomer lists the orders of a customer by email address (ASCII case
// ignored) within a channel (0 = any), newest first. Erased orders never match:
// their address is a pseudonym.
func (q *Q) OrdersByCustomer(ctx context.Context, email string, channelID int64, limit int) ([]Order, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOrderCols+` FROM orders
		WHERE customer_email = ? COLLATE NOCASE AND erased_at IS NULL AND (? = 0 OR channel_id = ?)
		ORDER BY placed_at DESC, id DESC LIMIT ?`, email, channelID, channelID, limit)
	return collect(rows, err, scanOrder)
}

// CountOrders counts the orders of a channel (0 = every channel).
func (q *Q) CountOrders(ctx context.Context, channelID int64) (int, error) {
	var n int
	var err error
	if channelID == 0 {
		err = q.c.QueryRowContext(ctx, `SELECT count(*) FROM orders`).Scan(&n)
	} else {
		err = q.c.QueryRowContext(ctx, `SELECT count(*) FROM orders WHERE channel_id = ?`, channelID).Scan(&n)
	}
	return n, translate(err)
}

// LinesOfOrder lists the lines of one order in the order they were first received.
func (q *Q) LinesOfOrder(ctx context.Context, orderID int64) ([]OrderLine, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qLineCols+` FROM order_lines WHERE order_id = ? ORDER BY id`, orderID)
	return collect(rows, err, scanLine)
}

// LinesOfOrders lists the lines of several orders, by order and then first receipt.
func (q *Q) LinesOfOrders(ctx context.Context, orderIDs []int64) ([]OrderLine, error) {
	out, err := collectIn(ctx, q, `SELECT `+qLineCols+` FROM order_lines WHERE order_id IN `, orderIDs, ` ORDER BY order_id, id`, scanLine)
	if err != nil {
		return nil, fmt.Errorf("store: lines of orders: %w", err)
	}
	return out, nil
}

// LineByID finds an order line by id.
func (q *Q) LineByID(ctx context.Context, id int64) (OrderLine, error) {
	return scanLine(q.c.QueryRowContext(ctx, `SELECT `+qLineCols+` FROM order_lines WHERE id = ?`, id))
}

// LineByReference finds a line by its order and line reference.
func (q *Q) LineByReference(ctx context.Context, orderID int64, lineReference string) (OrderLine, error) {
	return scanLine(q.c.QueryRowContext(ctx, `SELECT `+qLineCols+` FROM order_lines WHERE order_id = ? AND line_reference = ?`,
		orderID, lineReference))
}

// DeliveriesOfLine lists the delivery records of a line, oldest observation first.
func (q *Q) DeliveriesOfLine(ctx context.Context, lineID int64) ([]Delivery, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qDeliveryCols+` FROM deliveries WHERE line_id = ? ORDER BY observed_at, id`, lineID)
	return collect(rows, err, scanDelivery)
}

// UpsertOrders inserts new orders and overwrites existing ones (matched by
// ExternalID) with the given values, in as few statements as the variable limit
// allows. It returns the orders with ID and CreatedAt set; UpdatedAt is q.Now.
// Customer fields of erased orders are kept whatever is passed. Callers pass each
// ExternalID once.
func (q *Tx) UpsertOrders(ctx context.Context, orders []Order) ([]Order, error) {
	const cols = 12
	out := append([]Order(nil), orders...)
	pos := make(map[string]int, len(out))
	for i, o := range out {
		pos[o.ExternalID] = i
	}
	now := Ms(q.Now)
	per := maxParams / cols
	for start := 0; start < len(out); start += per {
		part := out[start:min(start+per, len(out))]
		args := make([]any, 0, len(part)*cols)
		for _, o := range part {
			args = append(args, o.ChannelID, o.ExternalID, o.Market, o.Language, o.PaymentState, Ms(o.PlacedAt),
				o.CustomerEmail, o.CustomerKey, Ms(o.PaymentChangedAt), now, now, o.CustomerPhone)
		}
		rows, err := q.c.QueryContext(ctx, qOrderUpsertHead+valuesList(len(part), cols)+qOrderUpsertTail, args...)
		if err != nil {
			return nil, fmt.Errorf("store: upsert orders: %w", translate(err))
		}
		for rows.Next() {
			var id, created int64
			var ext string
			if err := rows.Scan(&id, &ext, &created); err != nil {
				rows.Close()
				return nil, err
			}
			i := pos[ext]
			out[i].ID, out[i].CreatedAt, out[i].UpdatedAt = id, Time(created), q.Now
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: upsert orders: %w", translate(err))
		}
	}
	return out, nil
}

type lineKey struct {
	order int64
	ref   string
}

// UpsertLines inserts new lines and overwrites existing ones (matched by OrderID and
// LineReference) with the given values. It returns the lines with ID and CreatedAt
// set. Callers pass each (OrderID, LineReference) once.
func (q *Tx) UpsertLines(ctx context.Context, lines []OrderLine) ([]OrderLine, error) {
	const cols = 13
	out := append([]OrderLine(nil), lines...)
	pos := make(map[lineKey]int, len(out))
	for i, l := range out {
		pos[lineKey{l.OrderID, l.LineReference}] = i
	}
	now := Ms(q.Now)
	per := maxParams / cols
	for start := 0; start < len(out); start += per {
		part := out[start:min(start+per, len(out))]
		args := make([]any, 0, len(part)*cols)
		for _, l := range part {
			args = append(args, l.OrderID, l.LineReference, l.VariantKey, l.GroupKey, l.CatalogID, l.Title, l.Quantity,
				l.FulfilmentState, nullMs(l.DeliveredAt), Ms(l.StateChangedAt), now, now, boolInt(l.Incentive))
		}
		rows, err := q.c.QueryContext(ctx, qLineUpsertHead+valuesList(len(part), cols)+qLineUpsertTail, args...)
		if err != nil {
			return nil, fmt.Errorf("store: upsert lines: %w", translate(err))
		}
		for rows.Next() {
			var id, orderID, created int64
			var ref string
			if err := rows.Scan(&id, &orderID, &ref, &created); err != nil {
				rows.Close()
				return nil, err
			}
			i := pos[lineKey{orderID, ref}]
			out[i].ID, out[i].CreatedAt, out[i].UpdatedAt = id, Time(created), q.Now
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: upsert lines: %w", translate(err))
		}
	}
	return out, nil
}

// AddDeliveries stores delivery records, skipping any whose line, state, source and
// observed time are stored already. It returns the records really inserted (with
// ID and CreatedAt set), in no particular order.
func (q *Tx) AddDeliveries(ctx context.Context, ds []Delivery) ([]Delivery, error) {
	const cols = 6
	type dkey struct {
		line          int64
		state, source string
		at            int64
	}
	byKey := make(map[dkey]Delivery, len(ds))
	for _, d := range ds {
		byKey[dkey{d.LineID, d.State, d.Source, Ms(d.ObservedAt)}] = d
	}
	now := Ms(q.Now)
	per := maxParams / cols
	var out []Delivery
	for start := 0; start < len(ds); start += per {
		part := ds[start:min(start+per, len(ds))]
		args := make([]any, 0, len(part)*cols)
		for _, d := range part {
			args = append(args, d.LineID, d.State, Ms(d.ObservedAt), d.Source, d.Confidence, now)
		}
		rows, err := q.c.QueryContext(ctx, qDeliveryInsertHead+valuesList(len(part), cols)+qDeliveryInsertTail, args...)
		if err != nil {
			return nil, fmt.Errorf("store: add deliveries: %w", translate(err))
		}
		for rows.Next() {
			var k dkey
			var id int64
			if err := rows.Scan(&id, &k.line, &k.state, &k.at, &k.source); err != nil {
				rows.Close()
				return nil, err
			}
			d := byKey[k]
			d.ID, d.CreatedAt = id, q.Now
			out = append(out, d)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: add deliveries: %w", translate(err))
		}
	}
	return out, nil
}
