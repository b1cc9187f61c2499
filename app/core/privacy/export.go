package privacy

import (
	"context"
	"crypto/subtle"
	"strconv"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/audit"
	"reviewd/store"
)

// Export is what reviewd holds about the person of an access request.
type Export struct {
	Orders    []ExportOrder    `json:"orders"`
	Reviews   []ExportReview   `json:"reviews"`
	Questions []ExportQuestion `json:"questions"`
	Answers   []ExportAnswer   `json:"answers"`
	OptOuts   []ExportOptOut   `json:"opt_outs"`
}

// ExportOrder is an order placed with the person's address.
type ExportOrder struct {
	OrderReference string    `json:"order_reference"`
	Market         string    `json:"market"`
	PaymentState   string    `json:"payment_state"`
	PlacedAt       time.Time `json:"placed_at"`
	CustomerEmail  string    `json:"customer_email"`
	// CustomerPhone is the order's phone (E.164), when it came with one.
	CustomerPhone string       `json:"customer_phone,omitempty"`
	Lines         []ExportLine `json:"lines"`
}

// ExportLine is one line of an exported order.
type ExportLine struct {
	Title           string `json:"title"`
	FulfilmentState string `json:"fulfilment_state"`
}

// ExportReview is one of the person's reviews.
type ExportReview struct {
	ID          string    `json:"id"`
	ProductName string    `json:"product_name"`
	Rating      int       `json:"rating"`
	Title       string    `json:"title"`
	Body        string    `json:"body"`
	AuthorName  string    `json:"author_name"`
	State       string    `json:"state"`
	SubmittedAt time.Time `json:"submitted_at"`
}

// ExportQuestion is one of the person's questions.
type ExportQuestion struct {
	ID        string    `json:"id"`
	Body      string    `json:"body"`
	AskerName string    `json:"asker_name"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"created_at"`
}

// ExportAnswer is one of the person's answers.
type ExportAnswer struct {
	ID         string    `json:"id"`
	Body       string    `json:"body"`
	AuthorName string    `json:"author_name"`
	State      string    `json:"state"`
	CreatedAt  time.Time `json:"created_at"`
}

// ExportOptOut is the person's address on the opt-out list.
type ExportOptOut struct {
	Address     string    `json:"address"`
	ChannelKind string    `json:"channel_kind"`
	Reason      string    `json:"reason"`
	CreatedAt   time.Time `json:"created_at"`
}

// ExportDetails describes an export: how the person was found, when the copy was
// made and how many records of each kind it holds.
type ExportDetails struct {
	IdentifierKind string         `json:"identifier_kind"`
	GeneratedAt    time.Time      `json:"generated_at"`
	Counts         map[string]int `json:"counts"`
}

// Copy is the answer of POST .../<id>/copy: the row without note and handler, the
// export and its details.
type Copy struct {
	ID              string        `json:"id"`
	Kind            string        `json:"kind"`
	State           string        `json:"state"`
	ReceivedAt      time.Time     `json:"received_at"`
	CompletedAt     *time.Time    `json:"completed_at"`
	AffectedReviews int           `json:"affected_reviews"`
	PurgedMedia     int           `json:"purged_media"`
	Export          Export        `json:"export"`
	ExportDetails   ExportDetails `json:"export_details"`
}

// CopyInput is the body of POST .../<id>/copy.
type CopyInput struct {
	Identifier string `json:"identifier"`
	Format     string `json:"format"`
}

