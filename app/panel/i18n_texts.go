package panel

import "reviewd/app/panel/texts"

func init() {
	for _, set := range []map[string]map[string]string{texts.Admin, texts.Sharing, texts.GoLive} {
		for lang, m := range set {
			for k, v := range m {
				messages[lang][k] = v
			}
		}
	}
}
