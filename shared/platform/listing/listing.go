// Package listing pages through one store partition for the list convention.
// Filters drop items after the store returns them, so one API page may span
// several store pages; reads are bounded per request, and a page cut short
// by the bound carries a cursor to go on from where it stopped.
package listing

import (
	"context"
	"errors"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Params are the list convention's limit and cursor, as a service takes
// them (the HTTP layer parses and binds them: httpapi.Request.ListParams).
type Params struct {
	Limit  int
	Cursor string // the store's cursor inside the list
}

// DefaultLimit and MaxLimit are the list convention's bounds.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// DefaultBudget bounds the items one request reads.
const DefaultBudget = 2000

// Collect reads q from its cursor and keeps the items keep accepts until
// limit are found, the partition ends, or budget items were read. next is the
// cursor after the last item consumed, "" only when nothing is left, so
// has_more is exact whenever the budget was not hit. q.Limit is the store
// page size (default 100); a caller without filters can set limit+1.
func Collect[T any](ctx context.Context, st store.Store, q store.Query, limit, budget int, keep func(store.Item) (T, bool, error)) (out []T, next string, err error) {
	if q.Limit == 0 {
		q.Limit = 100
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	out = make([]T, 0, limit)
	read, last := 0, ""
	for {
		page, err := st.Query(ctx, q)
		if errors.Is(err, store.ErrInvalid) && q.Cursor != "" {
			return nil, "", apierr.Invalidf("cursor", "cursor is malformed or belongs to another list")
		}
		if err != nil {
			return nil, "", apierr.Wrap("listing.Collect", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			read++
			v, ok, err := keep(it)
			if err != nil {
				return nil, "", err
			}
			if ok && len(out) == limit {
				// One more match exists: the page is full and has more.
				return out, store.EncodeCursor(last), nil
			}
			last = it.SK
			if ok {
				out = append(out, v)
			}
		}
		if page.Next == "" {
			return out, "", nil
		}
		q.Cursor = page.Next
		if read >= budget {
			return out, q.Cursor, nil
		}
	}
}
