// Package transparency owns the public transparency log (docs/transparency.md): an
// append-only Merkle log (RFC 6962 hashing through golang.org/x/mod/sumdb/tlog) of
// every decision that makes a review visible or not, its signed checkpoints
// (golang.org/x/mod/sumdb/note, an ed25519 key derived from the master key), the
// proofs, tiles, report and receipts served at /v1/transparency/, and the
// verification an auditor runs. An entry is appended in the transaction of its
// decision (Append, called by reviews for every review-history entry). It imports
// the kernel only.
package transparency

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"reviewd/app/core"
	"reviewd/store"
)

// Service is the transparency log over one database.
type Service struct {
	DB    *store.DB
	Keys  *core.Keyring
	Clock core.Clock
	// PublicURL names the log (its origin line) the first time one is needed.
	PublicURL string
	// reports are the reports last counted (Report).
	reports struct {
		sync.Mutex
		m map[string]Report
	}
}

// The events of the log: every decision that makes a review visible or not.
const (
	Published = "published"
	Rejected  = "rejected"
	Hidden    = "hidden"
	Restored  = "restored"
	Removed   = "removed"
	Erased    = "erased"
)

// Events lists the events in the order the report shows them.
var Events = []string{Published, Rejected, Hidden, Restored, Removed, Erased}

// The actor kinds of an entry.
const (
	ActorAutomatic = "automatic"
	ActorModerator = "moderator"
	ActorCustomer  = "customer"
	ActorErasure   = "erasure"
)

// Decision is one review-history entry as the log sees it: the review, its state
// before and after, the reason, who acted and whether it was an erasure.
type Decision struct {
	ReviewID int64
	From, To string
	Reason   string
	// Actor is who acted (nil: reviewd itself).
	Actor *core.Actor
	// Rule is true when a publishing rule decided (a written or corrected review
	// published by itself), whoever sent the text.
	Rule bool
	// Erasure marks a personal-data erasure of the review.
	Erasure bool
}

// EventOf is THE rule of what the log records: the event a decision is, or ""
// when it changes nothing a shopper sees (a review held for approval, a seller
// reply, a removed photo, the Returned mark).
func EventOf(d Decision) string {
	if d.Erasure {
		return Erased
	}
	if d.From == d.To {
		return ""
	}
	switch d.To {
	case core.ReviewPublished:
		if d.From == core.ReviewHidden || d.From == core.ReviewRemoved {
			return Restored
		}
		return Published
	case core.ReviewRejected:
		return Rejected
	case core.ReviewHidden:
		return Hidden
	case core.ReviewRemoved:
		return Removed
	}
	return ""
}

// actorOf is the actor kind of a decision.
func actorOf(d Decision) string {
	switch {
	case d.Erasure:
		return ActorErasure
	case d.Rule, d.Actor == nil, d.Actor.Via == core.ViaSystem:
		return ActorAutomatic
	case d.Actor.Via == core.ViaSiteKey, d.Actor.Via == core.ViaServerKey:
		return ActorCustomer
	}
	return ActorModerator
}

// reasonCode is a reason as logged: only the codes of the rejection and removal
// lists and the erasure's are kept; free text (a hide note) never is, as it may
// name a person.
var reasonCode = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

func reasonOf(event, reason string) string {
	if event != Rejected && event != Removed && event != Erased || reason == "" {
		return ""
	}
	if !reasonCode.MatchString(reason) {
		return "other"
	}
	return reason
}

// Entry is one entry of the log as served: one JSON line, the record hashed into
// the tree (with its newline).
type Entry struct {
	Index   int64  `json:"index"`
	Review  string `json:"review"`
	Product string `json:"product"`
	Rating  int    `json:"rating"`
	Event   string `json:"event"`
	Reason  string `json:"reason"`
	Actor   string `json:"actor"`
	At      string `json:"at"`
}

// Record is the entry's record: its JSON and a newline.
func (e Entry) Record() []byte {
	b, _ := json.Marshal(e) // strings and numbers only: never fails
	return append(b, '\n')
}

// ReviewHash is the salted hash that stands for a review in the log: hex
// HMAC-SHA-256 of its public id under the review's salt.
func ReviewHash(salt []byte, publicID string) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(publicID))
	return hex.EncodeToString(m.Sum(nil))
}

// ProductHash is the hash that stands for a product: hex SHA-256 of its variant
// key (anyone who knows the key can find its entries).
func ProductHash(variantKey string) string {
	s := sha256.Sum256([]byte(variantKey))
	return hex.EncodeToString(s[:])
}

