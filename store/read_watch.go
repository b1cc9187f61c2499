package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// The read watch keeps in memory what the storefront's conditional answers are
// keyed on, so an unchanged answer is recognised without a query: the read
// generation (read_generation, moved by triggers), the revisions of each product's
// figures (product_stats.revision) and the question-and-answer revision of each
// market (qa_revisions, moved by triggers).
//
// It stays coherent with the file this way:
//   - every write transaction of this process reads, just before it commits, the
//     read generation and the sum of the Q&A revisions; the product rows it wrote
//     (SaveProductStats, BumpProductRevision, ResetReadModel) are noted on the Tx.
//     Right after the commit, and before WithTx returns to the writer, the watch
//     takes the new values and forgets the products written, so a read that starts
//     after a write's answer sees the write.
//   - a read that misses takes the state from the file and keeps it only when no
//     change was published meanwhile (the invalidation count is unchanged).
//   - writes by another process (a command run next to `serve`) are seen through
//     PRAGMA data_version, checked at most every watchPoll on a read; when it moved,
//     everything kept is forgotten.

// watchPoll is how often a read checks for writes by another process.
const watchPoll = 250 * time.Millisecond

// maxWatchProducts bounds the products kept (the map is emptied when full).
const maxWatchProducts = 100000

// ReadStamp is what a product's storefront answers depend on besides the channel's
// configuration: the read generation and the revisions of the product's figures
// in every market.
type ReadStamp struct {
	Gen       int64
	Revisions []ProductRevision
}

type readWatch struct {
	mu       sync.Mutex
	loaded   bool
	gen      int64
	qaSum    float64
	qa       map[string]int64 // market -> revision; nil: not read yet
	products map[string][]ProductRevision
	inval    uint64 // moves on with every forgetting, under mu

	lastPoll    atomic.Int64 // unix nanoseconds of the last data_version check
	polling     atomic.Bool
	dataVersion int64 // under polling
	pollConn    *sql.Conn
}

// txWatch is what a write transaction changed of the read state.
type txWatch struct {
	products map[string]bool // scope\x00key
	all      bool
}

func watchKey(scope, key string) string { return scope + "\x00" + key }

// touchProduct notes that q (a transaction) wrote a product's figures.
func (q *Q) touchProduct(scope, key string) {
	if q.w == nil {
		return
	}
	if q.w.products == nil {
		q.w.products = map[string]bool{}
	}
	q.w.products[watchKey(scope, key)] = true
}

// touchAllProducts notes that q (a transaction) wrote every product's figures.
func (q *Q) touchAllProducts() {
	if q.w != nil {
		q.w.all = true
	}
}

// beforeCommit reads, inside the transaction, what the watch compares after it.
func (tx *Tx) beforeCommit(ctx context.Context) (gen int64, qaSum float64, err error) {
	err = tx.c.QueryRowContext(ctx, `SELECT (SELECT n FROM read_generation WHERE id = 1),
		(SELECT total(n) FROM qa_revisions)`).Scan(&gen, &qaSum)
	return gen, qaSum, translate(err)
}

// afterCommit publishes a committed transaction's changes to the watch.
func (db *DB) afterCommit(w *txWatch, gen int64, qaSum float64) {
	rw := &db.watch
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if !rw.loaded {
		rw.inval++ // a load under way must not keep what it read before this commit
		return
	}
	changed := false
	if gen != rw.gen {
		rw.gen, changed = gen, true
	}
	if qaSum != rw.qaSum {
		rw.qaSum, rw.qa, changed = qaSum, nil, true
	}
	if w.all {
		rw.products, changed = nil, true
	}
	for k := range w.products {
		delete(rw.products, k)
		changed = true
	}
	if changed {
		rw.inval++
	}
}

// forgetAll drops everything kept (another process wrote).
func (rw *readWatch) forgetAll() {
	rw.mu.Lock()
	rw.loaded, rw.products, rw.qa = false, nil, nil
	rw.inval++
	rw.mu.Unlock()
}

// poll checks, at most every watchPoll, whether another connection committed; the
// check runs on one caller while the others go on.
func (db *DB) poll(ctx context.Context) {
	rw := &db.watch
	now := time.Now().UnixNano()
	if now-rw.lastPoll.Load() < int64(watchPoll) || !rw.polling.CompareAndSwap(false, true) {
		return
	}
	defer rw.polling.Store(false)
	rw.lastPoll.Store(now)
	if rw.pollConn == nil {
		c, err := db.read.Conn(context.WithoutCancel(ctx))
		if err != nil {
			rw.forgetAll()
			return
		}
		rw.pollConn = c
	}
	var v int64
	if err := rw.pollConn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		rw.forgetAll()
		return
	}
	if v != rw.dataVersion {
		// Our own commits move it too; forgetting costs one read per product.
		rw.dataVersion = v
		rw.forgetAll()
	}
}

