package sending

import (
	"context"
	"errors"
	"strings"

	"reviewd/app/core"
	"reviewd/app/mailevents"
	"reviewd/store"
)

// Mail event sources (mail_events.source): the generic endpoint and the providers.
const SourceGeneric = "generic"

// Outcomes of a mail event (mail_events.outcome).
const (
	EventMatched  = "matched"
	EventIgnored  = "ignored"
	EventOptedOut = "opted_out"
)

// MailEventCounts is the answer of the mail event endpoints. Every event lands in
// exactly one count besides accepted: duplicates (event id seen before, in this
// request or an earlier one), ignored (an event type the service does not use, or
// no earlier sending matches), opted_out (it matches a sending and its address is
// on the opt-out list, put there by this event or before), matched (the others).
type MailEventCounts struct {
	Accepted   int `json:"accepted"`
	Matched    int `json:"matched"`
	Duplicates int `json:"duplicates"`
	Ignored    int `json:"ignored"`
	OptedOut   int `json:"opted_out"`
}

// ProcessMailEvents applies the delivery events of one request from source, in one
// transaction. An event matches a sending by our send id (echoed by providers),
// else by its message_id (the Message-ID we set, or the provider's id); a generic
// event without message_id matches the latest sending to its address, and so does
// a provider event whose ids match nothing. Only a matching event may add to the
// opt-out list: unsubscribed and complained events do, and bounced events that are
// hard bounces. The same event id of a source is never processed twice.
func (c *Service) ProcessMailEvents(ctx context.Context, a *core.Actor, source string, events []mailevents.Event) (MailEventCounts, error) {
	res := MailEventCounts{Accepted: len(events)}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		seen := map[string]bool{}
		for _, ev := range events {
			outcome, err := c.mailEvent(ctx, tx, a, source, ev, seen)
			if err != nil {
				return err
			}
			switch outcome {
			case "duplicate":
				res.Duplicates++
			case EventIgnored:
				res.Ignored++
			case EventOptedOut:
				res.OptedOut++
			default:
				res.Matched++
			}
		}
		return nil
	})
	if err != nil {
		return MailEventCounts{}, err
	}
	return res, nil
}

func (c *Service) mailEvent(ctx context.Context, tx *store.Tx, a *core.Actor, source string, ev mailevents.Event, seen map[string]bool) (string, error) {
	if seen[ev.EventID] {
		return "duplicate", nil
	}
	seen[ev.EventID] = true
	if dup, err := tx.MailEventSeen(ctx, source, ev.EventID); err != nil || dup {
		return "duplicate", err
	}
	rec := store.MailEvent{Source: source, EventID: ev.EventID, Type: ev.Type, Outcome: EventIgnored,
		Detail: mailevents.RedactAddresses(ev.Detail), OccurredAt: ev.OccurredAt}
	if ev.Type != "" {
		s, ok, err := matchSending(ctx, tx, source, ev)
		if err != nil {
			return "", err
		}
		if ok {
			rec.SendLogID, rec.Outcome = s.ID, EventMatched
			address := s.Recipient
			if address == "" {
				address = ev.Address // the recipient was erased; the report still names it
			}
			if address != "" {
				if ev.Type == mailevents.Unsubscribed || ev.Type == mailevents.Complained || (ev.Type == mailevents.Bounced && ev.Hard) {
					if err := c.addOptOut(ctx, tx, a, store.OptOut{Address: address, ChannelKind: s.ChannelKind, Reason: ev.Type,
						Source: source}); err != nil {
						return "", err
					}
				}
				out, err := tx.OptedOut(ctx, address)
				if err != nil {
					return "", err
				}
				if out {
					rec.Outcome = EventOptedOut
				}
			}
		}
	}
	if _, err := tx.AddMailEvent(ctx, rec); err != nil {
		return "", err
	}
	return rec.Outcome, nil
}

// matchSending finds the sending an event reports on.
func matchSending(ctx context.Context, tx *store.Tx, source string, ev mailevents.Event) (store.SendLog, bool, error) {
	try := func(s store.SendLog, err error) (store.SendLog, bool, error) {
		if errors.Is(err, store.ErrNotFound) {
			return s, false, nil
		}
		return s, err == nil, err
	}
	if ev.SendID != "" {
		if s, ok, err := try(tx.SendLogByEventID(ctx, ev.SendID)); ok || err != nil {
			return s, ok, err
		}
	}
	ids := []string{ev.MessageID, ev.ProviderMessageID}
	hadID := false
	for _, id := range ids {
		id = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), "<"), ">")
		if id == "" {
			continue
		}
		hadID = true
		if s, ok, err := try(tx.SendLogByMessageID(ctx, id)); ok || err != nil {
			return s, ok, err
		}
	}
	if ev.Address == "" || (hadID && source == SourceGeneric) {
		return store.SendLog{}, false, nil
	}
	return try(tx.LatestSendLogTo(ctx, ev.Address))
}

// NoteSNSSubscription records an Amazon SNS subscription confirmation in the
// activity history so the operator can open its SubscribeURL once (reviewd never
// fetches it itself).
func (c *Service) NoteSNSSubscription(ctx context.Context, a *core.Actor, topicArn, subscribeURL string) error {
	c.Log.Info("mail events: SNS subscription waits for confirmation; open the subscribe URL once",
		"topic_arn", topicArn, "subscribe_url", subscribeURL)
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.Record(ctx, tx, a, "mail_events.subscription_pending", "mail_provider", "ses",
			map[string]any{"topic_arn": topicArn, "subscribe_url": subscribeURL})
	})
}
