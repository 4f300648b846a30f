package ledger

import (
	"context"
	"errors"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Paging with filters: the store pages by sort key, the filters drop items,
// so a list page may need several store pages. Reads are bounded per request;
// when the bound is hit the caller gets a short page with a cursor.
const (
	scanPage = 100  // items per store query
	scanMax  = 2000 // items read per request at most
)

// collect reads q from its cursor and keeps the items keep accepts until
// limit are found, the partition ends, or scanMax items were read. next is
// the cursor after the last item consumed ("" when none is left); the store's
// cursor is the last sort key returned, so a page can end mid store-page.
func collect[T any](ctx context.Context, st store.Store, q store.Query, limit int, keep func(store.Item) (T, bool, error)) (out []T, next string, err error) {
	q.Limit = scanPage
	read, last := 0, ""
	for {
		page, err := st.Query(ctx, q)
		if errors.Is(err, store.ErrInvalid) && q.Cursor != "" {
			return nil, "", apierr.Invalidf("cursor", "cursor is malformed")
		}
		if err != nil {
			return nil, "", apierr.Wrap("ledger.list", apierr.Internal, err)
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
		if read >= scanMax {
			return out, q.Cursor, nil
		}
	}
}
