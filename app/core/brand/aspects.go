package brand

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/store"
)

// Rating topics ("aspects"): a list (template) of topics a product's reviews are
// rated on, each a stepped scale. The service ships preset lists (own false); a brand
// makes its own. A product uses the list assigned to its variant, else to its group,
// else the brand's default list.

// Aspect kinds: rating is a 1..scale quality scale (higher is better); scale is a
// labelled stepped scale whose middle may be best (fit: runs small .. runs large).
const (
	AspectRating = "rating"
	AspectScale  = "scale"
)

// Limits of own lists.
const (
	MaxAspectsPerTemplate = 8
	MinAspectScale        = 2
	MaxAspectScale        = 7
	maxAspectLabel        = 60
	maxTemplateName       = 80
	maxTemplateProducts   = 1000
)

// aspectDefaultSetting is the settings key of the default list.
const aspectDefaultSetting = "aspect_template_default"

// AspectDef is one topic of a list with its labels in both languages.
type AspectDef struct {
	Key      string              `json:"key"`
	Kind     string              `json:"kind"`
	Required bool                `json:"required"`
	Scale    int                 `json:"scale"`
	Label    map[string]string   `json:"label"`
	Steps    map[string][]string `json:"steps"`
}

// AspectTemplate is one list: a preset (Own false) or the brand's own.
type AspectTemplate struct {
	Key     string      `json:"key"`
	Name    string      `json:"name"`
	Own     bool        `json:"own"`
	Default bool        `json:"default"`
	Retired bool        `json:"retired"`
	Aspects []AspectDef `json:"aspects"`
	// Products are the variant and group keys assigned to the list.
	Products []TemplateProduct `json:"products"`
	// Reviews counts the reviews that carry values of the list.
	Reviews int `json:"reviews"`
}

// TemplateProduct is one product assignment (scope variant or group).
type TemplateProduct struct {
	Scope string `json:"scope"`
	Key   string `json:"key"`
}

// AspectView is one topic as a writing form shows it (in one language).
type AspectView struct {
	Key      string   `json:"key"`
	Label    string   `json:"label"`
	Kind     string   `json:"kind"`
	Required bool     `json:"required"`
	Scale    int      `json:"scale"`
	Steps    []string `json:"steps"`
}

// AspectValue is one rated topic of a review row (spec 2 review row "aspects").
type AspectValue struct {
	Key       string  `json:"key"`
	Label     string  `json:"label"`
	Scale     int     `json:"scale"`
	Value     int     `json:"value"`
	Position  float64 `json:"position"`
	StepLabel string  `json:"step_label"`
}

func bi(tr, en string) map[string]string { return map[string]string{"tr": tr, "en": en} }

var (
	qualitySteps = map[string][]string{
		"tr": {"Çok kötü", "Kötü", "Orta", "İyi", "Mükemmel"},
		"en": {"Very poor", "Poor", "Average", "Good", "Excellent"},
	}
	easeSteps = map[string][]string{
		"tr": {"Çok zor", "Zor", "Orta", "Kolay", "Çok kolay"},
		"en": {"Very hard", "Hard", "Average", "Easy", "Very easy"},
	}
	fitSteps = map[string][]string{
		"tr": {"Dar kalıp", "Biraz dar", "Tam kalıp", "Biraz bol", "Bol kalıp"},
		"en": {"Runs small", "Slightly small", "True to size", "Slightly large", "Runs large"},
	}
)

func ratingAspect(key string, label map[string]string, steps map[string][]string) AspectDef {
	return AspectDef{Key: key, Kind: AspectRating, Scale: 5, Label: label, Steps: steps}
}

