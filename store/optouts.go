package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// OptOut is an address that gets no more e-mails.
type OptOut struct {
	ID          int64
	Address     string // lower-cased
	ChannelKind string // email or webhook
	Reason      string
	Source      string
	CreatedAt   time.Time
}

const qOptOutCols = `id, address, channel_kind, reason, source, created_at`

func scanOptOut(sc scanner) (OptOut, error) {
	var o OptOut
	var created int64
	err := sc.Scan(&o.ID, &o.Address, &o.ChannelKind, &o.Reason, &o.Source, &created)
	o.CreatedAt = Time(created)
	return o, translate(err)
}

// AddOptOut puts an address on the opt-out list; it reports false when the address
// is there already (the first entry is kept).
func (q *Tx) AddOptOut(ctx context.Context, o OptOut) (bool, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO opt_outs (address, channel_kind, reason, source, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (address) DO NOTHING`, strings.ToLower(strings.TrimSpace(o.Address)), o.ChannelKind, o.Reason, o.Source, Ms(q.Now))
	if err != nil {
		return false, fmt.Errorf("store: add opt-out: %w", translate(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// OptedOut reports whether an address is on the opt-out list.
func (q *Q) OptedOut(ctx context.Context, address string) (bool, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM opt_outs WHERE address = ?`, strings.ToLower(strings.TrimSpace(address))).Scan(&n)
	return n > 0, translate(err)
}

// OptOutsByAddresses returns the entries of the given (lower-cased) addresses.
func (q *Q) OptOutsByAddresses(ctx context.Context, addresses []string) ([]OptOut, error) {
	if len(addresses) == 0 {
		return nil, nil
	}
	args := make([]any, len(addresses))
	for i, a := range addresses {
		args[i] = a
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOptOutCols+` FROM opt_outs WHERE address IN (`+placeholders(len(addresses))+`)`, args...)
	return collect(rows, err, scanOptOut)
}

// ListOptOuts lists the whole opt-out list, oldest first.
func (q *Q) ListOptOuts(ctx context.Context) ([]OptOut, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOptOutCols+` FROM opt_outs ORDER BY id`)
	return collect(rows, err, scanOptOut)
}
