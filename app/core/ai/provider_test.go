package ai

import "testing"

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Provider: "builtin", MinReviews: 10}, {Provider: "off"}, {},
		{Provider: "openai", Endpoint: "http://127.0.0.1:11434/v1", Model: "m", MinReviews: 10}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, c := range []Config{{Provider: "gpt", MinReviews: 10}, {Provider: "builtin", MinReviews: 0},
		{Provider: "openai", Model: "m", MinReviews: 10}, {Provider: "openai", Endpoint: "ftp://x", Model: "m", MinReviews: 10}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: accepted", c)
		}
	}
}