// CopyRequest makes the copy of a completed access request (POST .../<id>/copy):
// identifier must be the one the request was opened with; with format csv, xlsx or
// json the copy is a file (without format, a JSON answer). Each success is recorded
// as subject_request.copied. Errors: 404 not_found; invalid / identifier_required,
// format; 409 not_copyable (not a completed access request); 400
// identifier_mismatch.
func (s *Service) CopyRequest(ctx context.Context, a *core.Actor, publicID string, in CopyInput) (Copy, *audit.File, error) {
	q := s.DB.Read()
	r, err := s.byID(ctx, q, publicID)
	if err != nil {
		return Copy{}, nil, err
	}
	if in.Identifier == "" {
		return Copy{}, nil, core.Invalid("identifier_required")
	}
	if in.Format != "" && !audit.ValidFormat(in.Format) {
		return Copy{}, nil, core.Invalid("format")
	}
	if r.Kind != KindAccess || r.State != StateCompleted {
		return Copy{}, nil, core.Conflict("not_copyable", "")
	}
	id, err := parseIdentifier(in.Identifier)
	if err != nil || id.kind != r.IdentifierKind || subtle.ConstantTimeCompare([]byte(s.hash(id)), []byte(r.IdentifierHash)) != 1 {
		return Copy{}, nil, core.E(400, "identifier_mismatch", "")
	}
	data, err := gather(ctx, q, id)
	if err != nil {
		return Copy{}, nil, err
	}
	c, err := s.exportOf(ctx, q, r, data)
	if err != nil {
		return c, nil, err
	}
	var file *audit.File
	if in.Format != "" {
		f, err := audit.Build(in.Format, "personal-data-"+RequestPublicID(r.ID), c, exportTable(c))
		if err != nil {
			return c, nil, err
		}
		file = &f
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return s.record(ctx, tx, a, "subject_request.copied", RequestPublicID(r.ID),
			map[string]any{"format": formatOr(in.Format), "records": total(c.ExportDetails.Counts)})
	})
	return c, file, err
}

