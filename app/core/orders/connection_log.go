package orders

import (
	"context"
	"encoding/json"
	"reviewd/app/core"
	"reviewd/store"
)

// ConnectionLogRow is one read in the connection log (GET /admin/v1/diagnostics).
type ConnectionLogRow struct {
	Connection string          `json:"connection"`
	Platform   string          `json:"platform"`
	Channel    string          `json:"channel"`
	Trigger    string          `json:"trigger"`
	StartedAt  string          `json:"started_at"`
	FinishedAt string          `json:"finished_at"`
	Outcome    string          `json:"outcome"`
	Error      *string         `json:"error"`
	Orders     int             `json:"orders"`
	Report     json.RawMessage `json:"report"`
}

// ConnectionLogFilter selects connection-log rows.
type ConnectionLogFilter struct {
	core.ListQuery
	Channel    string
	Connection string
	Outcome    string
}

// ConnectionLog is the answer of GET /admin/v1/diagnostics: the shared list
// envelope over the connection log plus the state of every connection.
type ConnectionLog struct {
	Items       []ConnectionLogRow `json:"items"`
	Total       int                `json:"total"`
	Page        int                `json:"page"`
	Pages       int                `json:"pages"`
	PageSize    int                `json:"page_size"`
	Connections []ConnectionState  `json:"connections"`
}

// ConnectionState is one connection's health in the diagnostics answer.
type ConnectionState struct {
	ID            string  `json:"id"`
	Platform      string  `json:"platform"`
	Channel       string  `json:"channel"`
	Enabled       bool    `json:"enabled"`
	ChannelActive bool    `json:"channel_active"`
	LastRunAt     *string `json:"last_run_at"`
	LastError     *string `json:"last_error"`
	Failures      int     `json:"failures"`
	NextRunAt     *string `json:"next_run_at"`
}

// ListConnectionLog reads one page of the connection log, newest first unless
// sort is oldest.
func (c *Service) ListConnectionLog(ctx context.Context, f ConnectionLogFilter) (ConnectionLog, error) {
	q := c.DB.Read()
	sf := store.OrderSourceRunFilter{Channel: f.Channel, Outcome: f.Outcome, Oldest: f.Sort == "oldest",
		Limit: f.PageSize, Offset: f.Offset()}
	if f.Connection != "" {
		n, ok := ParseOrderSourceID(f.Connection)
		if !ok {
			return ConnectionLog{}, core.Invalid("connection")
		}
		sf.SourceID = n
	}
	switch f.Outcome {
	case "", "ok", "partial", "failed":
	default:
		return ConnectionLog{}, core.Invalid("outcome")
	}
	rows, total, err := q.ListOrderSourceRuns(ctx, sf)
	if err != nil {
		return ConnectionLog{}, err
	}
	out := ConnectionLog{Items: make([]ConnectionLogRow, 0, len(rows)), Total: total, Page: f.Page,
		Pages: core.PageCount(total, f.PageSize), PageSize: f.PageSize, Connections: []ConnectionState{}}
	for _, r := range rows {
		row := ConnectionLogRow{Connection: OrderSourcePublicID(r.SourceID), Platform: r.Platform, Channel: r.Channel,
			Trigger: r.Trigger, StartedAt: rfc3339(r.StartedAt), FinishedAt: rfc3339(r.FinishedAt), Outcome: r.Outcome,
			Orders: r.Orders, Report: json.RawMessage(r.Report)}
		if r.Error != "" {
			e := r.Error
			row.Error = &e
		}
		if r.Report == "" {
			row.Report = json.RawMessage("null")
		}
		out.Items = append(out.Items, row)
	}
	srcs, err := q.ListOrderSources(ctx)
	if err != nil {
		return ConnectionLog{}, err
	}
	for _, s := range srcs {
		v := viewOrderSource(s)
		out.Connections = append(out.Connections, ConnectionState{ID: v.ID, Platform: v.Platform, Channel: v.Channel,
			Enabled: v.Enabled, ChannelActive: v.ChannelActive, LastRunAt: v.LastRunAt, LastError: v.LastError,
			Failures: v.Failures, NextRunAt: v.NextRunAt})
	}
	return out, nil
}
