package ai

import (
	"hash/fnv"
	"math/bits"
	"regexp"
	"strings"
	"unicode"
)

// Reasons of the ai_review check (content only: never the rating or the sentiment).
const (
	ReasonNearDuplicate    = "near_duplicate" // "near_duplicate: <review id>"
	ReasonSpam             = "spam"
	ReasonPersonalData     = "personal_data"
	ReasonOffTopic         = "off_topic"
	ReasonMachineGenerated = "machine_generated"
)

// NearDuplicateBits is the largest SimHash distance (of 64 bits) at which two
// texts count as near duplicates; MinFingerprintWords the fewest words a text
// needs to be compared.
const (
	NearDuplicateBits   = 3
	MinFingerprintWords = 8
)

// SimHash is the 64-bit SimHash of a text's 3-word shingles (folded words); ok is
// false for a text under MinFingerprintWords words.
func SimHash(text string) (uint64, bool) {
	ws := Words(Fold(text))
	if len(ws) < MinFingerprintWords {
		return 0, false
	}
	var v [64]int
	for i := 0; i+3 <= len(ws); i++ {
		h := fnv.New64a()
		h.Write([]byte(ws[i] + " " + ws[i+1] + " " + ws[i+2]))
		x := h.Sum64()
		for b := 0; b < 64; b++ {
			if x&(1<<uint(b)) != 0 {
				v[b]++
			} else {
				v[b]--
			}
		}
	}
	var out uint64
	for b := 0; b < 64; b++ {
		if v[b] > 0 {
			out |= 1 << uint(b)
		}
	}
	return out, true
}

// Distance is the number of differing bits of two fingerprints.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

var (
	reEmail = regexp.MustCompile(`(?i)[a-z0-9._%+\-]+\s*(?:@|\(at\)|\[at\])\s*[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}`)
	rePhone = regexp.MustCompile(`\+?\(?\d[\d\s().\-/]{8,}\d`)
	reIBAN  = regexp.MustCompile(`(?i)\bTR\s?\d{2}(?:\s?\d{4}){5}\s?\d{2}\b`)
	reURL   = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
)

// Phrases (folded) that mark spam, texts about something else, and model output.
var (
	spamPhrases = []string{"promo code", "discount code", "coupon code", "use my code", "click here", "click the link",
		"visit my", "follow me", "dm me", "whatsapp", "telegram", "earn money", "make money", "work from home",
		"casino", "bitcoin", "crypto", "free gift", "indirim kodu", "kupon kodu", "kodumu kullan", "linke tikla",
		"takip et", "beni takip", "para kazan", "evden calis", "bahis", "bonus kazan"}
	offTopicPhrases = []string{"election", "president", "politics", "government", "parliament", "religion",
		"football match", "secim", "cumhurbaskani", "hukumet", "meclis", "siyaset", "futbol maci"}
	machinePhrases = []string{"as an ai", "as a language model", "i hope this helps", "here is a review",
		"here's a review", "certainly! here", "i cannot provide", "regenerate response", "as an assistant",
		"bir yapay zeka", "yapay zeka olarak", "dil modeli olarak", "iste bir yorum", "umarim yardimci olur"}
)

// ContentReasons finds the text reasons of the ai_review check in a review (all
// but near_duplicate, which needs the other reviews).
func ContentReasons(in CheckInput) []string {
	text := in.Title + "\n" + in.Body
	f := Fold(text)
	var out []string
	if spammy(text, f) {
		out = append(out, ReasonSpam)
	}
	if reEmail.MatchString(text) || reIBAN.MatchString(text) || phone(text) {
		out = append(out, ReasonPersonalData)
	}
	if anyPhrase(f, offTopicPhrases) {
		out = append(out, ReasonOffTopic)
	}
	if anyPhrase(f, machinePhrases) {
		out = append(out, ReasonMachineGenerated)
	}
	return out
}

func anyPhrase(folded string, list []string) bool {
	padded := " " + strings.Join(Words(folded), " ") + " "
	for _, p := range list {
		if strings.Contains(padded, " "+strings.Join(Words(p), " ")+" ") {
			return true
		}
	}
	return false
}

func phone(s string) bool {
	for _, m := range rePhone.FindAllString(reEmail.ReplaceAllString(s, " "), -1) {
		n := 0
		for _, r := range m {
			if r >= '0' && r <= '9' {
				n++
			}
		}
		if n >= 10 && n <= 15 {
			return true
		}
	}
	return false
}

// spammy: a promotional phrase, two or more links, a word repeated to fill the
// text, a long run of one character, or a text mostly in capitals.
func spammy(text, folded string) bool {
	if anyPhrase(folded, spamPhrases) || len(reURL.FindAllString(text, -1)) >= 2 {
		return true
	}
	ws := Words(folded)
	if len(ws) >= 8 {
		count := map[string]int{}
		for _, w := range ws {
			count[w]++
			if count[w]*3 > len(ws) && len([]rune(w)) > 1 {
				return true
			}
		}
	}
	run, last := 0, rune(0)
	letters, upper := 0, 0
	for _, r := range text {
		if r == last && !unicode.IsSpace(r) && !unicode.IsDigit(r) {
			run++
			if run >= 6 {
				return true
			}
		} else {
			run, last = 1, r
		}
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters >= 30 && upper*10 >= letters*8
}