// presetTemplates are the lists the service ships. None of their topics is
// required, so a preset never blocks a quick review.
var presetTemplates = []AspectTemplate{
	{Key: "general", Name: "General", Aspects: []AspectDef{
		ratingAspect("quality", bi("Kalite", "Quality"), qualitySteps),
		ratingAspect("value", bi("Fiyat/performans", "Value for money"), qualitySteps),
	}},
	{Key: "apparel", Name: "Apparel and shoes", Aspects: []AspectDef{
		{Key: "fit", Kind: AspectScale, Scale: 5, Label: bi("Beden uyumu", "Fit"), Steps: fitSteps},
		ratingAspect("quality", bi("Kalite", "Quality"), qualitySteps),
		ratingAspect("comfort", bi("Rahatlık", "Comfort"), qualitySteps),
	}},
	{Key: "electronics", Name: "Electronics", Aspects: []AspectDef{
		ratingAspect("quality", bi("Kalite", "Quality"), qualitySteps),
		ratingAspect("ease_of_use", bi("Kullanım kolaylığı", "Ease of use"), easeSteps),
		ratingAspect("value", bi("Fiyat/performans", "Value for money"), qualitySteps),
	}},
	{Key: "beauty", Name: "Beauty and care", Aspects: []AspectDef{
		ratingAspect("effect", bi("Etki", "Effect"), qualitySteps),
		ratingAspect("texture", bi("Doku", "Texture"), qualitySteps),
		ratingAspect("value", bi("Fiyat/performans", "Value for money"), qualitySteps),
	}},
}

// DefaultAspectTemplate is the default list of a new installation.
const DefaultAspectTemplate = "general"

func presetTemplate(key string) (AspectTemplate, bool) {
	for _, t := range presetTemplates {
		if t.Key == key {
			t.Aspects = append([]AspectDef(nil), t.Aspects...)
			return t, true
		}
	}
	return AspectTemplate{}, false
}

// View returns the topic in one language (tr or en; en when unknown).
func (d AspectDef) View(lang string) AspectView {
	return AspectView{Key: d.Key, Label: PickLang(d.Label, lang), Kind: d.Kind, Required: d.Required, Scale: d.Scale,
		Steps: PickSteps(d.Steps, lang)}
}

func PickLang(m map[string]string, lang string) string {
	if v, ok := m[lang]; ok && v != "" {
		return v
	}
	if v := m["en"]; v != "" {
		return v
	}
	return m["tr"]
}

func PickSteps(m map[string][]string, lang string) []string {
	if v, ok := m[lang]; ok && len(v) > 0 {
		return append([]string(nil), v...)
	}
	if v := m["en"]; len(v) > 0 {
		return append([]string(nil), v...)
	}
	return append([]string{}, m["tr"]...)
}

// Views returns every topic of the list in one language.
func (t AspectTemplate) Views(lang string) []AspectView {
	out := make([]AspectView, 0, len(t.Aspects))
	for _, d := range t.Aspects {
		out = append(out, d.View(lang))
	}
	return out
}

// Values turns a review's stored topic values (JSON object key -> value) into the
// review row's aspects in one language, in the list's order. Values of topics the
// list no longer has are left out.
func (t AspectTemplate) Values(stored string, lang string) []AspectValue {
	var vals map[string]int
	_ = json.Unmarshal([]byte(stored), &vals)
	out := []AspectValue{}
	for _, d := range t.Aspects {
		v, ok := vals[d.Key]
		if !ok || v < 1 || v > d.Scale {
			continue
		}
		av := AspectValue{Key: d.Key, Label: PickLang(d.Label, lang), Scale: d.Scale, Value: v}
		if d.Scale > 1 {
			av.Position = math.Round(float64(v-1)/float64(d.Scale-1)*1000) / 1000
		}
		if steps := PickSteps(d.Steps, lang); v-1 < len(steps) {
			av.StepLabel = steps[v-1]
		}
		out = append(out, av)
	}
	return out
}

// defaultTemplateKey reads the brand's default list ("" when none is in use).
func defaultTemplateKey(ctx context.Context, q *store.Q) (string, error) {
	var key string
	err := q.Setting(ctx, aspectDefaultSetting, &key)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultAspectTemplate, nil
	}
	return key, err
}

