package ai

import (
	"sort"
	"strings"
)

// Sentiment of a topic or sentence.
const (
	Positive = "positive"
	Negative = "negative"
	Mixed    = "mixed"
)

// English opinion words (folded, whole words).
var enPolarity = map[string]int{}

// Turkish opinion stems (folded): a word starting with a stem carries its
// polarity ("kötüydü", "beğendim"); verbStem marks stems whose negative suffix
// (-me/-ma right after the stem: "beğenmedim", "bozulmadı") turns it round.
type trStem struct {
	stem     string
	polarity int
	verb     bool
}

var trStems []trStem

func init() {
	for _, w := range strings.Fields(`good great excellent perfect love loved loves lovely amazing awesome nice comfortable
		comfy soft sturdy durable fast quick happy satisfied recommend recommended beautiful fantastic wonderful worth
		fits easy best better superb solid pleased impressive reliable elegant cute smooth fresh delicious tasty
		gorgeous helpful friendly accurate bright brilliant`) {
		enPolarity[w] = 1
	}
	for _, w := range strings.Fields(`bad poor terrible awful horrible broke broken breaks cheaply flimsy slow late defective
		faulty disappointed disappointing disappointment worst worse useless waste problem problems issue issues
		damaged scratched leaking leak leaks ripped torn fake noisy difficult missing wrong unhappy hate hated cracked
		fails failed failure uncomfortable rude dirty stained wobbly smelly`) {
		enPolarity[w] = -1
	}
	for _, w := range strings.Fields(`iyi guzel harika mukemmel super memnun rahat saglam hizli kaliteli sorunsuz kusursuz
		kullanisli yumusak dayanikli tesekkur uygun sahane muhtesem efsane`) {
		trStems = append(trStems, trStem{w, 1, false})
	}
	for _, w := range strings.Fields(`begen bayil sev`) {
		trStems = append(trStems, trStem{w, 1, true})
	}
	for _, w := range strings.Fields(`kotu berbat rezalet bozuk kirik sorun problem yavas sahte ayip pisman eksik
		yirtik kalitesiz dandik sikinti sikintili rezil leke hatali kusurlu cizik gecikme`) {
		trStems = append(trStems, trStem{w, -1, false})
	}
	for _, w := range strings.Fields(`bozul kiril yirtil cizil`) {
		trStems = append(trStems, trStem{w, -1, true})
	}
	// Longest stem first, so "sikintili" is found before "sikinti".
	sort.SliceStable(trStems, func(i, j int) bool { return len(trStems[i].stem) > len(trStems[j].stem) })
}

// polarity is the opinion a folded word carries (+1, -1) and whether it carries one.
func polarity(w string) (int, bool) {
	if p, ok := enPolarity[w]; ok {
		return p, true
	}
	if len(w) < 3 {
		return 0, false
	}
	for _, s := range trStems {
		if !strings.HasPrefix(w, s.stem) {
			continue
		}
		p := s.polarity
		rest := w[len(s.stem):]
		if s.verb && (strings.HasPrefix(rest, "me") || strings.HasPrefix(rest, "ma")) {
			p = -p
		}
		return p, true
	}
	return 0, false
}

// enNegators turn the opinion word that follows (within three words) round.
var enNegators = map[string]bool{"not": true, "no": true, "never": true, "dont": true, "didnt": true, "doesnt": true,
	"isnt": true, "wasnt": true, "arent": true, "werent": true, "cant": true, "cannot": true, "wont": true,
	"hardly": true, "nothing": true, "without": true, "havent": true, "hasnt": true, "wouldnt": true, "couldnt": true,
	"nor": true, "neither": true}

// trNegators turn the opinion word before them (within two words) round:
// "hiç kötü değil", "sorun yok", "tavsiye etmem".
func trNegator(w string) bool {
	return strings.HasPrefix(w, "degil") || w == "yok" || w == "yoktu" || w == "etmem" || w == "etmiyorum" ||
		w == "etmeyin" || w == "olmadi" || w == "olmaz" || w == "kalmadim" || w == "kalmadik"
}

// Polarity scores a sentence's words (folded): the sum of its opinion words, each
// turned round by a negation ("not bad", "hiç kötü değil" count as favourable).
func Polarity(words []string) int {
	score := 0
	for i, w := range words {
		p, ok := polarity(w)
		if !ok {
			if w == "tavsiye" {
				p, ok = 1, true
			} else {
				continue
			}
		}
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			if enNegators[words[j]] {
				p = -p
				break
			}
		}
		for j := i + 1; j < len(words) && j <= i+2; j++ {
			if trNegator(words[j]) {
				p = -p
				break
			}
			if _, polar := polarity(words[j]); polar {
				break
			}
		}
		score += p
	}
	return score
}

// sentimentOf names the sentiment of counted favourable and critical mentions.
func sentimentOf(pos, neg int) string {
	switch {
	case pos == 0 && neg == 0:
		return Mixed
	case neg == 0 || pos >= 3*neg:
		return Positive
	case pos == 0 || neg >= 3*pos:
		return Negative
	}
	return Mixed
}