// receiptToken is the receipt token of a review: derived from its salt, so it dies
// with an erasure.
func receiptToken(salt []byte) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte("reviewd receipt"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// Receipt gives, in tx, the receipt token of a review (POST /v1/reviews answers
// it), keeping a salt for the review when it has none yet; "" for an erased
// review.
func (s *Service) Receipt(ctx context.Context, tx *store.Tx, reviewID int64) (string, error) {
	salt, err := s.salt(ctx, tx, reviewID)
	if err != nil || salt == nil {
		return "", err
	}
	return receiptToken(salt), nil
}

// salt is the review's salt, made and kept on first use; nil once the review was
// erased.
func (s *Service) salt(ctx context.Context, tx *store.Tx, reviewID int64) ([]byte, error) {
	salt, err := tx.TransparencySalt(ctx, reviewID)
	if !errors.Is(err, store.ErrNotFound) {
		return salt, err
	}
	return tx.PutTransparencySalt(ctx, reviewID, newSalt())
}

func newSalt() []byte {
	salt := make([]byte, 32)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails (Go 1.24)
	return salt
}

// Append logs a decision in tx, the transaction that made it, so that a decision
// without its entry or an entry without its decision cannot exist. Decisions that
// change nothing a shopper sees are not logged. An erasure is logged under the
// review's salt and then deletes the salt: the entries stay, no longer tied to the
// review. The entry's Merkle hashes are derived from it when the next checkpoint
// is signed (hashEntries), off the decision's path: nothing reads the tree beyond
// the latest checkpoint.
func (s *Service) Append(ctx context.Context, tx *store.Tx, d Decision) error {
	event := EventOf(d)
	if event == "" {
		return nil
	}
	r, err := tx.TransparencySubjectOf(ctx, d.ReviewID)
	if err != nil {
		return err
	}
	salt := r.Salt
	if !r.Salted {
		if salt, err = tx.PutTransparencySalt(ctx, d.ReviewID, newSalt()); err != nil {
			return err
		}
	}
	if salt == nil {
		if d.Erasure {
			return nil // erased before: nothing new a shopper sees
		}
		// A decision about an erased review is logged under a salt nobody keeps,
		// so it cannot be tied to the review or its earlier entries.
		salt = newSalt()
	}
	n := r.Next
	at := tx.Now.UTC().Truncate(time.Second)
	e := Entry{Index: n, Review: ReviewHash(salt, r.PublicID), Product: ProductHash(r.VariantKey), Rating: r.Rating,
		Event: event, Reason: reasonOf(event, d.Reason), Actor: actorOf(d), At: at.Format(time.RFC3339)}
	if err := tx.AddTransparencyEntry(ctx, store.TransparencyEntry{Index: n, ReviewHash: e.Review, ProductHash: e.Product,
		Rating: e.Rating, Event: e.Event, Reason: e.Reason, Actor: e.Actor, At: at, Data: e.Record()}); err != nil {
		return err
	}
	if d.Erasure {
		return tx.EraseTransparencySalt(ctx, d.ReviewID)
	}
	return nil
}

// hashEntries stores, in tx, the Merkle hashes of the entries below n that have
// none yet, in order (each entry's hashes depend on those before it), and their
// lookup keys.
func hashEntries(ctx context.Context, tx *store.Tx, n int64) error {
	stored, err := tx.TransparencyHashCount(ctx)
	if err != nil {
		return err
	}
	if stored >= tlog.StoredHashCount(n) {
		return nil // every entry below n is hashed (a log cut back keeps its hashes)
	}
	// The entries hashed so far: the k whose tlog.StoredHashCount is stored.
	k := sort.Search(int(n)+1, func(k int) bool { return tlog.StoredHashCount(int64(k)) >= stored })
	if int64(k) > n || tlog.StoredHashCount(int64(k)) != stored {
		return fmt.Errorf("transparency: %d stored hashes fit no number of entries up to %d", stored, n)
	}
	read := hashReader(ctx, tx.Q)
	for start := int64(k); start < n; start += MaxEntries {
		es, err := tx.TransparencyEntries(ctx, start, min(start+MaxEntries, n))
		if err != nil {
			return err
		}
		if err := tx.AddTransparencyKeys(ctx, es); err != nil {
			return err
		}
		for i, e := range es {
			if e.Index != start+int64(i) {
				return fmt.Errorf("transparency: entry %d missing", start+int64(i))
			}
			hashes, err := tlog.StoredHashes(e.Index, e.Data, read)
			if err != nil {
				return err
			}
			raw := make([][]byte, len(hashes))
			for j := range hashes {
				raw[j] = hashes[j][:]
			}
			if err := tx.AddTransparencyHashes(ctx, tlog.StoredHashIndex(0, e.Index), raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// hashReader reads stored hashes through q (the read pool or a transaction).
func hashReader(ctx context.Context, q *store.Q) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		raw, err := q.TransparencyHashes(ctx, indexes)
		if err != nil {
			return nil, err
		}
		out := make([]tlog.Hash, len(raw))
		for i, b := range raw {
			if len(b) != tlog.HashSize {
				return nil, errors.New("transparency: stored hash of the wrong size")
			}
			copy(out[i][:], b)
		}
		return out, nil
	})
}