// AspectTemplateByKey returns a preset or own list ("" or unknown: ok false).
func (c *Service) AspectTemplateByKey(ctx context.Context, q *store.Q, key string) (AspectTemplate, bool, error) {
	if key == "" {
		return AspectTemplate{}, false, nil
	}
	if t, ok := presetTemplate(key); ok {
		return t, true, nil
	}
	row, err := q.AspectTemplateByKey(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return AspectTemplate{}, false, nil
	}
	if err != nil {
		return AspectTemplate{}, false, err
	}
	t, err := ownTemplate(row)
	return t, err == nil, err
}

func ownTemplate(row store.AspectTemplate) (AspectTemplate, error) {
	t := AspectTemplate{Key: row.Key, Name: row.Name, Own: true, Retired: !row.RetiredAt.IsZero()}
	if err := json.Unmarshal([]byte(row.Aspects), &t.Aspects); err != nil {
		return t, fmt.Errorf("core: aspect template %s: %w", row.Key, err)
	}
	return t, nil
}

// TemplateForProduct returns the list a product's reviews are rated on: the list
// assigned to its variant, else to its group, else the brand's default; ok false
// when none applies (a retired or missing list counts as none).
func (c *Service) TemplateForProduct(ctx context.Context, q *store.Q, variantKey, groupKey string) (AspectTemplate, bool, error) {
	key, err := q.TemplateForProduct(ctx, variantKey, groupKey)
	if err != nil {
		return AspectTemplate{}, false, err
	}
	if key != "" {
		t, ok, err := c.AspectTemplateByKey(ctx, q, key)
		if err != nil || (ok && !t.Retired) {
			return t, ok, err
		}
	}
	key, err = defaultTemplateKey(ctx, q)
	if err != nil {
		return AspectTemplate{}, false, err
	}
	t, ok, err := c.AspectTemplateByKey(ctx, q, key)
	if err != nil || !ok || t.Retired {
		return AspectTemplate{}, false, err
	}
	return t, true, nil
}

