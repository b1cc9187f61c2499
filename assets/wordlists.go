package assets

import (
	"embed"
	"strings"
)

// wordlists holds the word lists of the automatic review checks.
//
//go:embed wordlists/*.txt
var wordlists embed.FS

// Wordlist returns the entries of wordlists/<name>.txt (for example
// "profanity.tr"): trimmed non-empty lines that are not # comments. An unknown name
// is an error.
func Wordlist(name string) ([]string, error) {
	b, err := wordlists.ReadFile("wordlists/" + name + ".txt")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out, nil
}
