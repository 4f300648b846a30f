package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// File is a whole catalog as the operator loads it (infra/democatalog/*.json).
// Product types default to the three standard ones when the file has none.
type File struct {
	ProductTypes []ProductType `json:"product_types"`
	Categories   []Category    `json:"categories"`
	Products     []Product     `json:"products"`
}

// StandardTypes are the provider's product types.
var StandardTypes = []ProductType{
	{ID: 1, Code: TypeRedeemCard, Name: "Redeem card"},
	{ID: 2, Code: TypeDirectTransfer, Name: "Direct transfer"},
	{ID: 3, Code: TypeDirectTopUp, Name: "Direct top-up"},
}

// Limits of a catalog file, so one load stays a bounded amount of work.
const (
	MaxProducts   = 10000
	MaxCategories = 1000
	maxNameLen    = 200
	maxTextLen    = 2000
	maxFields     = 20
)

// The patterns compile on first use, not at every cold start of functions
// that link the package and never validate a file. Lengths are checked apart
// from them: a counted repetition such as {0,63} compiles into that many
// copies.
var (
	slugRe      = lazyRegexp(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	regionRe    = lazyRegexp(`^[A-Z0-9_]+$`)
	fieldNameRe = lazyRegexp(`^[a-z][a-z0-9_]*$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// rawFile defers product decoding so errors can name the product's index.
type rawFile struct {
	ProductTypes []ProductType     `json:"product_types"`
	Categories   []Category        `json:"categories"`
	Products     []json.RawMessage `json:"products"`
}

// ParseFile decodes and validates a catalog file. Errors are *apierr.Error
// (Invalid) whose Param is the JSON path of the bad value, e.g.
// "products[3].step".
func ParseFile(b []byte) (*File, error) {
	var raw rawFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, apierr.Invalidf("", "catalog file is not valid JSON: %v", err)
	}
	f := &File{ProductTypes: raw.ProductTypes, Categories: raw.Categories}
	if len(f.ProductTypes) == 0 {
		f.ProductTypes = StandardTypes
	}
	types, err := checkTypes(f.ProductTypes)
	if err != nil {
		return nil, err
	}
	cats, err := checkCategories(f.Categories)
	if err != nil {
		return nil, err
	}
	if len(raw.Products) > MaxProducts {
		return nil, apierr.Invalidf("products", "a catalog holds at most %d products", MaxProducts)
	}
	seen := map[int64]bool{}
	for i, rp := range raw.Products {
		path := fmt.Sprintf("products[%d]", i)
		var p Product
		if err := p.UnmarshalJSON(rp); err != nil {
			return nil, prefix(path, err)
		}
		if err := checkProduct(&p, types, cats); err != nil {
			return nil, prefix(path, err)
		}
		if seen[p.ID] {
			return nil, apierr.Invalidf(path+".id", "product id %d appears twice", p.ID)
		}
		seen[p.ID] = true
		f.Products = append(f.Products, p)
	}
	return f, nil
}

// prefix puts path in front of an error's param.
func prefix(path string, err error) error {
	e := *apierr.As(err)
	if e.Param == "" {
		e.Param = path
	} else {
		e.Param = path + "." + e.Param
	}
	e.Message = path + ": " + e.Message
	return &e
}

func checkTypes(ts []ProductType) (map[int64]ProductType, error) {
	std := map[string]int64{}
	for _, t := range StandardTypes {
		std[t.Code] = t.ID
	}
	out := map[int64]ProductType{}
	for i, t := range ts {
		path := fmt.Sprintf("product_types[%d]", i)
		id, ok := std[t.Code]
		switch {
		case !ok:
			return nil, apierr.Invalidf(path+".code", "unknown product type %q; known: redeem_card, direct_transfer, direct_top_up", t.Code)
		case t.ID != id:
			return nil, apierr.Invalidf(path+".id", "product type %s has id %d", t.Code, id)
		case out[t.ID].Code != "":
			return nil, apierr.Invalidf(path+".id", "product type id %d appears twice", t.ID)
		case t.Name == "" || len(t.Name) > maxNameLen:
			return nil, apierr.Invalidf(path+".name", "name must be 1 to %d characters", maxNameLen)
		}
		out[t.ID] = t
	}
	return out, nil
}

func checkCategories(cs []Category) (map[int64]bool, error) {
	if len(cs) > MaxCategories {
		return nil, apierr.Invalidf("categories", "a catalog holds at most %d categories", MaxCategories)
	}
	out := map[int64]bool{}
	for i, c := range cs {
		path := fmt.Sprintf("categories[%d]", i)
		switch {
		case c.ID <= 0:
			return nil, apierr.Invalidf(path+".id", "id must be a positive integer")
		case out[c.ID]:
			return nil, apierr.Invalidf(path+".id", "category id %d appears twice", c.ID)
		case c.Name == "" || len(c.Name) > maxNameLen:
			return nil, apierr.Invalidf(path+".name", "name must be 1 to %d characters", maxNameLen)
		case !slugRe().MatchString(c.Slug):
			return nil, apierr.Invalidf(path+".slug", "slug must be lower-case words joined by hyphens")
		}
		out[c.ID] = true
	}
	for i, c := range cs {
		if c.ParentID != nil && (!out[*c.ParentID] || *c.ParentID == c.ID) {
			return nil, apierr.Invalidf(fmt.Sprintf("categories[%d].parent_id", i), "parent category %d does not exist", *c.ParentID)
		}
	}
	return out, nil
}

// checkProduct applies the rules that need the file's types and categories.
// A direct top-up is always a range product with customer_account fields;
// other types have a fixed price and no fields (orders rely on this).
func checkProduct(p *Product, types map[int64]ProductType, cats map[int64]bool) error {
	t, ok := types[p.ProductTypeID]
	switch {
	case p.ID <= 0:
		return apierr.Invalidf("id", "id must be a positive integer")
	case p.Name == "" || len(p.Name) > maxNameLen:
		return apierr.Invalidf("name", "name must be 1 to %d characters", maxNameLen)
	case !slugRe().MatchString(p.Slug):
		return apierr.Invalidf("slug", "slug must be lower-case words joined by hyphens")
	case !ok:
		return apierr.Invalidf("product_type_id", "unknown product type %d", p.ProductTypeID)
	case p.TypeCode != "" && p.TypeCode != t.Code:
		return apierr.Invalidf("product_type_code", "product_type_code %q does not match product type %d (%s)", p.TypeCode, t.ID, t.Code)
	case !cats[p.CategoryID]:
		return apierr.Invalidf("category_id", "unknown category %d", p.CategoryID)
	case !validRegion(p.RegionCode):
		return apierr.Invalidf("region_code", "region_code must be 2 to 16 upper-case letters, digits or _ (e.g. US, GLOBAL)")
	case len(p.Logo) > maxTextLen || len(p.Description) > maxTextLen:
		return apierr.Invalidf("description", "logo and description must be at most %d characters", maxTextLen)
	}
	p.TypeCode = t.Code
	if t.Code == TypeDirectTopUp {
		if !p.IsRange() {
			return apierr.Invalidf("price", "a direct_top_up product takes min_amount, max_amount and step, not a price")
		}
		return checkFields(p.CustomerAccount)
	}
	if p.IsRange() {
		return apierr.Invalidf("step", "only direct_top_up products have a range; give %s products a price", t.Code)
	}
	if len(p.CustomerAccount) > 0 {
		return apierr.Invalidf("customer_account", "only direct_top_up products have customer_account fields")
	}
	return nil
}

func checkFields(fs []AccountField) error {
	if len(fs) == 0 || len(fs) > maxFields {
		return apierr.Invalidf("customer_account", "a direct_top_up product needs 1 to %d customer_account fields", maxFields)
	}
	seen := map[string]bool{}
	for i, f := range fs {
		path := fmt.Sprintf("customer_account[%d]", i)
		switch {
		case len(f.Name) > 64 || !fieldNameRe().MatchString(f.Name):
			return apierr.Invalidf(path+".name", "name must be snake_case")
		case seen[f.Name]:
			return apierr.Invalidf(path+".name", "field %s appears twice", f.Name)
		case f.Label == "" || len(f.Label) > maxNameLen:
			return apierr.Invalidf(path+".label", "label must be 1 to %d characters", maxNameLen)
		case f.MaxLength < 0 || f.MaxLength > 1000:
			return apierr.Invalidf(path+".max_length", "max_length must be 0 to 1000")
		}
		if f.Pattern != "" {
			if _, err := compilePattern(f.Pattern); err != nil {
				return apierr.Invalidf(path+".pattern", "pattern is not a valid regular expression")
			}
		}
		seen[f.Name] = true
	}
	return nil
}

// validRegion: 2 to 16 of A-Z, 0-9 and _.
func validRegion(s string) bool { return len(s) >= 2 && len(s) <= 16 && regionRe().MatchString(s) }