// validateAspectValues checks a review's topic values against its list: an unknown
// key is aspect_unknown, a value that is not a whole number within 1..scale is
// aspect_out_of_range, an empty required topic is aspect_required. It returns the
// JSON object to store. With ok false (no list, or a shopping-experience review)
// every value is unknown.
func ValidateAspectValues(t AspectTemplate, ok bool, in map[string]json.RawMessage) (string, error) {
	vals := map[string]int{}
	for k, raw := range in {
		var d *AspectDef
		if ok {
			for i := range t.Aspects {
				if t.Aspects[i].Key == k {
					d = &t.Aspects[i]
				}
			}
		}
		if d == nil {
			return "", core.Invalid("aspect_unknown")
		}
		if core.IsNull(raw) {
			continue
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 1 || f > float64(d.Scale) {
			return "", core.Invalid("aspect_out_of_range")
		}
		vals[k] = int(f)
	}
	if ok {
		for _, d := range t.Aspects {
			if _, has := vals[d.Key]; d.Required && !has {
				return "", core.Invalid("aspect_required")
			}
		}
	}
	b, err := json.Marshal(vals)
	return string(b), err
}

// AspectTemplates lists the preset and own lists with their default flag, product
// assignments and review counts. Retired lists are included.
func (c *Service) AspectTemplates(ctx context.Context) ([]AspectTemplate, error) {
	q := c.DB.Read()
	def, err := defaultTemplateKey(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := q.AspectTemplates(ctx)
	if err != nil {
		return nil, err
	}
	assigned, err := q.TemplateProducts(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []AspectTemplate
	for _, p := range presetTemplates {
		t, _ := presetTemplate(p.Key)
		out = append(out, t)
	}
	for _, r := range rows {
		t, err := ownTemplate(r)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	for i := range out {
		out[i].Default = out[i].Key == def
		out[i].Products = []TemplateProduct{}
		for _, a := range assigned {
			if a.TemplateKey == out[i].Key {
				out[i].Products = append(out[i].Products, TemplateProduct{Scope: a.Scope, Key: a.ProductKey})
			}
		}
		if out[i].Reviews, err = q.CountReviewsWithTemplate(ctx, out[i].Key); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AspectTemplateInput is the body of POST /admin/v1/aspect-templates. Key names an
// existing list to change (empty: a new own list). Nil fields stay unchanged.
type AspectTemplateInput struct {
	Key      string             `json:"key"`
	Name     *string            `json:"name"`
	Aspects  *[]AspectDef       `json:"aspects"`
	Products *[]TemplateProduct `json:"products"`
	Default  *bool              `json:"default"`
}

var reAspectKey = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

func validateAspectDefs(defs []AspectDef) error {
	if len(defs) == 0 {
		return core.Invalid("aspects_required")
	}
	if len(defs) > MaxAspectsPerTemplate {
		return core.Invalidf("aspects_too_many", MaxAspectsPerTemplate)
	}
	seen := map[string]bool{}
	for i := range defs {
		d := &defs[i]
		if !reAspectKey.MatchString(d.Key) || seen[d.Key] {
			return core.Invalid("aspect_key")
		}
		seen[d.Key] = true
		if d.Kind == "" {
			d.Kind = AspectRating
		}
		if d.Kind != AspectRating && d.Kind != AspectScale {
			return core.Invalid("aspect_kind")
		}
		if d.Scale < MinAspectScale || d.Scale > MaxAspectScale {
			return core.Invalid("aspect_scale")
		}
		if d.Label == nil || d.Steps == nil {
			return core.Invalid("aspect_label")
		}
		for _, lang := range []string{"tr", "en"} {
			l := strings.TrimSpace(d.Label[lang])
			if l == "" || utf8.RuneCountInString(l) > maxAspectLabel || !core.StorableText(l) {
				return core.Invalid("aspect_label")
			}
			d.Label[lang] = l
			steps := d.Steps[lang]
			if len(steps) != d.Scale {
				return core.Invalid("aspect_steps")
			}
			for j, s := range steps {
				s = strings.TrimSpace(s)
				if s == "" || utf8.RuneCountInString(s) > maxAspectLabel || !core.StorableText(s) {
					return core.Invalid("aspect_steps")
				}
				steps[j] = s
			}
		}
	}
	return nil
}

func aspectsEqual(a, b []AspectDef) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// SaveAspectTemplate creates or changes a list. Preset lists keep their name and
// topics (409 refused / template_preset) but may be assigned to products and made
// the default; retired lists cannot change (template_retired); the topics of a list
// that reviews already carry values of cannot change (template_assigned), so stored
// values keep their meaning. Recorded in the activity history.
func (c *Service) SaveAspectTemplate(ctx context.Context, a *core.Actor, in AspectTemplateInput) (AspectTemplate, error) {
	var key string
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		key = strings.TrimSpace(in.Key)
		var cur AspectTemplate
		exists := false
		if key != "" {
			t, ok, err := c.AspectTemplateByKey(ctx, tx.Q, key)
			if err != nil {
				return err
			}
			if !ok {
				return core.ErrNotFound
			}
			cur, exists = t, true
		}
		switch {
		case exists && !cur.Own && (in.Name != nil || in.Aspects != nil):
			return core.Conflict("refused", "template_preset")
		case exists && cur.Retired:
			return core.Conflict("refused", "template_retired")
		}
		if !exists {
			key = "tpl_" + core.RandomHex(6)
			cur = AspectTemplate{Key: key, Own: true}
			if in.Name == nil {
				return core.Invalid("name_required")
			}
			if in.Aspects == nil {
				return core.Invalid("aspects_required")
			}
		}
		if cur.Own && (in.Name != nil || in.Aspects != nil) {
			name := cur.Name
			if in.Name != nil {
				name = strings.TrimSpace(*in.Name)
				if name == "" {
					return core.Invalid("name_required")
				}
				if utf8.RuneCountInString(name) > maxTemplateName || !core.StorableText(name) {
					return core.Invalid("name_too_long")
				}
			}
			aspects := cur.Aspects
			if in.Aspects != nil {
				aspects = append([]AspectDef(nil), (*in.Aspects)...)
				if err := validateAspectDefs(aspects); err != nil {
					return err
				}
				if exists && !aspectsEqual(aspects, cur.Aspects) {
					n, err := tx.CountReviewsWithTemplate(ctx, key)
					if err != nil {
						return err
					}
					if n > 0 {
						return core.Conflict("refused", "template_assigned")
					}
				}
			}
			raw, err := json.Marshal(aspects)
			if err != nil {
				return err
			}
			if err := tx.SaveAspectTemplate(ctx, store.AspectTemplate{Key: key, Name: name, Aspects: string(raw)}); err != nil {
				return err
			}
		}
		if in.Products != nil {
			ps, err := validateTemplateProducts(*in.Products)
			if err != nil {
				return err
			}
			if err := tx.AssignTemplateProducts(ctx, key, ps); err != nil {
				return err
			}
		}
		if in.Default != nil && *in.Default {
			if err := tx.SetSetting(ctx, aspectDefaultSetting, key); err != nil {
				return err
			}
		}
		action := "aspect_template.changed"
		if !exists {
			action = "aspect_template.created"
		}
		return c.Record(ctx, tx, a, action, "aspect_template", key, nil)
	})
	if err != nil {
		return AspectTemplate{}, err
	}
	all, err := c.AspectTemplates(ctx)
	if err != nil {
		return AspectTemplate{}, err
	}
	for _, t := range all {
		if t.Key == key {
			return t, nil
		}
	}
	return AspectTemplate{}, core.ErrNotFound
}

func validateTemplateProducts(in []TemplateProduct) ([]store.TemplateProduct, error) {
	if len(in) > maxTemplateProducts {
		return nil, core.Invalidf("products_too_many", maxTemplateProducts)
	}
	out := make([]store.TemplateProduct, 0, len(in))
	seen := map[string]bool{}
	for _, p := range in {
		k := strings.TrimSpace(p.Key)
		if p.Scope != "variant" && p.Scope != "group" {
			return nil, core.Invalid("products")
		}
		if k == "" || utf8.RuneCountInString(k) > core.MaxIDLen || !core.StorableText(k) {
			return nil, core.Invalid("products")
		}
		if seen[p.Scope+"\x00"+k] {
			continue
		}
		seen[p.Scope+"\x00"+k] = true
		out = append(out, store.TemplateProduct{Scope: p.Scope, ProductKey: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope+out[i].ProductKey < out[j].Scope+out[j].ProductKey })
	return out, nil
}

// RetireAspectTemplate retires an own list: a preset cannot be retired
// (template_preset), nor the default list (template_default), nor a list products
// are assigned to (template_assigned), nor a retired one again (template_retired).
// Reviews keep their values; the list is no longer offered.
func (c *Service) RetireAspectTemplate(ctx context.Context, a *core.Actor, key string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		key = strings.TrimSpace(key)
		if key == "" {
			return core.Invalid("key_required")
		}
		t, ok, err := c.AspectTemplateByKey(ctx, tx.Q, key)
		if err != nil {
			return err
		}
		if !ok {
			return core.ErrNotFound
		}
		def, err := defaultTemplateKey(ctx, tx.Q)
		if err != nil {
			return err
		}
		ps, err := tx.TemplateProducts(ctx, key)
		if err != nil {
			return err
		}
		switch {
		case !t.Own:
			return core.Conflict("refused", "template_preset")
		case t.Retired:
			return core.Conflict("refused", "template_retired")
		case def == key:
			return core.Conflict("refused", "template_default")
		case len(ps) > 0:
			return core.Conflict("refused", "template_assigned")
		}
		if err := tx.RetireAspectTemplate(ctx, key); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "aspect_template.retired", "aspect_template", key, nil)
	})
}

// storedAspects reads a review's stored topic values.
func StoredAspects(s string) map[string]int {
	out := map[string]int{}
	_ = json.Unmarshal([]byte(s), &out)
	return out
}
