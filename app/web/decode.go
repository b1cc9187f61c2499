package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"reviewd/app/core"
)

// MaxDepth is the deepest JSON nesting a body may have.
const MaxDepth = 32

// Body modes: ingest bodies (spec 1) answer invalid / body_invalid and
// invalid / field_invalid: <field>; every other JSON body answers invalid_json.
const (
	ModeAPI = iota
	ModeIngest
)

// ReadBody reads the raw request body up to limit bytes. Over the limit: 413
// invalid / body_too_large; empty (or only white space): 400 invalid / body_empty.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, core.E(http.StatusRequestEntityTooLarge, "invalid", "body_too_large").AsRefusal()
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, core.ErrBodyInvalid.AsRefusal()
	}
	if int64(len(b)) > limit {
		return nil, core.E(http.StatusRequestEntityTooLarge, "invalid", "body_too_large").AsRefusal()
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, core.ErrBodyEmpty.AsRefusal()
	}
	return b, nil
}

// ParseJSON checks raw (depth, unstorable characters) and unmarshals it into v.
// Unknown fields are ignored (callers ignore what they do not know).
func ParseJSON(raw []byte, mode int, v any) error {
	if field, err := CheckJSON(raw); err != nil {
		if mode == ModeIngest {
			if errors.Is(err, errUnstorable) {
				return core.Invalidf("field_invalid", field).AsRefusal()
			}
			return core.ErrBodyInvalid.AsRefusal()
		}
		return core.ErrInvalidJSON.AsRefusal()
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// Well-formed JSON with a value of the wrong type names the field.
			return typeError(mode, te)
		}
		if mode == ModeIngest {
			return core.ErrBodyInvalid.AsRefusal()
		}
		return core.ErrInvalidJSON.AsRefusal()
	}
	return nil
}

func typeError(mode int, te *json.UnmarshalTypeError) error {
	field := te.Field
	for i := len(field) - 1; i >= 0; i-- {
		if field[i] == '.' {
			field = field[i+1:]
			break
		}
	}
	if mode == ModeIngest {
		return core.Invalidf("field_invalid", field)
	}
	return core.Invalid(field)
}

// DecodeJSON reads and parses the body in one step.
func DecodeJSON(r *http.Request, limit int64, mode int, v any) error {
	raw, err := ReadBody(r, limit)
	if err != nil {
		if mode != ModeIngest {
			var ce *core.Error
			if errors.As(err, &ce) && ce.Detail == "body_invalid" {
				return core.ErrInvalidJSON.AsRefusal()
			}
		}
		return err
	}
	return ParseJSON(raw, mode, v)
}

var (
	errSyntax     = errors.New("json syntax")
	errDepth      = errors.New("json too deep")
	errUnstorable = errors.New("unstorable character")
)

// CheckJSON walks raw once: it refuses invalid JSON, nesting deeper than MaxDepth,
// and strings (keys or values) holding NUL, an unpaired UTF-16 surrogate escape or
// invalid UTF-8. For an unstorable character it returns the name of the member that
// holds it (the key itself when the key is bad).
func CheckJSON(raw []byte) (string, error) {
	if !json.Valid(raw) {
		return "", errSyntax
	}
	depth := 0
	lastKey := ""
	expectKey := false
	var stack []byte
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return "", errDepth
			}
			stack = append(stack, c)
			expectKey = c == '{'
		case '}', ']':
			depth--
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case '"':
			end, s, ok := scanString(raw, i)
			if expectKey {
				key := string(s)
				if !ok {
					return lastKey, errUnstorable
				}
				lastKey = key
				expectKey = false
			} else if !ok {
				return lastKey, errUnstorable
			}
			i = end
		}
	}
	return "", nil
}

// scanString reads the JSON string starting at raw[start] (a quote). It returns the
// index of the closing quote, the raw contents, and whether the string is storable.
func scanString(raw []byte, start int) (int, []byte, bool) {
	ok := true
	i := start + 1
	for i < len(raw) {
		c := raw[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			if raw[i+1] == 'u' {
				r := hex4(raw[i+2 : i+6])
				switch {
				case r == 0:
					ok = false
				case r >= 0xD800 && r <= 0xDBFF:
					// A high surrogate must be followed by an escaped low one.
					if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
						lo := hex4(raw[i+8 : i+12])
						if lo >= 0xDC00 && lo <= 0xDFFF {
							i += 12
							continue
						}
					}
					ok = false
				case r >= 0xDC00 && r <= 0xDFFF:
					ok = false
				}
				i += 6
				continue
			}
			i += 2
			continue
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				ok = false
			}
			i += size
			continue
		}
		i++
	}
	return i, raw[start+1 : i], ok
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		}
	}
	return r
}

// mustJSON is for values that cannot fail to marshal.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("web: marshal: %v", err))
	}
	return b
}
