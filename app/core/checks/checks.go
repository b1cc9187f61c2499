package checks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"reviewd/assets"
	"reviewd/store"
)

// Automatic check kinds (review_checks.kind). A finding never refuses a review; it
// sets flag_open and, depending on the publishing method, holds the review for a
// moderator.
const (
	CheckPersonalData = "personal_data" // e-mail address or phone number
	CheckLink         = "link"          // web address
	CheckProfanity    = "profanity"     // swearing (tr and en lists)
	CheckHealthClaim  = "health_claim"  // claims of effects on illness or the body
	CheckBrandTerm    = "brand_term"    // one of the brand's regular expressions
	CheckDuplicate    = "duplicate"     // the same text as another review
	// CheckAIReview is the AI package's content check (version 2): its finding
	// holds its reasons joined by AIReasonSep.
	CheckAIReview = "ai_review"
	AIReasonSep   = "; "
)

// CheckKinds lists every check in the order they run.
var CheckKinds = []string{CheckPersonalData, CheckLink, CheckProfanity, CheckHealthClaim, CheckBrandTerm, CheckDuplicate}

// Check outcomes.
const (
	CheckPassed  = "passed"
	CheckFlagged = "flagged"
)

// CheckOutcomes lists the outcomes of a check.
var CheckOutcomes = []string{CheckPassed, CheckFlagged}

// FindingWords are the values of a finding that name a kind of thing (the others
// are a listed word, term_<id> or another review's id); CheckFields the fields
// the checks read.
var (
	FindingWords = []string{"email", "phone", "url"}
	CheckFields  = []string{"title", "body", "author_name"}
)

// MinDuplicateLength is the shortest normalised body (in characters) the duplicate
// check compares; short praise ("Very good, recommended") is naturally repeated.
const MinDuplicateLength = 40

// Finding is one thing a check found in a field. Value names what was found (email,
// phone, url, the listed word or phrase, term_<id>, the other review's id), never
// the personal data itself.
type Finding struct {
	Kind  string
	Field string
	Value string
}

// CheckText is the text of a review the checks read.
type CheckText struct {
	Title, Body, AuthorName string
	Language                string
}

var (
	reEmail = regexp.MustCompile(`(?i)[a-z0-9._%+\-]+\s*(?:@|\(at\)|\[at\])\s*[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}`)
	// A phone number: 10 to 15 digits with the usual separators, optionally +.
	rePhoneRun   = regexp.MustCompile(`\+?\(?\d[\d\s().\-/]{7,}\d`)
	reURL        = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
	reBareDomain = regexp.MustCompile(`(?i)\b[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.(?:com|net|org|info|biz|io|co|me|app|shop|store|online|site|xyz|ly|gl|link|tr|uk|de|us|eu|ru|fr|it|nl|es)(?:\.[a-z]{2})?\b`)
)

// personalData finds e-mail addresses and phone numbers.
func personalData(field, s string) []Finding {
	var out []Finding
	if reEmail.MatchString(s) {
		out = append(out, Finding{CheckPersonalData, field, "email"})
	}
	for _, m := range rePhoneRun.FindAllString(reEmail.ReplaceAllString(s, " "), -1) {
		digits := 0
		for _, r := range m {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits >= 10 && digits <= 15 {
			out = append(out, Finding{CheckPersonalData, field, "phone"})
			break
		}
	}
	return out
}

// links finds web addresses (with a scheme, www., or a bare domain of a common
// top-level domain). E-mail addresses are personal data, not links.
func links(field, s string) []Finding {
	s = reEmail.ReplaceAllString(s, " ")
	if reURL.MatchString(s) || reBareDomain.MatchString(s) {
		return []Finding{{CheckLink, field, "url"}}
	}
	return nil
}

// words splits text into lower-case words (letters and digits). Turkish text is
// lowered with Turkish rules (I -> ı); İ is always i.
func SplitWords(s, lang string) []string {
	lower := func(r rune) rune {
		if r == 'İ' {
			return 'i'
		}
		if lang == "tr" {
			return unicode.TurkishCase.ToLower(r)
		}
		return unicode.ToLower(r)
	}
	return strings.FieldsFunc(strings.Map(lower, s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\u0307'
	})
}

// phraseList matches list entries (one or more words; a word ending in * is a
// prefix) against a word sequence.
type phraseList struct {
	byFirst map[string][][]string
	prefix  [][]string // entries whose first word is a prefix
}

func NewPhraseList(entries []string) *phraseList {
	pl := &phraseList{byFirst: map[string][][]string{}}
	for _, e := range entries {
		ws := strings.Fields(strings.ToLower(e))
		if len(ws) == 0 {
			continue
		}
		if strings.HasSuffix(ws[0], "*") {
			pl.prefix = append(pl.prefix, ws)
		} else {
			pl.byFirst[ws[0]] = append(pl.byFirst[ws[0]], ws)
		}
	}
	return pl
}

func wordMatches(pattern, w string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(w, p)
	}
	return pattern == w
}

func entryAt(entry, ws []string, i int) bool {
	if i+len(entry) > len(ws) {
		return false
	}
	for j, p := range entry {
		if !wordMatches(p, ws[i+j]) {
			return false
		}
	}
	return true
}

// find returns the first entry found in ws, as written in the list.
func (pl *phraseList) Find(ws []string) (string, bool) {
	for i, w := range ws {
		for _, e := range pl.byFirst[w] {
			if entryAt(e, ws, i) {
				return strings.Join(e, " "), true
			}
		}
		for _, e := range pl.prefix {
			if entryAt(e, ws, i) {
				return strings.Join(e, " "), true
			}
		}
	}
	return "", false
}