func formatOr(f string) string {
	if f == "" {
		return "body"
	}
	return f
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func (s *Service) exportOf(ctx context.Context, q *store.Q, r store.SubjectRequest, d subjectData) (Copy, error) {
	row := s.row(r)
	c := Copy{ID: row.ID, Kind: row.Kind, State: row.State, ReceivedAt: row.ReceivedAt, CompletedAt: row.CompletedAt,
		AffectedReviews: row.AffectedReviews, PurgedMedia: row.PurgedMedia,
		Export: Export{Orders: []ExportOrder{}, Reviews: []ExportReview{}, Questions: []ExportQuestion{}, Answers: []ExportAnswer{},
			OptOuts: []ExportOptOut{}},
		ExportDetails: ExportDetails{IdentifierKind: r.IdentifierKind, GeneratedAt: s.now().UTC().Truncate(time.Second)}}
	for _, o := range d.orders {
		lines, err := q.LinesOfOrder(ctx, o.ID)
		if err != nil {
			return c, err
		}
		eo := ExportOrder{OrderReference: o.ExternalID, Market: o.Market, PaymentState: o.PaymentState, PlacedAt: o.PlacedAt.UTC(),
			CustomerEmail: o.CustomerEmail, CustomerPhone: o.CustomerPhone, Lines: []ExportLine{}}
		for _, l := range lines {
			eo.Lines = append(eo.Lines, ExportLine{Title: l.Title, FulfilmentState: l.FulfilmentState})
		}
		c.Export.Orders = append(c.Export.Orders, eo)
	}
	for _, rv := range d.reviews {
		c.Export.Reviews = append(c.Export.Reviews, ExportReview{ID: rv.PublicID, ProductName: rv.ProductName, Rating: rv.Rating,
			Title: rv.Title, Body: rv.Body, AuthorName: rv.AuthorName, State: rv.State, SubmittedAt: rv.SubmittedAt.UTC()})
	}
	for _, x := range d.questions {
		c.Export.Questions = append(c.Export.Questions, ExportQuestion{ID: x.PublicID, Body: x.Body, AskerName: x.AskerName,
			State: x.State, CreatedAt: x.CreatedAt.UTC()})
	}
	for _, x := range d.answers {
		c.Export.Answers = append(c.Export.Answers, ExportAnswer{ID: x.PublicID, Body: x.Body, AuthorName: x.AuthorName,
			State: x.State, CreatedAt: x.CreatedAt.UTC()})
	}
	for _, o := range d.optOuts {
		c.Export.OptOuts = append(c.Export.OptOuts, ExportOptOut{Address: o.Address, ChannelKind: o.ChannelKind, Reason: o.Reason,
			CreatedAt: o.CreatedAt.UTC()})
	}
	c.ExportDetails.Counts = map[string]int{"orders": len(c.Export.Orders), "reviews": len(c.Export.Reviews),
		"questions": len(c.Export.Questions), "answers": len(c.Export.Answers), "opt_outs": len(c.Export.OptOuts)}
	return c, nil
}

// exportTable lays a copy out as one table of (record, id, field, value) rows.
func exportTable(c Copy) audit.Table {
	t := audit.Table{Sheet: "personal-data", Header: []string{"record", "id", "field", "value"}, Rows: [][]string{}}
	add := func(rec, id string, kv ...string) {
		for i := 0; i+1 < len(kv); i += 2 {
			t.Rows = append(t.Rows, []string{rec, id, kv[i], kv[i+1]})
		}
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	add("request", c.ID, "kind", c.Kind, "state", c.State, "received_at", ts(c.ReceivedAt),
		"generated_at", ts(c.ExportDetails.GeneratedAt))
	for _, o := range c.Export.Orders {
		add("order", o.OrderReference, "market", o.Market, "payment_state", o.PaymentState, "placed_at", ts(o.PlacedAt),
			"customer_email", o.CustomerEmail)
		if o.CustomerPhone != "" {
			add("order", o.OrderReference, "customer_phone", o.CustomerPhone)
		}
		for i, l := range o.Lines {
			add("order_line", o.OrderReference+"/"+strconv.Itoa(i+1), "title", l.Title, "fulfilment_state", l.FulfilmentState)
		}
	}
	for _, r := range c.Export.Reviews {
		add("review", r.ID, "product_name", r.ProductName, "rating", strconv.Itoa(r.Rating), "title", r.Title, "body", r.Body,
			"author_name", r.AuthorName, "state", r.State, "submitted_at", ts(r.SubmittedAt))
	}
	for _, x := range c.Export.Questions {
		add("question", x.ID, "body", x.Body, "asker_name", x.AskerName, "state", x.State, "created_at", ts(x.CreatedAt))
	}
	for _, x := range c.Export.Answers {
		add("answer", x.ID, "body", x.Body, "author_name", x.AuthorName, "state", x.State, "created_at", ts(x.CreatedAt))
	}
	for _, o := range c.Export.OptOuts {
		add("opt_out", o.Address, "channel_kind", o.ChannelKind, "reason", o.Reason, "created_at", ts(o.CreatedAt))
	}
	return t
}

// Download is the record of one request as a file (GET .../<id>?format=csv|xlsx|
// json), recorded as subject_request.downloaded and logged as
// subject_request.viewed. Errors: invalid / format; 404 not_found.
func (s *Service) Download(ctx context.Context, a *core.Actor, publicID, format string) (audit.File, error) {
	if !audit.ValidFormat(format) {
		return audit.File{}, core.Invalid("format")
	}
	r, err := s.byID(ctx, s.DB.Read(), publicID)
	if err != nil {
		return audit.File{}, err
	}
	d := s.detail(r)
	completed := ""
	if d.CompletedAt != nil {
		completed = d.CompletedAt.Format(time.RFC3339)
	}
	t := audit.Table{Sheet: "request", Header: []string{"id", "kind", "state", "identifier_kind", "identifier", "received_at",
		"completed_at", "affected_reviews", "purged_media", "can_copy", "note", "handler", "reason"},
		Rows: [][]string{{d.ID, d.Kind, d.State, d.IdentifierKind, d.Identifier, d.ReceivedAt.Format(time.RFC3339), completed,
			strconv.Itoa(d.AffectedReviews), strconv.Itoa(d.PurgedMedia), strconv.FormatBool(d.CanCopy), d.Note, d.Handler, d.Reason}}}
	f, err := audit.Build(format, "subject-request-"+d.ID, d, t)
	if err != nil {
		return f, err
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := s.record(ctx, tx, a, "subject_request.downloaded", d.ID, map[string]any{"format": format}); err != nil {
			return err
		}
		return core.WriteAccess(ctx, tx, s.Keys, a, "subject_request.viewed", "subject_request", d.ID, 1)
	})
	return f, err
}
