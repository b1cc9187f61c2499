package transparency

import (
	"bytes"
	"encoding/json"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// The auditor's side (reviewd transparency verify): the tree rebuilt from the
// records a log serves, the records read back, and the state kept between runs.

// AuditTree is a log's tree rebuilt in memory from its records, in order.
type AuditTree struct {
	hashes []tlog.Hash
	n      int64
}

// ReadHashes makes the tree a tlog.HashReader.
func (t *AuditTree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(t.hashes)) {
			return nil, fmt.Errorf("transparency: hash %d not built", x)
		}
		out[i] = t.hashes[x]
	}
	return out, nil
}

// Add appends the next record.
func (t *AuditTree) Add(record []byte) error {
	hs, err := tlog.StoredHashes(t.n, record, t)
	if err != nil {
		return err
	}
	t.hashes = append(t.hashes, hs...)
	t.n++
	return nil
}

// Size is how many records were added.
func (t *AuditTree) Size() int64 { return t.n }

// Root is the root hash of the tree of the first n records.
func (t *AuditTree) Root(n int64) (tlog.Hash, error) {
	if n > t.n {
		return tlog.Hash{}, fmt.Errorf("transparency: tree of %d records asked, %d built", n, t.n)
	}
	return tlog.TreeHash(n, t)
}

// ParseRecords splits served entries (JSON lines) into records and entries,
// checking that each is an entry in its canonical form with the index expected
// (first, then counting up).
func ParseRecords(b []byte, first int64) ([][]byte, []Entry, error) {
	var recs [][]byte
	var es []Entry
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, nil, fmt.Errorf("transparency: entry %d has no final newline", first+int64(len(es)))
		}
		rec := b[:i+1]
		b = b[i+1:]
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.DisallowUnknownFields()
		want := first + int64(len(es))
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("transparency: entry %d is not an entry: %v", want, err)
		}
		if !bytes.Equal(e.Record(), rec) {
			return nil, nil, fmt.Errorf("transparency: entry %d is not in its canonical form", want)
		}
		if e.Index != want {
			return nil, nil, fmt.Errorf("transparency: entry at position %d carries index %d", want, e.Index)
		}
		recs = append(recs, rec)
		es = append(es, e)
	}
	return recs, es, nil
}

// AuditState is what `reviewd transparency verify --state FILE` keeps between
// runs: the log's key and the latest checkpoint verified.
type AuditState struct {
	URL        string `json:"url"`
	Key        string `json:"key"`
	Size       int64  `json:"size"`
	Root       string `json:"root"`
	Checkpoint string `json:"checkpoint"`
	CheckedAt  string `json:"checked_at"`
}
