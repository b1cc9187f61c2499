package core

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// MasterKeyFile is the name of the master key inside the data folder.
const MasterKeyFile = "secret.key"

// Keyring holds the master key and the keys derived from it.
type Keyring struct {
	enc    cipher.AEAD
	ipKey  []byte
	tokKey []byte
	logKey []byte
	// phoneKey keys the address_hash of phone rows on the opt-out list.
	phoneKey []byte
}

// LoadMasterKey reads dataDir/secret.key, creating it (32 random bytes, mode 0600)
// when it does not exist yet.
func LoadMasterKey(dataDir string) (*Keyring, error) {
	path := filepath.Join(dataDir, MasterKeyFile)
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("core: create master key: %w", err)
		}
		if _, err := f.Write(key); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("core: read master key: %w", err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("core: master key %s must be 32 bytes", path)
	}
	return NewKeyring(key)
}

// NewKeyring derives the working keys from a 32-byte master key.
func NewKeyring(master []byte) (*Keyring, error) {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, master)
		m.Write([]byte("reviewd/" + label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("encryption"))
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Keyring{enc: gcm, ipKey: derive("ip-hash"), tokKey: derive("pseudonym"), logKey: derive("transparency-log"),
		phoneKey: derive("phone-hash")}, nil
}

// LogKeySeed is the 32-byte seed of the transparency log's ed25519 signing key. It
// is derived from the master key, so every copy of the data folder that carries
// secret.key (backups, the replica) carries the log key too.
func (k *Keyring) LogKeySeed() []byte { return append([]byte(nil), k.logKey...) }

// Encrypt seals plain text with AES-GCM; the nonce is prefixed.
func (k *Keyring) Encrypt(plain []byte) []byte {
	nonce := make([]byte, k.enc.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	return k.enc.Seal(nonce, nonce, plain, nil)
}

// ErrUndecryptable means a stored secret cannot be opened with this master key.
var ErrUndecryptable = errors.New("core: stored secret cannot be decrypted")

// Decrypt opens what Encrypt sealed.
func (k *Keyring) Decrypt(sealed []byte) ([]byte, error) {
	n := k.enc.NonceSize()
	if len(sealed) < n {
		return nil, ErrUndecryptable
	}
	out, err := k.enc.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, ErrUndecryptable
	}
	return out, nil
}

// HashIP is the keyed hash of an IP address kept in the activity and access logs.
func (k *Keyring) HashIP(ip string) string {
	if ip == "" {
		return ""
	}
	m := hmac.New(sha256.New, k.ipKey)
	m.Write([]byte(ip))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// PhoneHash is the address_hash of a phone number on the opt-out list: hex
// HMAC-SHA-256 of the E.164 number under a key derived from the master key, so it
// never matches the plain SHA-256 of e-mail rows and cannot be reversed by trying
// every number without the key.
func (k *Keyring) PhoneHash(e164 string) string {
	m := hmac.New(sha256.New, k.phoneKey)
	m.Write([]byte(e164))
	return hex.EncodeToString(m.Sum(nil))
}

// Pseudonym is a keyed, stable replacement for a personal value.
func (k *Keyring) Pseudonym(kind, value string) string {
	m := hmac.New(sha256.New, k.tokKey)
	m.Write([]byte(kind + "\x00" + value))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// RandomToken returns n random bytes as unpadded base64url.
func RandomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is the stored form of a high-entropy token (SHA-256).
func HashToken(token string) []byte {
	s := sha256.Sum256([]byte(token))
	return s[:]
}

// Equal compares two secrets in constant time.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// ErasedOrderRef is the order reference shown in a review's proof after the order's
// customer data was erased: erased-order:<32 hex>, stable for the order and not
// revealing its number.
func (k *Keyring) ErasedOrderRef(orderID int64) string {
	return "erased-order:" + k.Pseudonym("order", strconv.FormatInt(orderID, 10))
}

// RandomHex returns n random bytes as lower-case hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