var (
	listsOnce sync.Once
	profanity *phraseList
	health    *phraseList
	listsErr  error
)

func loadLists() error {
	listsOnce.Do(func() {
		load := func(names ...string) *phraseList {
			var all []string
			for _, n := range names {
				l, err := assets.Wordlist(n)
				if err != nil {
					listsErr = fmt.Errorf("core: word list %s: %w", n, err)
					return nil
				}
				all = append(all, l...)
			}
			return NewPhraseList(all)
		}
		profanity = load("profanity.tr", "profanity.en")
		health = load("health.tr", "health.en")
	})
	return listsErr
}

// CompileTerm compiles a brand expression as the checks use it: RE2 syntax, matched
// case-insensitively anywhere in the title, text or name. The service keeps the
// compiled expressions of review checks (termCache).
func CompileTerm(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile("(?i)" + pattern)
}

// TextFindings runs every text check (all but duplicate) over a text with the
// brand's expressions, compiling them for this call (question and answer checks).
func TextFindings(t CheckText, terms []store.Term) ([]Finding, error) {
	return textFindings(t, terms, CompileTerm)
}

// textFindings runs the text checks, compiling the brand's expressions with compile.
func textFindings(t CheckText, terms []store.Term, compile func(string) (*regexp.Regexp, error)) ([]Finding, error) {
	if err := loadLists(); err != nil {
		return nil, err
	}
	var out []Finding
	fields := []struct{ name, text string }{{"title", t.Title}, {"body", t.Body}, {"author_name", t.AuthorName}}
	for _, f := range fields {
		if strings.TrimSpace(f.text) == "" {
			continue
		}
		out = append(out, personalData(f.name, f.text)...)
		out = append(out, links(f.name, f.text)...)
		ws := SplitWords(f.text, t.Language)
		if w, ok := profanity.Find(ws); ok {
			out = append(out, Finding{CheckProfanity, f.name, w})
		}
		if w, ok := health.Find(ws); ok {
			out = append(out, Finding{CheckHealthClaim, f.name, w})
		}
		for _, term := range terms {
			re, err := compile(term.Pattern)
			if err != nil {
				continue // saved expressions compile; an unreadable one is skipped
			}
			if re.MatchString(f.text) {
				out = append(out, Finding{CheckBrandTerm, f.name, fmt.Sprintf("term_%d", term.ID)})
			}
		}
	}
	return out, nil
}

// BodyHash is the duplicate-check fingerprint of a review text: the SHA-256 of its
// lower-cased words joined by single spaces; "" when shorter than
// MinDuplicateLength characters.
func BodyHash(body, lang string) string {
	norm := strings.Join(SplitWords(body, lang), " ")
	if utf8.RuneCountInString(norm) < MinDuplicateLength {
		return ""
	}
	s := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(s[:])
}

// RunChecks runs every automatic check on a stored review in tx: earlier open
// findings are closed as superseded, one row per check kind (passed) or per finding
// (flagged) is added, and flag_open follows the result. It reports whether anything
// was found. Call it after a review's text is written or changed, and when its proof
// changes (the Returned mark).
func (c *Service) RunChecks(ctx context.Context, tx *store.Tx, r store.Review) (bool, error) {
	terms, err := tx.Terms(ctx)
	if err != nil {
		return false, err
	}
	found, err := textFindings(CheckText{Title: r.Title, Body: r.Body, AuthorName: r.AuthorName, Language: r.Language}, terms, c.terms.compile)
	if err != nil {
		return false, err
	}
	if r.BodyHash != "" {
		dups, err := tx.ReviewsWithBodyHash(ctx, r.BodyHash, r.ID, 1)
		if err != nil {
			return false, err
		}
		if len(dups) > 0 {
			found = append(found, Finding{CheckDuplicate, "body", dups[0]})
		}
	}
	if _, err := tx.ResolveReviewChecks(ctx, r.ID, "superseded", "system"); err != nil {
		return false, err
	}
	var rows []store.ReviewCheck
	seen := map[Finding]bool{}
	for _, kind := range CheckKinds {
		flagged := false
		for _, f := range found {
			if f.Kind != kind || seen[f] {
				continue
			}
			seen[f] = true
			flagged = true
			rows = append(rows, store.ReviewCheck{ReviewID: r.ID, Kind: kind, Outcome: CheckFlagged, Finding: f.Value, Field: f.Field})
		}
		if !flagged {
			rows = append(rows, store.ReviewCheck{ReviewID: r.ID, Kind: kind, Outcome: CheckPassed})
		}
	}
	hold := false
	if c.AI != nil {
		reasons, err := c.AI.ReviewContent(ctx, tx, r)
		if err != nil {
			return false, err
		}
		row := store.ReviewCheck{ReviewID: r.ID, Kind: CheckAIReview, Outcome: CheckPassed}
		if len(reasons) > 0 {
			hold = true
			row.Outcome, row.Finding = CheckFlagged, strings.Join(reasons, AIReasonSep)
		}
		rows = append(rows, row)
	}
	if err := tx.AddReviewChecks(ctx, rows); err != nil {
		return false, err
	}
	flag := len(seen) > 0 || hold
	return flag, tx.SetReviewFlag(ctx, r.ID, flag)
}
