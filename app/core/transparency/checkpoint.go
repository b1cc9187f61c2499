package transparency

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"reviewd/store"
)

// TileHeight is the height of the tiles served at /v1/transparency/tile/ (the Go
// checksum database's).
const TileHeight = 8

// Origin is the log's name: the first line of every checkpoint and the name of its
// key, fixed the first time it is asked for (the public address's host plus
// "/transparency"), so a later change of public_url does not rename the log.
func (s *Service) Origin(ctx context.Context) (string, error) {
	o, err := s.DB.Read().TransparencyOrigin(ctx)
	if err != nil || o != "" {
		return o, err
	}
	name := "reviewd"
	if u, err := url.Parse(s.PublicURL); err == nil && u.Host != "" {
		name = u.Host
	}
	name += "/transparency"
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		o, err = tx.FixTransparencyOrigin(ctx, name)
		return err
	})
	return o, err
}

// keys builds the log's signer and verifier key (note verifier format,
// "<origin>+<key hash>+<base64 key>").
func (s *Service) keys(ctx context.Context) (note.Signer, string, error) {
	origin, err := s.Origin(ctx)
	if err != nil {
		return nil, "", err
	}
	priv := ed25519.NewKeyFromSeed(s.Keys.LogKeySeed())
	vkey, err := note.NewEd25519VerifierKey(origin, priv.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, "", fmt.Errorf("transparency: verifier key: %w", err)
	}
	// The signer key text is the verifier key's name and hash with the seed
	// (algorithm byte 1, ed25519) in place of the public key.
	parts := strings.Split(vkey, "+")
	skey := "PRIVATE+KEY+" + parts[0] + "+" + parts[1] + "+" +
		base64.StdEncoding.EncodeToString(append([]byte{1}, s.Keys.LogKeySeed()...))
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, "", fmt.Errorf("transparency: signer: %w", err)
	}
	return signer, vkey, nil
}

// VerifierKey is the log's public key in the note verifier format (reviewd
// transparency key, GET /v1/transparency/key).
func (s *Service) VerifierKey(ctx context.Context) (string, error) {
	_, vkey, err := s.keys(ctx)
	return vkey, err
}

// FormatTree is the text of a checkpoint: the layout of tlog.FormatTree (origin
// line, tree size, base64 root hash) with the log's own origin line.
func FormatTree(origin string, t tlog.Tree) []byte {
	return fmt.Appendf(nil, "%s\n%d\n%s\n", origin, t.N, t.Hash)
}

// ParseTree reads the text FormatTree writes for origin.
func ParseTree(origin string, text string) (tlog.Tree, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) != 4 || lines[3] != "" || lines[0] != origin+"\n" {
		return tlog.Tree{}, errors.New("transparency: malformed checkpoint")
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(lines[1], "\n"), 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10)+"\n" != lines[1] {
		return tlog.Tree{}, errors.New("transparency: malformed checkpoint size")
	}
	h, err := tlog.ParseHash(strings.TrimSuffix(lines[2], "\n"))
	if err != nil {
		return tlog.Tree{}, errors.New("transparency: malformed checkpoint hash")
	}
	return tlog.Tree{N: n, Hash: h}, nil
}

// OpenCheckpoint checks a signed checkpoint against the verifier key and reads
// its tree.
func OpenCheckpoint(vkey string, signed []byte) (tlog.Tree, error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return tlog.Tree{}, fmt.Errorf("transparency: verifier key: %w", err)
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		return tlog.Tree{}, fmt.Errorf("transparency: checkpoint signature: %w", err)
	}
	return ParseTree(v.Name(), n.Text)
}

// SignCheckpoint signs and keeps a checkpoint of the whole log when it grew since
// the latest one (or none exists yet); it reports the size signed, 0 and false when
// there was nothing new. The transparency job calls it every minute.
func (s *Service) SignCheckpoint(ctx context.Context) (int64, bool, error) {
	signer, _, err := s.keys(ctx)
	if err != nil {
		return 0, false, err
	}
	origin := signer.Name()
	var size int64
	signed := false
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		n, err := tx.TransparencySize(ctx)
		if err != nil {
			return err
		}
		latest, err := tx.LatestTransparencyCheckpoint(ctx)
		switch {
		case err == nil && latest.Size >= n:
			return nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		}
		if err := hashEntries(ctx, tx, n); err != nil {
			return err
		}
		root, err := tlog.TreeHash(n, hashReader(ctx, tx.Q))
		if err != nil {
			return err
		}
		msg, err := note.Sign(&note.Note{Text: string(FormatTree(origin, tlog.Tree{N: n, Hash: root}))}, signer)
		if err != nil {
			return err
		}
		size, signed = n, true
		return tx.AddTransparencyCheckpoint(ctx, store.TransparencyCheckpoint{Size: n, Root: root[:], Note: msg})
	})
	return size, signed, err
}

// Checkpoint is a signed checkpoint as kept: its tree and note.
type Checkpoint struct {
	Tree tlog.Tree
	Note []byte
}

// Latest is the latest signed checkpoint; before the first is kept, the empty
// tree signed now (ed25519 signatures are deterministic, so it is the same note
// every time).
func (s *Service) Latest(ctx context.Context) (Checkpoint, error) {
	c, err := s.DB.Read().LatestTransparencyCheckpoint(ctx)
	if err == nil {
		var h tlog.Hash
		copy(h[:], c.Root)
		return Checkpoint{Tree: tlog.Tree{N: c.Size, Hash: h}, Note: c.Note}, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return Checkpoint{}, err
	}
	signer, _, err := s.keys(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	empty, _ := tlog.TreeHash(0, nil)
	t := tlog.Tree{N: 0, Hash: empty}
	msg, err := note.Sign(&note.Note{Text: string(FormatTree(signer.Name(), t))}, signer)
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Tree: t, Note: msg}, nil
}