// load reads the read generation and the Q&A revisions when nothing is kept.
func (db *DB) loadWatch(ctx context.Context) error {
	rw := &db.watch
	rw.mu.Lock()
	loaded, inval := rw.loaded, rw.inval
	rw.mu.Unlock()
	if loaded {
		return nil
	}
	var gen int64
	var qaSum float64
	err := db.read.QueryRowContext(ctx, `SELECT (SELECT n FROM read_generation WHERE id = 1),
		(SELECT total(n) FROM qa_revisions)`).Scan(&gen, &qaSum)
	if err != nil {
		return translate(err)
	}
	rw.mu.Lock()
	if rw.inval == inval && !rw.loaded {
		rw.loaded, rw.gen, rw.qaSum, rw.products, rw.qa = true, gen, qaSum, nil, nil
	}
	rw.mu.Unlock()
	return nil
}

// ReadStamp is the read generation and the revisions of a product's figures in
// every market (scope variant or group), from memory when kept (see readWatch).
func (db *DB) ReadStamp(ctx context.Context, scope, key string) (ReadStamp, error) {
	db.poll(ctx)
	if err := db.loadWatch(ctx); err != nil {
		return ReadStamp{}, err
	}
	rw := &db.watch
	k := watchKey(scope, key)
	rw.mu.Lock()
	revs, ok := rw.products[k]
	gen, inval, loaded := rw.gen, rw.inval, rw.loaded
	rw.mu.Unlock()
	if ok && loaded {
		return ReadStamp{Gen: gen, Revisions: revs}, nil
	}
	gen, revs, err := db.Read().ReadState(ctx, scope, key)
	if err != nil {
		return ReadStamp{}, err
	}
	rw.mu.Lock()
	// Only products a request may name are kept (up to 128 characters).
	if rw.inval == inval && rw.loaded && rw.gen == gen && len(key) <= 512 && (scope == ScopeVariant || scope == ScopeGroup) {
		if rw.products == nil || len(rw.products) >= maxWatchProducts {
			rw.products = map[string][]ProductRevision{}
		}
		rw.products[k] = revs
	}
	rw.mu.Unlock()
	return ReadStamp{Gen: gen, Revisions: revs}, nil
}

// QARevision is the question-and-answer revision of a market (0 when it never had
// a question), from memory when kept.
func (db *DB) QARevision(ctx context.Context, market string) (int64, error) {
	db.poll(ctx)
	if err := db.loadWatch(ctx); err != nil {
		return 0, err
	}
	rw := &db.watch
	rw.mu.Lock()
	n, ok := rw.qa[market]
	inval, loaded := rw.inval, rw.loaded
	rw.mu.Unlock()
	if ok && loaded {
		return n, nil
	}
	rows, err := db.read.QueryContext(ctx, `SELECT market, n FROM qa_revisions`)
	all, err := collect(rows, err, func(sc scanner) (ProductRevision, error) {
		var r ProductRevision
		err := sc.Scan(&r.Market, &r.Revision)
		return r, err
	})
	if err != nil {
		return 0, err
	}
	m := make(map[string]int64, len(all)+1)
	for _, r := range all {
		m[r.Market] = r.Revision
	}
	n = m[market]
	rw.mu.Lock()
	if rw.inval == inval && rw.loaded {
		if _, ok := m[market]; !ok {
			m[market] = 0
		}
		rw.qa = m
	}
	rw.mu.Unlock()
	return n, nil
}

// WatchStamp is a number that moves on whenever something the read watch keeps
// changes or is forgotten: the read generation, a product's figures, the Q&A
// revisions, a write of another process. An answer worked out from the watch
// (ReadStamp) after reading stamp s is unchanged while WatchStamp is still s. ok is
// false while nothing is kept (the caller works the long way and keeps nothing).
func (db *DB) WatchStamp(ctx context.Context) (stamp uint64, ok bool, err error) {
	db.poll(ctx)
	if err := db.loadWatch(ctx); err != nil {
		return 0, false, err
	}
	rw := &db.watch
	rw.mu.Lock()
	stamp, ok = rw.inval, rw.loaded
	rw.mu.Unlock()
	return stamp, ok, nil
}
