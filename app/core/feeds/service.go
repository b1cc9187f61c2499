// Package feeds owns the product-review feeds: their definitions (a name, a channel
// or market scope, how names are shown) and the feed itself in Google's Product
// Review Feed schema, streamed from the own, published product reviews whose
// product has an address in the catalogue. It imports only the kernel.
package feeds

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Service is the review-feed domain service.
type Service struct {
	DB *store.DB
	// Keys derives the secret key of each feed's address (never stored).
	Keys *core.Keyring
	// PublicURL starts the feed addresses.
	PublicURL string
	// Log takes what cannot reach the caller: a feed cut short after it began.
	Log *slog.Logger
	// Recorder writes the activity history of feed definitions.
	Recorder *core.Recorder
}

// Names: how reviewer names appear in a feed.
const (
	NamesAsShown = "as_shown" // as on the site: hide_name reviews masked
	NamesMasked  = "masked"   // every name masked
)

// MaxFeeds is the most feed definitions a brand keeps.
const MaxFeeds = 20

// Errors of the feed definitions.
var (
	ErrFeedLimit = core.Conflict("feed_limit", strconv.Itoa(MaxFeeds))
)

// FeedID is the public id of a review feed.
func FeedID(id int64) string { return "rf_" + strconv.FormatInt(id, 10) }

// parseID reads rf_<n>.
func parseID(id string) (int64, bool) { return core.ParseID("rf_", id) }

// key is the secret part of a feed's address: a keyed hash of the feed's id and
// random salt (32 hex characters), so the database alone never reveals it.
func (s *Service) key(f store.ReviewFeed) string {
	return s.Keys.Pseudonym("review-feed", strconv.FormatInt(f.ID, 10)+":"+f.Salt)
}

// View is a feed definition as the API shows it; url carries the secret key.
type View struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Channel       string     `json:"channel"`
	Market        string     `json:"market"`
	Names         string     `json:"names"`
	PublisherName string     `json:"publisher_name"`
	URL           string     `json:"url"`
	CreatedAt     time.Time  `json:"created_at"`
	LastReadAt    *time.Time `json:"last_read_at"`
}

func (s *Service) view(f store.ReviewFeed) View {
	v := View{ID: FeedID(f.ID), Name: f.Name, Channel: f.ChannelCode, Market: f.Market, Names: f.Names,
		PublisherName: f.PublisherName, CreatedAt: f.CreatedAt, LastReadAt: core.OptTime(f.LastReadAt),
		URL: strings.TrimRight(s.PublicURL, "/") + "/admin/v1/shared-review-feeds/" + FeedID(f.ID) + "/" + s.key(f) + ".xml"}
	return v
}

// List is the answer of GET /admin/v1/review-feeds.
type List struct {
	Items []View `json:"items"`
}

// Feeds lists the feed definitions with their addresses.
func (s *Service) Feeds(ctx context.Context) (List, error) {
	fs, err := s.DB.Read().ReviewFeeds(ctx)
	if err != nil {
		return List{}, err
	}
	out := List{Items: make([]View, len(fs))}
	for i, f := range fs {
		out.Items[i] = s.view(f)
	}
	return out, nil
}

// Input is the body of POST /admin/v1/review-feeds.
type Input struct {
	Name          string `json:"name"`
	Channel       string `json:"channel"`
	Market        string `json:"market"`
	Names         string `json:"names"`
	PublisherName string `json:"publisher_name"`
}

// CreateFeed saves a feed definition (201 with its address). Errors: invalid /
// name_required, name_too_long (100) or publisher_name_too_long (120), channel
// (unknown code), market (not two capital letters), channel_market_mismatch, names
// (not as_shown or masked); 409 feed_limit: 20.
func (s *Service) CreateFeed(ctx context.Context, a *core.Actor, in Input) (View, error) {
	name, err := core.FieldText("name", core.SingleLine(in.Name), 100, true)
	if err != nil {
		return View{}, err
	}
	pub, err := core.FieldText("publisher_name", core.SingleLine(in.PublisherName), 120, false)
	if err != nil {
		return View{}, err
	}
	market := strings.TrimSpace(in.Market)
	if market != "" && !core.ReMarket.MatchString(market) {
		return View{}, core.Invalid("market")
	}
	names := in.Names
	switch names {
	case "":
		names = NamesAsShown
	case NamesAsShown, NamesMasked:
	default:
		return View{}, core.Invalid("names")
	}
	var out View
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := core.ChannelFilter(ctx, tx.Q, strings.TrimSpace(in.Channel), market)
		if err != nil {
			return err
		}
		fs, err := tx.ReviewFeeds(ctx)
		if err != nil {
			return err
		}
		if len(fs) >= MaxFeeds {
			return ErrFeedLimit
		}
		if ch.ID != 0 {
			market = ""
		}
		f, err := tx.CreateReviewFeed(ctx, store.ReviewFeed{Name: name, ChannelID: ch.ID, Market: market, Names: names,
			PublisherName: pub, Salt: core.RandomHex(16), CreatedBy: core.ActorID(a)})
		if err != nil {
			return err
		}
		out = s.view(f)
		return s.Recorder.Record(ctx, tx, a, "review_feed.created", "review_feed", out.ID,
			map[string]any{"channel": ch.Code, "market": market, "names": names})
	})
	return out, err
}

// DeleteFeed removes a feed definition; its address answers 404 from then on.
func (s *Service) DeleteFeed(ctx context.Context, a *core.Actor, id string) error {
	n, ok := parseID(id)
	if !ok {
		return core.ErrNotFound
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteReviewFeed(ctx, n); errors.Is(err, store.ErrNotFound) {
			return core.ErrNotFound
		} else if err != nil {
			return err
		}
		return s.Recorder.Record(ctx, tx, a, "review_feed.removed", "review_feed", id, nil)
	})
}

// Open finds the feed of a public address: id and key must match (the key compared
// in constant time); anything else is 404 not_found, the same for an unknown feed
// and a wrong key.
func (s *Service) Open(ctx context.Context, id, key string) (store.ReviewFeed, error) {
	n, ok := parseID(id)
	if !ok || len(key) > 64 {
		return store.ReviewFeed{}, core.ErrNotFound
	}
	f, err := s.DB.Read().ReviewFeedByID(ctx, n)
	if errors.Is(err, store.ErrNotFound) {
		return store.ReviewFeed{}, core.ErrNotFound
	}
	if err != nil {
		return store.ReviewFeed{}, err
	}
	if !core.Equal(s.key(f), key) {
		return store.ReviewFeed{}, core.ErrNotFound
	}
	return f, nil
}
