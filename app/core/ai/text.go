package ai

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold is THE normalisation of review text for search, topics and sentiment: lower
// case, the Turkish dotted and dotless i (İ, I, ı, i) all become i, and
// diacritics are removed (ç->c, ş->s, ğ->g, ö->o, ü->u, é->e, ß->ss).
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r == 'I' || r == 'ı' || r == 'İ':
			b.WriteByte('i')
		case r == 'ß':
			b.WriteString("ss")
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Words splits folded text into its words (runs of letters and digits); an
// apostrophe inside a word ("didn't", "Ankara'ya") joins its parts.
func Words(folded string) []string {
	out := make([]string, 0, len(folded)/5+1)
	start := -1
	apos := false
	word := func(end int) {
		w := folded[start:end]
		if apos {
			w = apostrophes.Replace(w)
		}
		out = append(out, w)
		start, apos = -1, false
	}
	for i, r := range folded {
		isWord := unicode.IsLetter(r) || unicode.IsNumber(r)
		if !isWord && (r == '\'' || r == '’') && start >= 0 {
			apos = true
			continue
		}
		switch {
		case isWord && start < 0:
			start = i
		case !isWord && start >= 0:
			word(i)
		}
	}
	if start >= 0 {
		word(len(folded))
	}
	return out
}

var apostrophes = strings.NewReplacer("'", "", "’", "")

// Sentences splits text at . ! ? … and line breaks; the parts keep their
// punctuation and are trimmed. Decimal points ("4.5") do not split.
func Sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	flush := func(end int) {
		s := strings.TrimSpace(string(rs[start:end]))
		if s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case '\n', '\r':
			flush(i + 1)
		case '.', '!', '?', '…':
			if r == '.' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]) {
				continue
			}
			for i+1 < len(rs) && strings.ContainsRune(".!?…)\"'", rs[i+1]) {
				i++
			}
			flush(i + 1)
		}
	}
	flush(len(rs))
	return out
}

// stopWords are words (folded) that name no topic of a product: function words,
// pronouns, common verbs and adverbs, praise and blame (they are sentiment, not
// topics), ordinals and time words, in Turkish and English.
var stopWords = map[string]bool{}

// MinTopicLetters is the shortest word that can be a topic.
const MinTopicLetters = 4

func init() {
	for _, w := range strings.Fields(`
		icin daha gibi kadar olarak ancak fakat bile bunu buna bence gercekten olan oldu oldugu olmus olmadi olur
		olsun degil urun urunu urunun urune urunden urunler urunu biraz sonra once simdi hala zaten hepsi herkes kendi
		onun bunlar bizim benim yani veya diye icinde ayni tane aldim aldik almistim geldi gayet kesinlikle tavsiye
		ederim ediyorum tesekkurler tesekkur guzel harika mukemmel begendim memnunum memnun siparis siparisim cunku
		ama fiyat hemen gelen elime ulasti ikinci ucuncu birinci ilk son cok pek gayet hic asla herhalde belki
		bunun sunu suna onu ona bana sana bize size onlar boyle soyle oyle neden nasil nerede zaman kere defa
		gun hafta sonra olarak olmasi olmasina oluyor oldugunu degildi degilim yok var vardi yoktu iyi kotu super
		berbat rezalet fena guzeldi harikaydi memnun kaldim kaldik aldigim aldigimiz begenmedim begendik almak
		aldiktan alin almayin alabilirsiniz tavsiye ediyorum ederim etmem etmiyorum tekrar yine bile artik sadece
		ancak halde hemde hem ise ile veya yada dolayi uzere gore karsi beri diger baska butun tum hersey herseyi
		bir iki uc dort bes alti yedi sekiz dokuz gercek gercekten kesin tam oldukca fazla az cokca epey
		this that with have very they them were from just really would will been what when your than then also
		more much only some product products there their about after because could does didn doesn dont which while these
		those into over well even still like good great nice love loved recommend excellent perfect item items bought
		purchase order ordered arrived quite other thing things it's its better best worse worst hand hands second
		first third last next time times days week weeks month months year years back again ever never always
		though although however since until each every both many most such same another being having here where
		bad awful terrible amazing awesome fine okay happy unhappy disappointed satisfied wonderful fantastic poor
		lovely pretty little bit lot lots overall definitely absolutely totally highly buying buy get got getting
		make made makes want wanted need needed think thought feel felt look looks looked seems seem using used use
		works worked work working came come comes went goes going know knew said says thank thanks should cannot
		cant isnt wasnt arent werent wont havent hasnt wouldnt couldnt shouldnt didnt doesnt dont youre theyre
		also again yes yeah sure maybe perhaps almost already enough whole half full real right left started
		start starts stays stay stayed keeps keep kept took take takes gave give gives tried try tries holds changes
		fits comes goes does seems feels looks makes gets`) {
		stopWords[Fold(w)] = true
	}
}

// IsStopWord reports whether a folded word names no topic.
func IsStopWord(folded string) bool { return stopWords[folded] }

// TopicWord reports whether a folded word can be a topic: at least
// MinTopicLetters letters, not a number, not a stop word and no sentiment word.
func TopicWord(folded string) bool {
	n := 0
	for _, r := range folded {
		if !unicode.IsLetter(r) {
			return false
		}
		n++
	}
	if n < MinTopicLetters || n > 40 || stopWords[folded] || adverbOrPast(folded) {
		return false
	}
	_, polar := polarity(folded)
	return !polar
}

// adverbOrPast recognises English adverbs (quickly, easily, really) and past
// forms (arrived, washed) by their ending: they describe, they name no topic.
func adverbOrPast(w string) bool {
	if len(w) < 6 {
		return false
	}
	for _, end := range []string{"ily", "ally", "ely", "tly", "dly", "kly", "rly", "wly", "fully", "ously"} {
		if strings.HasSuffix(w, end) && w != "family" && w != "assembly" {
			return true
		}
	}
	return strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed")
}

// verbCue reads the words around ws[j] in an English sentence: +1 when they make
// it a verb ("it boils", "to clean", "leaks the water"), -1 when they make it a
// noun ("the handle", "battery is"), 0 when they say neither.
func verbCue(ws []string, j int) int {
	prev, next := "", ""
	if j > 0 {
		prev = ws[j-1]
	}
	if j+1 < len(ws) {
		next = ws[j+1]
	}
	switch {
	case determiners[prev] || copulas[next]:
		return -1
	case subjects[prev] || determiners[next]:
		return 1
	}
	return 0
}

var determiners, copulas, subjects = wordSet("the a an this that these those my your his her its our their no every each some any"),
	wordSet("is are was were isnt wasnt has had"), wordSet("it i we they he she you to can will would also just doesnt didnt dont")

func wordSet(ws string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(ws) {
		m[w] = true
	}
	return m
}
